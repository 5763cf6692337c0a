"""The canonical layout of a card file, for `pillbox fmt`.

The text is cut into tokens (the grammar's own: strings, comments, braces, separators, and
the words between them), the tokens into a tree of statements and braced blocks, and the
tree is written out again: four spaces a level, one statement a line, one space between
words, a blank line between cards and at most one between statements where the designer left
one. A block the designer wrote on one line stays on one line (`option "Go" { end turn }`,
`test "t" { choose "Go"; expect health == 2 }`) while it is short. Comments are kept where
they were: a comment on a line of its own stays before the statement it preceded, a comment
after a statement stays at the end of that statement's line.

This stage only lays text out; `compiler/fmt.py` proves each result parses to the same cards,
keeps every comment and is stable, before anything is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

INDENT = "    "
MAX_INLINE = 100
"""The longest line a one-line block may make; a longer one is laid out a statement a line."""

_TOKEN = re.compile(
    r"(?P<lead>[ \t\f\r]*)(?:"
    r"""(?P<string>"(?:[^"\\\n]|\\.)*"?)"""
    r"|(?P<comment>\#[^\n]*)"
    r"|(?P<newline>\n)"
    r"|(?P<semi>;)"
    r"|(?P<open>\{)"
    r"|(?P<close>\})"
    r"|(?P<comma>,)"
    r"|(?P<cmp>==|!=|>=|<=|<|>)"
    r"|(?P<word>[^\s\"#;{},=!<>]+|[=!])"
    r"|(?P<end>$))"
)
"""A token and the spaces before it (a file's last spaces match with `end`)."""


@dataclass(slots=True)
class Token:
    """One token of a card file, the line it starts on, and the spaces before it."""

    kind: str
    text: str
    line: int
    gap: int = 0


@dataclass
class Statement:
    """Words before a separator or a block, the block they open, and the comments around."""

    words: list[str] = field(default_factory=list)
    block: Block | None = None
    before: list[str] = field(default_factory=list)  # comments on lines of their own, above
    trailing: str | None = None  # a comment after it, on its last line
    blank_before: bool = False  # the designer left a blank line above it
    tail: list[Statement] = field(default_factory=list)  # `else` parts: `} else {`


@dataclass
class Block:
    """A braced block: its statements, the comments before its `}`, how it was written."""

    statements: list[Statement] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)  # comments after the last statement
    one_line: bool = False  # `{` and `}` on the same line in the source
    trailing: str | None = None  # a comment right after `{`


class LayoutError(ValueError):
    """Text whose braces do not pair up: the parser's diagnostics say where; nothing is laid out."""


def tokens(text: str) -> list[Token]:
    """The tokens of a text, spaces left out."""
    found = []
    line = 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind is None or kind in ("lead", "end"):
            continue
        lead = match.group("lead")
        found.append(Token(kind, match.group(kind), line, len(lead.expandtabs(4)) if lead else 0))
        if kind == "newline":  # no other token holds one: strings and comments end at it
            line += 1
    return found


def layout(text: str) -> str:
    """The canonical layout of a card file's text."""
    return layout_tokens(tokens(text))


def layout_tokens(found: list[Token]) -> str:
    """The canonical layout of a card file, from its tokens."""
    cards = _parse(found)
    out: list[str] = []
    for index, card in enumerate(cards):
        if index:
            out.append("")
        out += _statement(card, 0, first=True)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


# ---------------------------------------------------------------- tokens to a tree


class _Reader:
    def __init__(self, found: list[Token]) -> None:
        self.found = found
        self.at = 0

    def peek(self) -> Token | None:
        return self.found[self.at] if self.at < len(self.found) else None

    def take(self) -> Token:
        token = self.found[self.at]
        self.at += 1
        return token


def _parse(found: list[Token]) -> list[Statement]:
    reader = _Reader(found)
    statements, closing = _statements(reader, top=True)
    if closing:
        statements.append(Statement(before=closing))
    return statements


def _statements(reader: _Reader, top: bool) -> tuple[list[Statement], list[str]]:
    """Statements up to the `}` that closes this block (not taken), or the end; and the
    comments after the last of them. In a list of comments, "" stands for a blank line."""
    statements: list[Statement] = []
    comments: list[str] = []
    blank = False
    newlines = 0  # newlines since the last token that was not one
    current: Statement | None = None

    def finish() -> None:
        nonlocal current
        if current is not None and (current.words or current.block is not None):
            statements.append(current)
        current = None

    while (token := reader.peek()) is not None:
        if token.kind == "close":
            if top:
                raise LayoutError("a '}' closes no block")
            break
        reader.take()
        if token.kind == "newline":
            newlines += 1
            finish()
            continue
        gap, line_start = newlines >= 2, newlines >= 1 or not (statements or current)
        newlines = 0
        if token.kind == "semi":
            finish()
            continue
        if token.kind == "comment":
            text = token.text.rstrip()
            # A statement keeps one trailing comment: a second one on its line (`} # a` then
            # `;# b` on the next, which `;` joins to it) goes on a line of its own.
            if current is not None and current.trailing is None:
                current.trailing = _aligned(text, token.gap)
            elif current is None and statements and not line_start and not statements[-1].trailing:
                statements[-1].trailing = _aligned(text, token.gap)
            else:
                if gap:
                    blank = blank or not comments
                    if comments:
                        comments.append("")
                comments.append(text)
            continue
        if current is not None and current.block is not None:
            if token.text == "else":
                part = Statement(words=["else"])
                current.tail.append(part)
                _rest_of_else(reader, part)
                continue
            finish()
        if current is None:
            if gap:
                if comments:
                    comments.append("")
                else:
                    blank = True
            current = Statement(before=comments, blank_before=blank)
            comments, blank = [], False
        if token.kind == "open":
            current.block = _block(reader, token)
        elif token.kind == "comma" and current.words:
            current.words[-1] += ","
        else:
            current.words.append(token.text)
    finish()
    if newlines >= 2 and comments:
        comments.append("")
    return statements, comments


def _rest_of_else(reader: _Reader, part: Statement) -> None:
    """The words after `else` (`if condition`) and the block they open."""
    while (token := reader.peek()) is not None and token.kind not in ("newline", "semi"):
        reader.take()
        if token.kind == "open":
            part.block = _block(reader, token)
            return
        if token.kind == "comment":
            part.trailing = _aligned(token.text.rstrip(), token.gap)
            continue
        part.words.append(token.text)


def _block(reader: _Reader, opening: Token) -> Block:
    block = Block()
    nxt = reader.peek()
    if nxt is not None and nxt.kind == "comment":
        comment = reader.take()
        block.trailing = _aligned(comment.text.rstrip(), comment.gap)
    block.statements, block.closing = _statements(reader, top=False)
    if reader.peek() is None:
        raise LayoutError("a '{' is never closed")
    closing = reader.take()
    block.one_line = closing.line == opening.line
    return block


# ---------------------------------------------------------------- the tree to text


def _comments(comments: list[str], pad: str, first: bool) -> list[str]:
    """Comment lines, "" as a blank line; none at the top of a block or file."""
    lines = [f"{pad}{comment}" if comment else "" for comment in comments]
    while first and lines and lines[0] == "":
        lines.pop(0)
    return lines


def _statement(statement: Statement, depth: int, first: bool = False) -> list[str]:
    pad = INDENT * depth
    lines = _comments(statement.before, pad, first)
    head = " ".join(statement.words)
    if statement.block is None:
        if statement.words:
            lines.append(_with_comment(pad + head, statement.trailing))
        return lines
    # An `if` with `else` parts is laid out a statement a line, each part on its own lines.
    chained = bool(statement.tail)
    body = _block_lines(statement.block, depth, head, chained)
    for part in statement.tail:
        closing = body.pop()
        words = " ".join(part.words)
        more = _block_lines(part.block, depth, words, chained) if part.block else []
        if more:
            body.append(closing + " " + more[0].lstrip())
            body += more[1:]
        else:
            body.append(closing + " " + " ".join(part.words))
    if statement.trailing is not None:
        body[-1] = _with_comment(body[-1], statement.trailing)
    return lines + body


def _block_lines(block: Block, depth: int, head: str, chained: bool = False) -> list[str]:
    pad = INDENT * depth
    opening = f"{pad}{head} {{" if head else f"{pad}{{"
    inline = None if chained else _inline(block)
    if inline is not None and len(opening) + len(inline) + 3 <= MAX_INLINE:
        return [f"{opening} {inline} }}" if inline else f"{opening} }}"]
    lines = [_with_comment(opening, block.trailing)]
    for index, inner in enumerate(block.statements):
        if inner.blank_before and index > 0:
            lines.append("")
        lines += _statement(inner, depth + 1, first=index == 0)
    closing = _comments(block.closing, pad + INDENT, not block.statements)
    while closing and closing[-1] == "":
        closing.pop()
    lines += closing
    lines.append(f"{pad}}}")
    return lines


def _inline(block: Block) -> str | None:
    """The block's statements on one line, if it was written so and nothing prevents it."""
    if not block.one_line or block.closing or block.trailing:
        return None
    parts = []
    for statement in block.statements:
        if statement.before or statement.trailing or statement.tail:
            return None
        words = " ".join(statement.words)
        if statement.block is not None:
            inner = _inline(statement.block)
            if inner is None:
                return None
            words = f"{words} {{ {inner} }}" if inner else f"{words} {{ }}"
        parts.append(words)
    return "; ".join(parts)


MAX_COMMENT_GAP = 40
"""The most spaces kept before a comment at the end of a line (comments aligned in a column)."""


def _aligned(comment: str, gap: int) -> str:
    """A trailing comment with the spaces before it: two at least, or as many as the designer
    used to align it with the comments of the lines around."""
    return " " * min(max(gap, 2), MAX_COMMENT_GAP) + comment


def _with_comment(line: str, comment: str | None) -> str:
    return line if comment is None else f"{line}{comment}"
