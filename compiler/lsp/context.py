"""Where in a card file a cursor stands: which card kind, how deep, what the line has so far.

Read from the layout's tokens, so strings and comments never count as braces, and text that
does not parse yet (as it is while typing) still has a place.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl.layout import tokens


@dataclass(frozen=True)
class Place:
    """The blocks open at a cursor (each by the words before its `{`), and the words of the
    statement the cursor is in, up to the cursor."""

    headers: tuple[tuple[str, ...], ...]
    words: tuple[str, ...]
    typing: bool  # the cursor is at the end of the last word, not after a space

    @property
    def kind(self) -> str | None:
        """The kind of the card the cursor is in (the first word of its header)."""
        return self.headers[0][0] if self.headers and self.headers[0] else None

    @property
    def in_test(self) -> bool:
        """Whether the cursor is in the steps of a card's test."""
        return any(header[:1] == ("test",) for header in self.headers)

    @property
    def at_start(self) -> bool:
        """Whether the cursor is where a statement's first word goes."""
        return not self.words or (len(self.words) == 1 and self.typing)


def place_at(text: str, offset: int) -> Place:
    """The place of a character offset in a text."""
    before = text[:offset]
    headers: list[tuple[str, ...]] = []
    words: list[str] = []
    for token in tokens(before):
        if token.kind == "open":
            headers.append(tuple(words))
            words = []
        elif token.kind == "close":
            headers = headers[:-1]
            words = []
        elif token.kind in ("newline", "semi"):
            words = []
        elif token.kind != "comment":
            words.append(token.text)
    typing = bool(words) and not before[-1:].isspace()
    return Place(tuple(headers), tuple(words), typing)
