"""Cards filled from a spreadsheet: rows of a CSV or xlsx sheet fill a template card.

Every problem caused by a cell is reported at the sheet's row and column, in every output
format; a hostile cell is an error at its cell, never new card text; the cards keep the row in
test failures; `pillbox export --csv` writes a sheet that reads back as the same cards.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler import sheets
from compiler.build import load_checked
from compiler.check import check_paths
from compiler.kept import keep_in_this_process, keeping
from tests.helpers import make_pack, run

MANIFEST = """\
pack: sheet-pack
title: Sheet pack
version: 0.1.0
ruleset: coma-ward
sheets:
  - {file: %s, card: cards/item-row.card%s}
"""

TEMPLATE = """\
# One item per row of the sheet.
item "{title}" {
    type {type}
    copies {copies}
    hands {hands}
    attacks with {attacks_with}
    attack {attack}
    damage {damage}
    protects {protects}
    rule "{text}"

    test "{title} is in hand" {
        expect items carried == {carried}
    }
}
"""

HEADER = "title,type,copies,hands,attacks_with,attack,damage,protects,text,carried"
ROWS = [
    "Bone Saw,weapon,2,1,strength,+1,2,,It hums.,1",
    'Walking Cane,weapon,1,2,dexterity,+2,1,,"Light, ""quick"" and long.",1',
    "Spare Gown,clothing,,,,,,1,Backless.,0",
]

ROOM = """\
room "Linen Cupboard" {
    number 8
    when revealed { draw item }
}
"""

SheetPack = Callable[..., Path]


@pytest.fixture
def sheet_pack(tmp_path: Path) -> SheetPack:
    """Write a pack whose items come from a CSV of the given rows (or a workbook)."""

    def write(
        rows: list[str] | None = None,
        template: str = TEMPLATE,
        file: str = "items.csv",
        extra: str = "",
    ) -> Path:
        folder = tmp_path / "pack"
        (folder / "cards").mkdir(parents=True, exist_ok=True)
        (folder / "pack.yaml").write_text(MANIFEST % (file, extra))
        (folder / "cards" / "item-row.card").write_text(template)
        (folder / "cards" / "rooms.card").write_text(ROOM)
        if file.endswith(".csv"):
            lines = [HEADER, *(ROWS if rows is None else rows)]
            (folder / file).write_text("\n".join(lines) + "\n")
        return folder

    return write


def diagnostics(folder: Path) -> list[tuple[str, str, int, int]]:
    """(code, file, line, column) of every diagnostic of a check, but for what a whole game
    needs besides its items and a room (W0324)."""
    report = check_paths([folder])
    return [
        (d.code, Path(d.span.file).name, d.span.line, d.span.column)
        for d in report.diagnostics
        if d.code != "W0324"
    ]


def test_each_row_makes_a_card_that_points_at_its_row(sheet_pack: SheetPack) -> None:
    loaded = load_checked(sheet_pack())
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    items = {card["title"]: card for card in loaded.pack.cards if card["kind"] == "item"}
    assert sorted(items) == ["Bone Saw", "Spare Gown", "Walking Cane"]
    cane = items["Walking Cane"]
    assert Path(cane["file"]).name == "items.csv"
    assert cane["at"][:2] == [3, 1]
    assert cane["property_at"]["copies"][:2] == [3, 3]  # the copies cell of row 3
    assert cane["properties"]["hands"] == 2
    assert cane["rules"][0]["text"] == 'Light, "quick" and long.'
    # An empty cell leaves its line out: the gown has no hands, attack or damage.
    assert set(items["Spare Gown"]["properties"]) == {"type", "protects"}


def test_a_sheet_saved_with_semicolons(sheet_pack: SheetPack) -> None:
    folder = sheet_pack()
    rows = [HEADER.replace(",", ";"), "Bone Saw;weapon;2;1;strength;+1;lots;;A, B;1"]
    (folder / "items.csv").write_text("\n".join(rows) + "\n")
    assert diagnostics(folder) == [("E0201", "items.csv", 2, 7)]


def test_a_test_failure_names_the_row_and_quotes_the_step(sheet_pack: SheetPack) -> None:
    folder = sheet_pack([*ROWS[:2], "Spare Gown,clothing,,,,,,1,Backless.,4"])
    code, output = run("test", str(folder))
    assert code == 1
    assert 'items.csv:4:10 item "Spare Gown"' in output  # the expect's cell
    assert "expected items carried == 4, but items carried is 0" in output
    assert "2 passed, 1 failed" in output


@pytest.mark.parametrize(
    ("cell", "column"),
    [('"3\n  remove all"', 3), ('"""}"', 3), ("3; lose health 9", 3), ("or", 4)],
)
def test_a_hostile_cell_outside_quotes_is_an_error_at_its_cell(
    sheet_pack: SheetPack, cell: str, column: int
) -> None:
    values = ["Trap", "weapon", "2", "1", "strength", "+1", "2", "", "x", "1"]
    values[column - 1] = cell
    found = diagnostics(sheet_pack([*ROWS, ",".join(values)]))
    assert found == [("E0253", "items.csv", 5, column)]


def test_the_report_names_each_card_by_its_row(sheet_pack: SheetPack, tmp_path: Path) -> None:
    folder = sheet_pack()
    code, output = run("report", str(folder), "-o", str(tmp_path / "report.html"))
    assert code == 0, output
    page = (tmp_path / "report.html").read_text()
    for row in (2, 3, 4):
        assert f"items.csv:{row}</p>" in page


def test_a_hostile_cell_inside_quotes_stays_text(sheet_pack: SheetPack) -> None:
    hostile = '"""} item ""Extra"" { type food }\n#"'
    loaded = load_checked(sheet_pack([*ROWS, f"Odd,food,,,,,,,{hostile},0"]))
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    titles = [card["title"] for card in loaded.pack.cards]
    assert "Extra" not in titles and len(titles) == 5
    odd = next(card for card in loaded.pack.cards if card["title"] == "Odd")
    assert odd["rules"][0]["text"] == '"} item "Extra" { type food }\n#'


def test_a_bad_value_is_reported_at_its_cell_in_every_format(sheet_pack: SheetPack) -> None:
    folder = sheet_pack([*ROWS, "Mallet,weapon,2,1,strength,+1,lots,,x,1"])
    code, text = run("check", str(folder))
    assert code == 1
    assert "items.csv:5:7: error[E0201]: expected a number from 1 to 10, found 'lots'" in text
    assert "the cell of column 'damage', filling the template at" in text
    code, github = run("check", "--format", "github", str(folder))
    assert code == 1
    assert "::error file=" in github and "items.csv,line=5,col=7," in github
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1
    (found,) = json.loads(output)["diagnostics"]
    assert (found["code"], Path(found["file"]).name, found["line"], found["column"]) == (
        "E0201",
        "items.csv",
        5,
        7,
    )


def test_checking_the_sheet_alone(sheet_pack: SheetPack) -> None:
    folder = sheet_pack([*ROWS, "Mallet,weapon,2,1,strength,+1,lots,,x,1"])
    (folder / "cards" / "rooms.card").write_text('room "Linen" { number 99 }\n')
    report = check_paths([folder / "items.csv"])
    assert [(d.code, Path(d.span.file).name) for d in report.diagnostics] == [
        ("E0201", "items.csv")
    ]
    assert [Path(f.file).name for p in report.packs for f in p.files] == ["items.csv"]


def test_a_template_mistake_is_reported_once_at_the_template(sheet_pack: SheetPack) -> None:
    template = TEMPLATE.replace("    rule", "    when drawn { gian terror 1 }\n    rule")
    assert diagnostics(sheet_pack(template=template)) == [("E0200", "item-row.card", 10, 18)]


def test_a_column_the_sheet_lacks(sheet_pack: SheetPack) -> None:
    template = TEMPLATE.replace("    rule", "    charges {uses}\n    rule")
    assert diagnostics(sheet_pack(template=template)) == [("E0252", "item-row.card", 10, 13)]


def test_sheet_shape_problems(sheet_pack: SheetPack) -> None:
    folder = sheet_pack([*ROWS, "Sock,clothing,,,,,,1,x,0,surplus"])
    assert diagnostics(folder) == [("E0256", "items.csv", 5, 11)]
    (folder / "items.csv").write_text(HEADER + ",title\n" + ROWS[0] + "\n")
    assert diagnostics(folder) == [("E0254", "items.csv", 1, 11)]
    (folder / "items.csv").write_text(HEADER + ",weight\n")
    assert diagnostics(folder) == [("W0251", "items.csv", 1, 1), ("W0250", "items.csv", 1, 11)]
    (folder / "items.csv").unlink()
    assert diagnostics(folder) == [("E0250", "pack.yaml", 6, 5)]


def test_an_empty_cell_on_a_block_line_is_an_error(sheet_pack: SheetPack) -> None:
    block = "    while carried { dexterity {attack}\n    }"
    template = TEMPLATE.replace("    rule", block + "\n    rule")
    assert diagnostics(sheet_pack(template=template)) == [("E0253", "items.csv", 4, 6)]


def test_a_sheet_outside_the_pack_is_refused(sheet_pack: SheetPack, tmp_path: Path) -> None:
    outside = tmp_path / "outside.csv"
    outside.write_text(HEADER + "\n")
    folder = sheet_pack(file="link.csv")
    (folder / "link.csv").unlink()
    os.symlink(outside, folder / "link.csv")
    assert diagnostics(folder) == [("E0250", "pack.yaml", 6, 5)]
    (folder / "link.csv").unlink()
    os.symlink(folder / "link.csv", folder / "link.csv")  # a link to itself: resolving loops
    assert diagnostics(folder) == [("E0250", "pack.yaml", 6, 5)]


def test_a_changed_sheet_is_checked_again(sheet_pack: SheetPack) -> None:
    folder = sheet_pack()
    assert check_paths([folder]).errors == 0
    (folder / "items.csv").write_text(HEADER + "\nBone Saw,weapon,lots,1,strength,+1,2,,x,1\n")
    assert diagnostics(folder) == [("E0201", "items.csv", 2, 3)]


def test_a_workbook_points_at_its_cell_and_names_its_sheet(sheet_pack: SheetPack) -> None:
    import openpyxl  # type: ignore[import-untyped]

    folder = sheet_pack(file="items.xlsx", extra=", sheet: Armoury")
    book = openpyxl.Workbook()
    book.active.title = "Notes"
    sheet = book.create_sheet("Armoury")
    sheet.append(HEADER.split(","))
    sheet.append(["Bone Saw", "weapon", 2, 1, "strength", "+1", 2.0, None, "It hums.", 1])
    sheet.append(["Mallet", "weapon", 2, 1, "strength", "+1", "lots", None, "x", 1])
    book.save(folder / "items.xlsx")
    report = check_paths([folder])
    (found,) = report.diagnostics
    assert (found.code, Path(found.span.file).name, found.span.line, found.span.column) == (
        "E0201",
        "items.xlsx",
        3,
        7,
    )
    assert "(sheet 'Armoury')" in found.message
    sheet.delete_rows(3)
    book.save(folder / "items.xlsx")
    loaded = load_checked(folder)
    assert loaded.pack is not None
    saw = next(card for card in loaded.pack.cards if card["title"] == "Bone Saw")
    assert saw["properties"]["damage"] == 2  # 2.0 in the workbook reads as 2
    (folder / "pack.yaml").write_text(MANIFEST % ("items.xlsx", ", sheet: Nope"))
    assert diagnostics(folder) == [("E0250", "pack.yaml", 6, 5)]


def test_a_huge_sheet_is_refused(sheet_pack: SheetPack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_SHEET_ROWS", 3)
    assert diagnostics(sheet_pack()) == [("E0251", "items.csv", 1, 1)]
    (Path(sheet_pack()) / "items.xlsx").write_bytes(b"not a zip")
    folder = sheet_pack(file="items.xlsx")
    assert diagnostics(folder) == [("E0250", "items.xlsx", 1, 1)]


ROUND_TRIP = """\
{kind} "{title}" {
    type {type}
    copies {copies}
    hands {hands}
    attacks with {attacks_with}
    attack +{attack}
    damage {damage}
    protects {protects}
}
"""


def test_export_reads_back_as_the_same_cards(sheet_pack: SheetPack, tmp_path: Path) -> None:
    folder = sheet_pack()
    (folder / "cards" / "rooms.card").unlink()
    code, output = run(
        "export", str(folder), "--csv", "--kind", "item", "-o", str(tmp_path / "x.csv")
    )
    assert code == 0, output
    before = load_checked(folder).pack
    assert before is not None
    (folder / "items.csv").write_text((tmp_path / "x.csv").read_text())
    (folder / "cards" / "item-row.card").write_text(ROUND_TRIP)
    after = load_checked(folder).pack
    assert after is not None, load_checked(folder).diagnostics
    assert [(c["kind"], c["title"], c["properties"]) for c in after.cards] == [
        (c["kind"], c["title"], c["properties"]) for c in before.cards
    ]


def test_export_guards_against_formulas() -> None:
    from compiler.formats.export import sheet_text

    card = {"kind": "item", "title": "=HYPERLINK(1)", "properties": {"attack": "-2", "note": "-x"}}
    assert sheet_text([card]).splitlines()[1] == "item,'=HYPERLINK(1),-2,'-x"


def test_export_to_standard_output_is_data_not_terminal_text(tmp_path: Path) -> None:
    # `export --csv > s.csv` showed a form feed as ␌ and escaped NEL and a bidi override, so
    # the file did not read back; with -o it did. Redirected, standard output is data.
    title = "a\u000cb \u0085c \u202ed"
    card = f'item "{title}" {{\n    type food\n}}\n'
    folder = make_pack(tmp_path / "odd", cards=card)
    code, output = run("export", str(folder), "--csv")
    assert code == 0, output
    assert title in output
    code, written = run("export", str(folder), "--csv", "-o", str(tmp_path / "x.csv"))
    assert code == 0, written
    assert output == (tmp_path / "x.csv").read_text(encoding="utf-8")


def _workbook_with_a_comment(path: Path, megabytes: int) -> None:
    """A workbook of items whose worksheet part holds an XML comment of that size."""
    import zipfile

    import openpyxl

    plain = path.with_suffix(".plain.xlsx")
    book = openpyxl.Workbook()
    book.active.append(HEADER.split(","))
    book.active.append(["Bone Saw", "weapon", 2, 1, "strength", "+1", 2, None, "It hums.", 1])
    book.save(plain)
    comment = b"<!--" + b"x" * (megabytes * 1_000_000) + b"-->"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<sheetData>", comment + b"<sheetData>")
            out.writestr(info, data)
    plain.unlink()


def test_a_workbook_with_a_huge_comment_is_refused_before_it_is_parsed(
    sheet_pack: SheetPack,
) -> None:
    # 49 KB on disk and a 49 MB comment inside: the XML parser took 149 s (square of the
    # comment) before "0 errors". A part holding a comment is refused unread.
    folder = sheet_pack(file="items.xlsx")
    _workbook_with_a_comment(folder / "items.xlsx", 3)
    report = check_paths([folder])
    (found,) = report.diagnostics
    assert (found.code, Path(found.span.file).name) == ("E0251", "items.xlsx")
    assert "xl/worksheets/sheet1.xml holds an XML comment" in found.message


def test_a_workbook_named_twice_is_told_before_it_is_read_again(
    sheet_pack: SheetPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = sheet_pack()
    manifest = folder / "pack.yaml"
    manifest.write_text(manifest.read_text() + "  - {file: items.csv, card: cards/item-row.card}\n")
    read: list[str] = []
    real = sheets.read_table

    def counted(path: Path, *rest: Any) -> Any:
        read.append(path.name)
        return real(path, *rest)

    monkeypatch.setattr(sheets, "read_table", counted)
    assert diagnostics(folder) == [("E0250", "pack.yaml", 7, 5)]
    assert read == ["items.csv"]


def test_a_process_that_checks_again_reads_an_unchanged_sheet_once(
    sheet_pack: SheetPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # serve and the language server check the pack at every save: a workbook that takes
    # seconds to read was read again each time.
    folder = sheet_pack()
    read: list[str] = []
    real = sheets._csv_rows

    def counted(path: Path, *rest: Any) -> Any:
        read.append(path.name)
        return real(path, *rest)

    monkeypatch.setattr(sheets, "_csv_rows", counted)
    was = keeping()
    keep_in_this_process(False)  # nothing kept before: the sheet is read here
    keep_in_this_process()
    try:
        first = diagnostics(folder)
        assert diagnostics(folder) == first and read == ["items.csv"]
        sheet = folder / "items.csv"
        sheet.write_text(sheet.read_text() + ROWS[0].replace("Bone Saw", "Bone Saw Two") + "\n")
        diagnostics(folder)
        assert read == ["items.csv", "items.csv"]  # changed: read again
    finally:
        keep_in_this_process(False)
        keep_in_this_process(was)
