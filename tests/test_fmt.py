"""`pillbox fmt`: one canonical layout, proved safe on every card file there is."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

import compiler.fmt as fmt_module
from compiler.fmt import formatted
from dsl.layout import layout
from tests.conftest import ROOT, TESTS
from tests.helpers import run

FIXTURES = TESTS / "golden" / "fmt"


def _every_card_file() -> list[Path]:
    roots = [ROOT / "content", TESTS / "specimens", TESTS / "fuzz_corpus", FIXTURES]
    return sorted(p for root in roots for p in root.rglob("*.card"))


@pytest.mark.parametrize(
    "name", sorted(p.name[: -len(".in.card")] for p in FIXTURES.glob("*.in.card"))
)
def test_a_messy_file_takes_the_canonical_layout(name: str) -> None:
    written = (FIXTURES / f"{name}.in.card").read_text()
    expected = (FIXTURES / f"{name}.out.card").read_text()
    result, problems = formatted(written, f"{name}.card")
    assert not problems and result == expected


def test_every_card_file_formats_safely_and_stably_or_is_declined_for_its_syntax() -> None:
    # The safety checks (same cards, stable, every comment kept) raise if they ever fail.
    declined = []
    for path in _every_card_file():
        text = path.read_bytes().decode("utf-8", "replace")
        result, problems = formatted(text, path.name)
        if result is None:
            assert problems and all(d.code.startswith("E01") for d in problems), path
            declined.append(path.name)
        else:
            assert layout(result) == result, path
    assert "unclosed.card" in declined and "layout.in.card" not in declined


def test_the_bundled_packs_and_specimens_are_kept_formatted() -> None:
    code, output = run(
        "fmt", "--check", str(ROOT / "content"), str(TESTS / "specimens" / "coma-ward")
    )
    assert code == 0, output
    assert output.rstrip().startswith("0 files would be reformatted, ")


def test_check_diff_and_writing_with_black_s_exit_codes(tmp_path: Path) -> None:
    card = tmp_path / "a.card"
    card.write_text((FIXTURES / "layout.in.card").read_text())
    code, output = run("fmt", "--check", "--diff", str(card))
    assert (
        code == 1 and "would reformat" in output and "+++ " in output and "-hallucination" in output
    )
    assert card.read_text() == (FIXTURES / "layout.in.card").read_text()  # --check writes nothing
    code, output = run("fmt", str(card))
    assert code == 0 and "reformatted" in output
    assert card.read_text() == (FIXTURES / "layout.out.card").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.card"]  # no temporary file left
    code, output = run("fmt", "--check", str(card))
    assert code == 0 and "0 files would be reformatted, 1 left unchanged" in output
    broken = tmp_path / "b.card"
    broken.write_text('item "Open" {\n    type food\n')
    code, output = run("fmt", str(broken))
    assert code == 1 and "b.card:1:1: cannot format" in output
    assert broken.read_text() == 'item "Open" {\n    type food\n'
    code, output = run("fmt", str(tmp_path / "missing.card"))
    assert code == 2 and "no such file or folder" in output


def test_a_second_comment_joined_to_a_line_by_a_semicolon_keeps_a_line_of_its_own() -> None:
    """`} # a` then `;# b`: the `;` joins the second comment to the first's line, and a line
    keeps one trailing comment (the fuzzer found the second one lost: an UnsafeFormat)."""
    text = 'record "Lost" {\n choose {\n rule "x"\n } # a\n;# b\n say "y"\n}\n'
    result, problems = formatted(text, "f.card")
    assert problems == []
    assert (
        result
        == 'record "Lost" {\n    choose {\n        rule "x"\n    }  # a\n    # b\n    say "y"\n}\n'
    )


def test_an_edit_saved_while_fmt_runs_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An editor appended a card while fmt formatted a large file: fmt's write lost it. Now the
    # file is replaced only if it still holds what fmt read.
    card = tmp_path / "a.card"
    card.write_text((FIXTURES / "layout.in.card").read_text())
    appended = '\nitem "Saved Meanwhile" {\n    type food\n}\n'
    real = fmt_module.formatted

    def format_while_an_editor_saves(text: str, shown: str) -> Any:
        with card.open("a") as editor:
            editor.write(appended)
        return real(text, shown)

    monkeypatch.setattr(fmt_module, "formatted", format_while_an_editor_saves)
    code, output = run("fmt", str(card))
    assert code == 1 and "changed while it was formatted" in output
    assert card.read_text() == (FIXTURES / "layout.in.card").read_text() + appended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.card"]


def test_fmt_keeps_a_link_a_link_and_a_file_s_mode(tmp_path: Path) -> None:
    target = tmp_path / "shared" / "cards.card"
    target.parent.mkdir()
    target.write_text((FIXTURES / "layout.in.card").read_text())
    target.chmod(0o600)
    pack = tmp_path / "pack"
    pack.mkdir()
    link = pack / "cards.card"
    link.symlink_to(target)
    code, output = run("fmt", str(pack), str(target))
    assert code == 0, output
    assert output.count("reformatted ") == 1  # the link and its file are one file
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text() == (FIXTURES / "layout.out.card").read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
