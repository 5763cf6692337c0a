"""Source positions and the plain-data diagnostic that every stage reports through.

The diagnostic type lives in the lowest layer because every stage, the parser included,
produces diagnostics; how they are rendered is the compiler's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

Severity = Literal["error", "warning"]


class Span(NamedTuple):
    """A region of a source file: 1-based line and column, end column exclusive.

    A named tuple rather than a dataclass: the parser makes one for every token, and tuples
    are built several times faster.
    """

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def to(self, other: Span) -> Span:
        """Return the span from the start of this one to the end of `other`."""
        return Span(self.file, self.line, self.column, other.end_line, other.end_column)

    def as_list(self) -> list[int]:
        """Return [line, column, end_line, end_column], the form the IR stores."""
        return [self.line, self.column, self.end_line, self.end_column]

    @classmethod
    def from_list(cls, file: str, at: list[int]) -> Span:
        """Rebuild a span from the IR's [line, column, end_line, end_column]."""
        line, column, end_line, end_column = at
        return cls(file, line, column, end_line, end_column)

    @classmethod
    def at_offset(cls, file: str, text: str, index: int) -> Span:
        """The one-character span at a character offset of a text."""
        line = text.count("\n", 0, index) + 1
        column = index - (text.rfind("\n", 0, index) + 1) + 1
        return cls(file, line, column, line, column + 1)

    @classmethod
    def whole_file(cls, file: str) -> Span:
        """Return a span pointing at the first character of a file."""
        return cls(file, 1, 1, 1, 1)


def span_text(lines: Sequence[str], at: Sequence[int]) -> str:
    """The words of a file's lines at a span in the IR's list form (its first line only)."""
    line, column, end_line, end_column = at
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1].rstrip("\r\n")
    return source[column - 1 : end_column - 1 if end_line == line else None].strip()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: what went wrong, where, and how to fix it. Rendered late."""

    code: str
    severity: Severity
    message: str
    span: Span
    help: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def is_error(self) -> bool:
        """True for errors, false for warnings."""
        return self.severity == "error"

    def sort_key(self) -> tuple[str, int, int, str]:
        """Order diagnostics by file and position, then code."""
        return (self.span.file, self.span.line, self.span.column, self.code)

    def to_json(self) -> dict[str, object]:
        """Return the JSON shape that `pillbox check --format json` promises."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
            "notes": list(self.notes),
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Diagnostic:
        """Rebuild a diagnostic from `to_json` output (the check cache stores them so)."""
        span = Span(
            str(data["file"]),
            int(str(data["line"])),
            int(str(data["column"])),
            int(str(data["end_line"])),
            int(str(data["end_column"])),
        )
        help_text = data.get("help")
        notes = data.get("notes") or []
        assert isinstance(notes, list)
        severity: Severity = "warning" if data["severity"] == "warning" else "error"
        return cls(
            code=str(data["code"]),
            severity=severity,
            message=str(data["message"]),
            span=span,
            help=None if help_text is None else str(help_text),
            notes=tuple(str(n) for n in notes),
        )
