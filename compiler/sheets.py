"""Cards filled from a spreadsheet: a CSV or `.xlsx` sheet, and a card written once as a template.

A `pack.yaml` entry `sheets: [{file: items.csv, card: cards/item-row.card}]` names the sheet and
its template. The template is card text with `{column}` placeholders; each row of the sheet
fills it, and the cards made so go through the normal parse, lower and passes. A cell's value
is put in as one token, never as source text: inside a quoted string it is escaped, anywhere
else it must be numbers and plain words, so no cell can start a statement or close a block.

Positions: the generated text is parsed as it is, then every span is mapped back. A problem
on a line's cell points at the sheet's row and column (`items.csv:14:3`), one in the template's
own words at the template (once, however many rows repeat it), and the cards' IR (test failures,
report links) at the row of the sheet.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from compiler.kept import Kept, keeping
from compiler.lower import IRT
from compiler.pack import (
    Pack,
    SheetEntry,
    display_path,
    hard_link_refused,
    hard_linked,
    read_card_file,
    resolved,
)
from compiler.pipeline import FileResult
from dsl.parser import CONDITION_KEYWORDS, STATEMENT_KEYWORDS
from dsl.spans import Diagnostic, Span, span_text

MAX_SHEET_ROWS = 5_000
"""Rows a sheet may hold, its header included."""

MAX_SHEET_COLUMNS = 200
"""Columns a sheet may hold."""

MAX_SHEET_BYTES = 5_000_000
"""Bytes a CSV file, or a workbook on disk, may hold."""

MAX_WORKBOOK_PART = 10_000_000
"""The most one XML part of a workbook may unpack to (a sheet of 5,000 rows of 200 short cells
is a few megabytes)."""

MAX_WORKBOOK_UNPACKED = 50_000_000
"""Bytes the parts of an `.xlsx` workbook (a zip archive) may unpack to."""

RESERVED = STATEMENT_KEYWORDS | CONDITION_KEYWORDS
"""Words a cell may not put outside quotes: each would change the structure around it (the
words of tests and variants are not: `use` stands inside phrases such as "spend a use")."""

_PLACEHOLDER = re.compile(r"\{([^\W\d][\w.-]*(?: [\w.-]+)*)\}")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_ATOM = re.compile(r"[+-]?\d+(?:\.\.\d+|\+)?|\d*d\d+|[^\W\d][\w'-]*")
_SHEET_HELP = "a sheet is a CSV or .xlsx file inside the pack, its first row the column names"


@dataclass(frozen=True)
class Table:
    """A sheet read as text: the column names, then each row by its 1-based row number."""

    shown: str
    sheet_name: str | None  # the worksheet of a workbook; None for CSV
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]

    def cell_span(self, row: int, column: int) -> Span:
        """The position of one cell: line is the row, column the column, both 1-based."""
        return Span(self.shown, row, column, row, column + 1)

    def where(self) -> str:
        """How a message names the sheet: the worksheet's name too, for a workbook."""
        return "" if self.sheet_name is None else f" (sheet {self.sheet_name!r})"


@dataclass(frozen=True)
class _Placeholder:
    """A `{column}` of the template: where it is, and whether it stands inside quotes."""

    name: str
    column: int  # 1-based, in the template line
    width: int
    quoted: bool


_Piece = str | _Placeholder


@dataclass(frozen=True)
class _Segment:
    """A stretch of one generated line: template text from `template_column`, or a cell."""

    start: int  # 1-based column of the generated line
    end: int  # exclusive
    template_column: int
    cell: int | None = None  # the sheet column, when the stretch is a cell's value


@dataclass(frozen=True)
class _Line:
    """Where one generated line comes from: a row of the sheet and a line of the template."""

    row: int
    template_line: int
    segments: tuple[_Segment, ...]


@dataclass
class Expansion:
    """The cards of one sheet as card text, with the way back from its positions."""

    table: Table
    template: str  # the template, as diagnostics name it
    text: str = ""
    lines: list[_Line] = field(default_factory=list)

    @property
    def shown(self) -> str:
        """The sheet, as diagnostics name it."""
        return self.table.shown

    def fingerprint(self) -> str:
        """A digest of the text and every mapping: the check cache's key for the sheet."""
        digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass"))
        digest.update(self.template.encode("utf-8", "surrogatepass"))
        for part in (self.table.header, self.table.sheet_name, self.lines):
            digest.update(repr(part).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _line(self, number: int) -> _Line:
        """The generated line `number` (1-based), the nearest one for blank separators."""
        if not self.lines:
            return _Line(1, 1, ())
        return self.lines[min(max(number, 1), len(self.lines)) - 1]

    def _cell_of(self, span: Span) -> tuple[_Line, _Segment] | None:
        """The first cell a one-line span overlaps, if any."""
        if span.line != span.end_line:
            return None
        line = self._line(span.line)
        for segment in line.segments:
            inside = span.column < segment.end or span.column == span.end_column == segment.start
            if segment.cell is not None and segment.start < span.end_column and inside:
                return line, segment
        return None

    def _template_point(self, line_number: int, column: int) -> tuple[int, int]:
        """A generated position, as a line and column of the template."""
        line = self._line(line_number)
        for segment in line.segments:
            if column < segment.end or segment is line.segments[-1]:
                if segment.cell is not None:
                    return line.template_line, segment.template_column
                return line.template_line, segment.template_column + column - segment.start
        return line.template_line, column

    def diagnostic(self, diagnostic: Diagnostic) -> Diagnostic:
        """A diagnostic of the generated text, moved to the cell or template text it is about."""
        span = diagnostic.span
        found = self._cell_of(span)
        if found is not None:
            line, segment = found
            assert segment.cell is not None
            name = self.table.header[segment.cell - 1]
            note = (
                f"the cell of column {name!r}, filling the template at "
                f"{self.template}:{line.template_line}:{segment.template_column}"
            )
            return replace(
                diagnostic,
                message=diagnostic.message + self.table.where(),
                span=self.table.cell_span(line.row, segment.cell),
                notes=(*diagnostic.notes, note),
            )
        start = self._template_point(span.line, span.column)
        end = self._template_point(span.end_line, span.end_column)
        if end < start:
            end = (start[0], start[1] + 1)
        return replace(diagnostic, span=Span(self.template, *start, *end))

    def ir_at(self, at: list[int]) -> list[int]:
        """An IR span of the generated text, at the row of the sheet (and the cell, if one)."""
        span = Span(self.shown, *at)
        found = self._cell_of(span)
        if found is not None:
            line, segment = found
            assert segment.cell is not None
            return [line.row, segment.cell, line.row, segment.cell + 1]
        row = self._line(span.line).row
        return [row, 1, row, 2]

    def remap(self, result: FileResult[IRT]) -> FileResult[IRT]:
        """The result of checking the generated text, with every position mapped back; a
        problem of the template's own text is reported once, however many rows repeat it."""
        lines = self.text.split("\n")
        cards = [replace(card, ir=self._card(card.ir, lines)) for card in result.cards]
        moved: dict[tuple[str, Span], Diagnostic] = {}
        for diagnostic in result.diagnostics:
            mapped = self.diagnostic(diagnostic)
            moved.setdefault((mapped.code, mapped.span), mapped)
        return FileResult(cards, list(moved.values()))

    def _card(self, card: IRT, lines: list[str]) -> IRT:
        """A card's IR mapped back; its test steps keep their words, which test failures
        quote and the sheet's position no longer finds. (`_ir` copies any tree, so what
        it returns is only known to have the shape it was given.)"""
        mapped: IRT = self._ir(card)
        for test, moved in zip(card.get("tests", []), mapped.get("tests", []), strict=True):
            for step, moved_step in zip(test["steps"], moved["steps"], strict=True):
                moved_step["text"] = span_text(lines, step["at"])
        return mapped

    def _ir(self, node: Any, key: str = "") -> Any:
        """The IR with every `at` mapped back (a new structure, the old kept)."""
        if isinstance(node, dict):
            spans = key.endswith("_at")  # `property_at`: a span for each property
            return {k: self._ir(v, key if spans else k) for k, v in node.items()}
        if isinstance(node, list):
            if (key == "at" or key.endswith("_at")) and _is_span(node):
                return self.ir_at(node)
            return [self._ir(item, key) for item in node]
        return node


def _is_span(node: list[Any]) -> bool:
    return len(node) == 4 and all(type(part) is int for part in node)


def read_entries(pack: Pack, problems: list[Diagnostic]) -> list[SheetEntry]:
    """The pack's `sheets:` entries whose files lie inside the pack folder."""
    entries = []
    for entry in pack.sheets:
        refused = False
        for relative in (entry.file, entry.card):
            found, root = resolved(pack.root / relative), resolved(pack.root)
            if found is None or root is None or not found.is_relative_to(root):
                problems.append(
                    _error(
                        "E0250",
                        f"{relative} lies outside the pack folder; it is not read",
                        entry.span,
                        "keep sheets and their templates inside the pack folder",
                    )
                )
                refused = True
        if not refused:
            entries.append(entry)
    return entries


def expand_sheets(
    pack: Pack, problems: list[Diagnostic], sources: dict[str, str]
) -> dict[str, Expansion]:
    """Each sheet of the pack filled into its template, by the sheet's shown path; problems
    of the sheets' cells are added to `problems`, templates' texts to `sources`."""
    expansions: dict[str, Expansion] = {}
    asked: set[tuple[Path | None, str | None]] = set()
    for entry in read_entries(pack, problems):
        template_path = pack.root / entry.card
        template_text, problem = read_card_file(template_path)
        if template_text is None:
            assert problem is not None
            problems.append(problem)
            continue
        template_shown = display_path(template_path)
        sources[template_shown] = template_text
        named = (resolved(pack.root / entry.file), entry.sheet)
        if named in asked:  # told before it is read: a workbook may take seconds to read
            problems.append(_named_twice(entry))
            continue
        asked.add(named)
        table = read_table(pack.root / entry.file, entry, problems)
        if table is None:
            continue
        if table.shown in expansions:
            problems.append(_named_twice(entry))
            continue
        expansion = expand(table, template_shown, template_text, problems)
        if expansion is not None and expansion.lines:  # a sheet of no rows holds no cards
            expansions[table.shown] = expansion
    return expansions


def _named_twice(entry: SheetEntry) -> Diagnostic:
    return _error(
        "E0250",
        f"the sheet {entry.file} is named twice",
        entry.span,
        "give each sheet one entry; a template may hold several cards",
    )


_tables: Kept[tuple[Table | None, tuple[Diagnostic, ...]]] = Kept(32)
"""Each sheet read, with the problems found reading it, by its file's version and its entry:
`serve` and the language server check the pack at every save, and a workbook takes long."""


def read_table(path: Path, entry: SheetEntry, problems: list[Diagnostic]) -> Table | None:
    """Read a CSV or `.xlsx` sheet as text, refusing links out, huge sheets and bad files;
    where the process keeps results, a sheet unchanged since it was read is not read again."""
    if not keeping():
        return _read_table(path, entry, problems)
    try:
        status = path.stat()
    except OSError:
        return _read_table(path, entry, problems)
    key = (str(path.resolve()), status.st_mtime_ns, status.st_size, status.st_ino, entry)
    found = _tables.get(key)
    if found is None:
        met: list[Diagnostic] = []
        found = (_read_table(path, entry, met), tuple(met))
        _tables.put(key, found)
    problems.extend(found[1])
    return found[0]


def _read_table(path: Path, entry: SheetEntry, problems: list[Diagnostic]) -> Table | None:
    shown = display_path(path)
    whole = Span.whole_file(shown)
    try:
        if not path.is_file():
            problems.append(
                _error("E0250", f"the sheet {entry.file} is not there", entry.span, _SHEET_HELP)
            )
            return None
        if hard_linked(path):
            problems.append(hard_link_refused(shown))
            return None
        if path.stat().st_size > MAX_SHEET_BYTES:
            problems.append(
                _error(
                    "E0251",
                    f"this sheet is larger than {MAX_SHEET_BYTES // 1_000_000} MB",
                    whole,
                    "split it into several sheets",
                )
            )
            return None
    except OSError as error:
        problems.append(_error("E0250", f"cannot read this sheet: {error.strerror}", whole))
        return None
    name = None
    if path.suffix.lower() == ".xlsx":
        read = _workbook_rows(path, shown, entry, problems)
        if read is None:
            return None
        cells, name = read
    else:
        csv_cells = _csv_rows(path, problems)
        if csv_cells is None:
            return None
        cells = csv_cells
    return _table(shown, name, cells, problems)


def _csv_rows(path: Path, problems: list[Diagnostic]) -> list[list[str]] | None:
    """The records of a CSV file (UTF-8, any line endings), or None with the problem."""
    text, problem = read_card_file(path)
    if text is None:
        assert problem is not None
        problems.append(problem)
        return None
    # Spreadsheets save "CSV" with commas, or semicolons where the comma is a decimal point,
    # or tabs: the first row, the column names, says which.
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[list[str]] = []
    try:
        for record in reader:
            rows.append(record)
            if len(rows) > MAX_SHEET_ROWS:
                problems.append(_too_many(display_path(path), "rows", MAX_SHEET_ROWS))
                return None
    except csv.Error as error:
        line = reader.line_num or 1
        problems.append(
            _error(
                "E0250",
                f"this CSV cannot be read: {error}",
                Span(display_path(path), line, 1, line, 2),
                "quote cells that hold commas, quotes or line breaks",
            )
        )
        return None
    return rows


def _refused_part(path: Path) -> str | None:
    """What makes one of a workbook's XML parts unfit to read, said after its name, if
    anything: over MAX_WORKBOOK_PART, or holding a comment or a document type.

    The XML parser rescans a token that spans the chunks it is fed, so its time grows with the
    square of the longest: a workbook of 49 KB holding a 49 MB comment took 149 s. No
    spreadsheet program writes comments or document types into a workbook."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith((".xml", ".rels")):
                continue
            if info.file_size > MAX_WORKBOOK_PART:
                return f"{info.filename} unpacks to more than {MAX_WORKBOOK_PART // 10**6} MB"
            data = archive.read(info)
            if b"<!--" in data or b"<!DOCTYPE" in data or b"<!ENTITY" in data:
                return f"{info.filename} holds an XML comment or document type"
    return None


def _workbook_rows(
    path: Path, shown: str, entry: SheetEntry, problems: list[Diagnostic]
) -> tuple[list[list[str]], str] | None:
    """The rows of a workbook's sheet as text, and the worksheet's name."""
    whole = Span.whole_file(shown)
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (OSError, zipfile.BadZipFile, ValueError) as error:
        problems.append(_error("E0250", f"this workbook cannot be read: {error}", whole))
        return None
    if unpacked <= MAX_WORKBOOK_UNPACKED:
        try:
            refused = _refused_part(path)
        except (OSError, zipfile.BadZipFile, ValueError, zlib.error) as error:
            problems.append(_error("E0250", f"this workbook cannot be read: {error}", whole))
            return None
        if refused is not None:
            problems.append(
                _error(
                    "E0251",
                    f"this workbook's part {refused}",
                    whole,
                    "save the sheet again from a spreadsheet program, or save it as CSV",
                )
            )
            return None
    if unpacked > MAX_WORKBOOK_UNPACKED:
        problems.append(
            _error(
                "E0251",
                f"this workbook unpacks to more than {MAX_WORKBOOK_UNPACKED // 1_000_000} MB",
                whole,
                "keep only the sheet of the cards in it, or save it as CSV",
            )
        )
        return None
    import openpyxl  # type: ignore[import-untyped]

    try:
        # A workbook is untrusted: openpyxl raises many kinds of error on a broken one.
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:
        problems.append(_error("E0250", f"this workbook cannot be read: {error}", whole))
        return None
    try:
        if entry.sheet is not None and entry.sheet not in book.sheetnames:
            problems.append(
                _error(
                    "E0250",
                    f"the workbook {entry.file} has no sheet {entry.sheet!r}; it has "
                    + ", ".join(repr(name) for name in book.sheetnames),
                    entry.span,
                )
            )
            return None
        sheet = book[entry.sheet] if entry.sheet is not None else book.worksheets[0]
        rows: list[list[str]] = []
        try:
            for values in sheet.iter_rows(
                max_row=MAX_SHEET_ROWS + 1, max_col=MAX_SHEET_COLUMNS + 1, values_only=True
            ):
                rows.append([_cell_text(value) for value in values])
        except Exception as error:
            problems.append(_error("E0250", f"this workbook cannot be read: {error}", whole))
            return None
        if len(rows) > MAX_SHEET_ROWS:
            problems.append(_too_many(shown, "rows", MAX_SHEET_ROWS, sheet.title))
            return None
        return rows, str(sheet.title)
    finally:
        book.close()


def _cell_text(value: object) -> str:
    """A workbook cell as the text a CSV would hold: 3.0 is 3, nothing is empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _too_many(shown: str, what: str, limit: int, sheet: str | None = None) -> Diagnostic:
    where = "" if sheet is None else f" (sheet {sheet!r})"
    return _error(
        "E0251",
        f"this sheet has more than {limit:,} {what}{where}",
        Span.whole_file(shown),
        "split it into several sheets",
    )


def _table(
    shown: str, name: str | None, cells: list[list[str]], problems: list[Diagnostic]
) -> Table | None:
    """The rows as a table: trailing empty cells dropped, blank rows skipped, header checked."""
    rows = [[cell.replace("\r\n", "\n").replace("\r", "\n") for cell in row] for row in cells]
    for row in rows:
        while row and not row[-1].strip():
            row.pop()
    if not rows or not rows[0]:
        problems.append(
            _error(
                "E0254", "this sheet has no column names in its first row", Span.whole_file(shown)
            )
        )
        return None
    table = Table(shown, name, tuple(cell.strip() for cell in rows[0]), ())
    widest = max(len(row) for row in rows)
    if widest > MAX_SHEET_COLUMNS:
        problems.append(_too_many(shown, "columns", MAX_SHEET_COLUMNS, name))
        return None
    seen: set[str] = set()
    for column, header in enumerate(table.header, start=1):
        if not header or header in seen:
            problems.append(
                _error(
                    "E0254",
                    f"column {column} has {'no name' if not header else 'a name used before'}"
                    + table.where(),
                    table.cell_span(1, column),
                    "give each column of the first row a name of its own",
                )
            )
            return None
        seen.add(header)
    body = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(table.header):
            problems.append(
                _error(
                    "E0256",
                    f"row {number} has a value past the last named column" + table.where(),
                    table.cell_span(number, len(table.header) + 1),
                    "name the column in the first row, or remove the value",
                )
            )
            continue
        body.append((number, tuple(row)))
    return replace(table, rows=tuple(body))


def _pieces(line: str) -> Iterator[_Piece]:
    """A template line as text and placeholders; those in a comment are text."""
    at = 0
    while at < len(line):
        char = line[at]
        if char == "#":
            yield line[at:]
            return
        if char == '"':
            string = _STRING.match(line, at)
            end = string.end() if string else len(line)
            yield from _split(line, at, end, quoted=True)
            at = end
            continue
        stop = len(line)
        for marker in ('"', "#"):
            found = line.find(marker, at)
            if found >= 0:
                stop = min(stop, found)
        yield from _split(line, at, stop, quoted=False)
        at = stop


def _split(line: str, start: int, end: int, quoted: bool) -> Iterator[_Piece]:
    """Text and placeholders between two offsets of a line."""
    at = start
    for match in _PLACEHOLDER.finditer(line, start, end):
        if match.start() > at:
            yield line[at : match.start()]
        yield _Placeholder(match.group(1), match.start() + 1, len(match.group(0)), quoted)
        at = match.end()
    if end > at:
        yield line[at:end]


def expand(
    table: Table, template_shown: str, template: str, problems: list[Diagnostic]
) -> Expansion | None:
    """Fill the template once for each row of the table; None if it names a missing column."""
    expansion = Expansion(table, template_shown)
    lines = [list(_pieces(line)) for line in template.split("\n")]
    columns = {name: index for index, name in enumerate(table.header, start=1)}
    used = {p.name for line in lines for p in line if isinstance(p, _Placeholder)}
    for number, line in enumerate(lines, start=1):
        for piece in line:
            if isinstance(piece, _Placeholder) and piece.name not in columns:
                problems.append(
                    _error(
                        "E0252",
                        f"the sheet {table.shown} has no column {piece.name!r}",
                        Span(
                            template_shown, number, piece.column, number, piece.column + piece.width
                        ),
                        "its columns are " + ", ".join(repr(name) for name in table.header),
                    )
                )
    if any(p.name not in columns for line in lines for p in line if isinstance(p, _Placeholder)):
        return None
    for column, name in enumerate(table.header, start=1):
        if name not in used:
            problems.append(
                Diagnostic(
                    "W0250",
                    "warning",
                    f"the template {template_shown} uses no column {name!r}" + table.where(),
                    table.cell_span(1, column),
                    f"write {{{name}}} in the template where the value goes, or remove the column",
                )
            )
    if not table.rows:
        problems.append(
            Diagnostic(
                "W0251",
                "warning",
                "this sheet has column names but no rows" + table.where(),
                Span.whole_file(table.shown),
                "each row below the first makes a card",
            )
        )
    out: list[str] = []
    for row, cells in table.rows:
        filled = _fill_row(table, row, cells, lines, columns, problems)
        if filled is None:
            continue
        for text, mapping in filled:
            out.append(text)
            expansion.lines.append(mapping)
        out.append("")
        expansion.lines.append(_Line(row, len(lines), ()))
    expansion.text = "\n".join(out)
    return expansion


def _fill_row(
    table: Table,
    row: int,
    cells: tuple[str, ...],
    lines: list[list[_Piece]],
    columns: dict[str, int],
    problems: list[Diagnostic],
) -> list[tuple[str, _Line]] | None:
    """One row's card text, line by line with its mapping; None if a cell cannot be used."""
    filled: list[tuple[str, _Line]] = []
    broken = False
    for number, pieces in enumerate(lines, start=1):
        text = ""
        segments: list[_Segment] = []
        dropped = False
        template_column = 1
        for piece in pieces:
            start = len(text) + 1
            if isinstance(piece, str):
                text += piece
                segments.append(_Segment(start, len(text) + 1, template_column))
                template_column += len(piece)
                continue
            template_column += piece.width
            column = columns[piece.name]
            value = cells[column - 1] if column <= len(cells) else ""
            token = _token(value, piece.quoted)
            if token is None:
                if not value.strip() and not _structural(pieces):
                    dropped = True  # an empty cell leaves out the line it fills
                    break
                problems.append(_bad_cell(table, row, column, value, piece.quoted))
                broken = True
                continue
            text += token
            segments.append(_Segment(start, len(text) + 1, piece.column, column))
        if not dropped:
            filled.append((text, _Line(row, number, tuple(segments))))
    return None if broken else filled


def _structural(pieces: list[_Piece]) -> bool:
    """Whether a template line opens or closes a block, so it cannot be left out; a block
    opened and closed on the line (`use { gain health {heals} }`) goes with it."""
    line = "".join(p if isinstance(p, str) else "x" for p in pieces)
    code = _STRING.sub('""', line).split("#", 1)[0]
    return code.count("{") != code.count("}")


def _token(value: str, quoted: bool) -> str | None:
    """A cell's value as it goes into the card text, or None if it cannot stand there."""
    if quoted:
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return escaped.replace("\n", "\\n").replace("\t", "\\t")
    words = value.strip().split(" ")
    if not value.strip() or any(not _ATOM.fullmatch(word) or word in RESERVED for word in words):
        return None
    return " ".join(words)


def _bad_cell(table: Table, row: int, column: int, value: str, quoted: bool) -> Diagnostic:
    """The problem of a cell whose value cannot stand outside quotes in the template."""
    assert not quoted
    name = table.header[column - 1]
    shown = json.dumps(value, ensure_ascii=False)
    if not value.strip():
        message = f"the cell of column {name!r} is empty, and its line opens or closes a block"
    else:
        message = f"the cell of column {name!r} holds {shown}, which is not numbers and words"
    return _error(
        "E0253",
        message + table.where(),
        table.cell_span(row, column),
        "outside quotes a cell may hold numbers (3, +1, 2..4, 5+, d6) and plain words only; "
        'put "{' + name + '}" in quotes in the template for text',
    )


def _error(code: str, message: str, span: Span, help: str | None = None) -> Diagnostic:
    return Diagnostic(code, "error", message, span, help)


def remap_results(
    expansions: dict[str, Expansion], shown: list[str], results: list[FileResult[IRT]]
) -> list[FileResult[IRT]]:
    """Results of checking files, those of sheets mapped back to the sheets' positions."""
    return [
        expansions[name].remap(result) if name in expansions else result
        for name, result in zip(shown, results, strict=True)
    ]
