"""Parse card files into the AST, translating Lark's exceptions into diagnostics.

The parser is Lark's LALR with the contextual lexer, shipped as a generated standalone module
(`dsl/_lark_parser.py`, made by `make grammar`) so nothing is built or unpickled at start-up.
AST nodes are built by callbacks while parsing, so even absurdly deep input never recurses.
After a syntax error the file is parsed again card by card, so one run reports an error in
every broken card and no follow-on errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dsl import _lark_parser as lark
from dsl import nodes as n
from dsl.spans import Diagnostic, Span

MAX_SYNTAX_ERRORS = 50
"""After this many broken cards in one file the rest is skipped: the file is likely not cards."""

MAX_NESTING = 64
"""Blocks may nest this deep; deeper input is refused with a diagnostic."""

STATEMENT_KEYWORDS = frozenset(
    ("option", "choose", "may", "if", "else", "check", "roll", "repeat", "say", "rule", "test")
)
"""Words that start a control form; no vocabulary phrase can start with one."""

CONDITION_KEYWORDS = frozenset(("and", "or", "not"))
"""Words that join conditions; no value or condition phrase can contain one."""

KEYWORDS = STATEMENT_KEYWORDS | CONDITION_KEYWORDS | {"variant", "given", "use", "dice", "expect"}
"""Every word the grammar knows; where each is reserved depends on the context."""

# Lark's names for terminals, as a designer would say them.
_TERMINAL_NAMES = {
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "_SEP": "a new line",
    "COMMA": "','",
    "STRING": "a quoted text",
    "INT": "a number",
    "SIGNED": "a signed number like +1",
    "RANGE": "a range like 1..2",
    "OPEN_RANGE": "an open range like 3+",
    "DICE_NOTATION": "dice like d6",
    "WORD": "a word",
    "CMP": "a comparison like ==",
    "$END": "the end of the file",
}

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE_RE = re.compile(r"\\(.)")
_CARD_HEADER_RE = re.compile(
    r"([^\W\d][\w'-]*)[ \t]+\"(?:[^\"\\\n]|\\.)*\"[ \t]*(?:variant[ \t]+\d+[ \t]*)?\{"
)
# Possessive: blank lines and comments before a header are skipped without backtracking, which
# was exponential in the number of `#` on one line.
_PIECE_HEADER_RE = re.compile(r"(?:\s|#[^\n]*+)*+([^\W\d][\w'-]*)[ \t]+(\"(?:[^\"\\\n]|\\.)*\")")
_SPLIT_AT = re.compile(r'[\n#"{}]')
"""The characters `split_cards` acts on."""
_STRING_REST = re.compile(r'(?:[^"\\\n]|\\[\s\S])*')
"""What follows a string's opening quote up to its closing one or the end of its line."""
_new_tuple = tuple.__new__
_HUGE = 10**100  # numbers longer than this are kept as this, so they stay "out of range"


def _unescape(raw: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw[1:-1])


def _nodes(children: Sequence[Any]) -> tuple[Any, ...]:
    """Drop the separator tokens that `!` rules keep along with their keywords."""
    return tuple(c for c in children if not isinstance(c, lark.Token))


def _to_int(digits: str) -> int:
    return int(digits) if len(digits) <= 100 else _HUGE


@dataclass
class _ParseContext:
    """Where the text being parsed sits in its file; owned by one parse call."""

    file: str = "<input>"
    line_offset: int = 0
    problems: list[Diagnostic] = field(default_factory=list)
    depth: int = 0
    brace_depth: dict[int, int] = field(default_factory=dict)  # '{' offset -> its depth

    def open_brace(self, token: Any) -> Any:
        """Lexer callback: note how deep each '{' sits, counted from the outside."""
        self.depth += 1
        self.brace_depth[token.start_pos] = self.depth
        return token

    def close_brace(self, token: Any) -> Any:
        """Lexer callback: leave one level."""
        self.depth -= 1
        return token

    def span(self, first: Any, last: Any | None = None) -> Span:
        """The span from the start of `first` to the end of `last`, tokens or nodes.

        Node spans already carry the line offset; token positions are relative to the text
        handed to Lark, so the offset is added to them here and nowhere else.
        """
        last = first if last is None else last
        off = self.line_offset
        if isinstance(first, lark.Token):
            line, column = (first.line or 1) + off, first.column or 1
        else:
            line, column = first.span.line, first.span.column
        if isinstance(last, lark.Token):
            end_line, end_column = (last.end_line or 1) + off, last.end_column or 1
        else:
            end_line, end_column = last.span.end_line, last.span.end_column
        return Span(self.file, line, column, end_line, end_column)


class _AstBuilder(lark.Transformer):  # type: ignore[misc]
    """Lark callbacks that build AST nodes as rules are reduced."""

    # A rule with no method here (one Lark splices into its parent) becomes a plain Tree, made
    # by the class itself rather than through Transformer.__default__, one call fewer for each.
    __default__ = staticmethod(lark.Tree)

    def __init__(self) -> None:
        super().__init__()
        self.ctx = _ParseContext()

    def _span(self, children: Sequence[Any]) -> Span:
        return self.ctx.span(children[0], children[-1])

    def _token_span(self, tok: Any) -> Span:
        """`ctx.span(tok)` for one token, without its type tests: every atom needs one."""
        ctx = self.ctx
        off = ctx.line_offset
        # tuple.__new__ is Span(...) without the named tuple's own __new__, a Python call
        return _new_tuple(
            Span,
            (
                ctx.file,
                (tok.line or 1) + off,
                tok.column or 1,
                (tok.end_line or 1) + off,
                tok.end_column or 1,
            ),
        )

    def _make_atom(self, tok: Any) -> n.Atom:
        span = self._token_span(tok)
        kind, text = tok.type, str(tok)
        if kind == "WORD":  # most atoms are words: tell them first
            return n.Word(text, span)
        if kind == "INT":
            return n.Integer(_to_int(text), span)
        if kind == "SIGNED":
            magnitude = _to_int(text[1:])
            return n.Signed(-magnitude if text[0] == "-" else magnitude, span)
        if kind == "RANGE":
            low, high = text.split("..")
            return n.Range(_to_int(low), _to_int(high), span)
        if kind == "OPEN_RANGE":
            return n.OpenRange(_to_int(text[:-1]), span)
        if kind == "DICE_NOTATION":
            count, sides = text.split("d")
            return n.Dice(_to_int(count) if count else 1, _to_int(sides), span)
        if kind == "STRING":
            return n.Text(_unescape(text), span)
        return n.Word(text, span)

    # ------------------------------------------------------------ structure

    def start(self, children: list[Any]) -> list[n.Card]:
        return [c for c in children if isinstance(c, n.Card)]

    def card(self, children: list[Any]) -> n.Card:
        kind = self._make_atom(children[0])
        title = self._make_atom(children[1])
        variant = children[2] if isinstance(children[2], n.Integer) else None
        assert isinstance(kind, n.Word) and isinstance(title, n.Text)
        return n.Card(kind, title, variant, children[-1], self._span(children))

    def variant(self, children: list[Any]) -> n.Integer:
        number = self._make_atom(children[1])
        assert isinstance(number, n.Integer)
        return number

    def block(self, children: list[Any]) -> n.Block:
        body = _nodes(children[1:-1])
        span = self._span(children)
        depth = self.ctx.brace_depth.get(children[0].start_pos, 0)
        if depth <= MAX_NESTING:
            return n.Block(body, span)
        # Past the limit the body is dropped, so later stages never walk a deeper tree; only
        # the outermost block past the limit is reported, so the levels inside add nothing.
        if depth == MAX_NESTING + 1:
            self.ctx.problems.append(
                Diagnostic(
                    code="E0104",
                    severity="error",
                    message=f"blocks nest more than {MAX_NESTING} levels deep here",
                    span=self.ctx.span(children[0]),
                    help=f"pillbox refuses nesting past {MAX_NESTING} levels; "
                    "split the effect into fewer nested blocks",
                )
            )
        return n.Block((), span, too_deep=True)

    def option(self, children: list[Any]) -> n.Option:
        title = self._make_atom(children[1])
        assert isinstance(title, n.Text)
        return n.Option(title, children[2], self._span(children))

    def choose(self, children: list[Any]) -> n.Choose:
        return n.Choose(children[1], self._span(children))

    def may(self, children: list[Any]) -> n.May:
        inner = children[1]
        span = self._span(children)
        if isinstance(inner, n.Block):
            return n.May(inner, None, span)
        return n.May(None, inner, span)

    def if_stmt(self, children: list[Any]) -> n.If:
        first = n.Branch(children[1], children[2], self._span(children[:3]))
        branches = [first] + [c for c in children[3:] if isinstance(c, n.Branch)]
        otherwise = next((c.block for c in children[3:] if isinstance(c, _Else)), None)
        return n.If(tuple(branches), otherwise, self._span(children))

    def else_if(self, children: list[Any]) -> n.Branch:
        return n.Branch(children[2], children[3], self._span(children))

    def else_block(self, children: list[Any]) -> _Else:
        return _Else(children[1], self._span(children))

    def check(self, children: list[Any]) -> n.Check:
        outcomes: _Outcomes = children[2]
        keyword = self._span(children[:1])
        span = keyword.to(outcomes.span)
        return n.Check(children[1], outcomes.items, span, keyword)

    def roll(self, children: list[Any]) -> n.Roll:
        dice = self._make_atom(children[1])
        outcomes: _Outcomes = children[2]
        assert isinstance(dice, n.Dice)
        keyword = self._span(children[:1])
        return n.Roll(dice, outcomes.items, keyword.to(outcomes.span), keyword)

    def outcomes(self, children: list[Any]) -> _Outcomes:
        return _Outcomes(_nodes(children[1:-1]), self._span(children))

    def outcome(self, children: list[Any]) -> n.Outcome:
        label = self._make_atom(children[0])
        assert isinstance(label, (n.Integer, n.Range, n.OpenRange, n.Word))
        return n.Outcome(label, children[1], self._span(children))

    def repeat(self, children: list[Any]) -> n.Repeat:
        times = self._make_atom(children[1])
        assert isinstance(times, n.Integer)
        return n.Repeat(times, children[2], self._span(children))

    def say(self, children: list[Any]) -> n.Say:
        text = self._make_atom(children[1])
        assert isinstance(text, n.Text)
        return n.Say(text, self._span(children))

    def rule(self, children: list[Any]) -> n.Rule:
        text = self._make_atom(children[1])
        assert isinstance(text, n.Text)
        return n.Rule(text, self._span(children))

    def header_block(self, children: list[Any]) -> n.HeaderBlock:
        return n.HeaderBlock(children[0], children[1], self._span(children))

    def phrase_stmt(self, children: list[Any]) -> n.PhraseLine:
        return n.PhraseLine(children[0], children[0].span)

    def phrase(self, children: list[Any]) -> n.Phrase:
        atoms = tuple([self._make_atom(t) for t in children])
        first, last = atoms[0].span, atoms[-1].span  # `_span(children)`, from the atoms' spans
        return n.Phrase(atoms, first.to(last))

    # ------------------------------------------------------------ tests

    def test(self, children: list[Any]) -> n.Test:
        name = self._make_atom(children[1])
        steps: _Steps = children[2]
        assert isinstance(name, n.Text)
        return n.Test(name, steps.items, self._span(children))

    def test_block(self, children: list[Any]) -> _Steps:
        return _Steps(_nodes(children[1:-1]), self._span(children))

    def given(self, children: list[Any]) -> n.Given:
        settings = tuple(c for c in children if isinstance(c, n.Phrase))
        return n.Given(settings, self._span(children))

    def answer(self, children: list[Any]) -> n.Answer:
        answer = self._make_atom(children[1])
        assert isinstance(answer, (n.Text, n.Word))
        return n.Answer(answer, self._span(children))

    def use(self, children: list[Any]) -> n.Use:
        card = self._make_atom(children[1])
        assert isinstance(card, n.Text)
        return n.Use(card, self._span(children))

    def carry(self, children: list[Any]) -> n.Use:
        card = self._make_atom(children[1])
        assert isinstance(card, n.Text)
        return n.Use(card, self._span(children), "carry")

    def next_turn(self, children: list[Any]) -> n.NextTurn:
        return n.NextTurn(self._span(children))

    def play(self, children: list[Any]) -> n.Use:
        card = self._make_atom(children[1])
        assert isinstance(card, n.Text)
        return n.Use(card, self._span(children), "play")

    def dice(self, children: list[Any]) -> n.ForceDice:
        faces = tuple(self._make_atom(t) for t in children[1:])
        assert all(isinstance(f, n.Integer) for f in faces)
        return n.ForceDice(faces, self._span(children))  # type: ignore[arg-type]

    def expect(self, children: list[Any]) -> n.Expect:
        return n.Expect(children[1], self._span(children))

    # ------------------------------------------------------------ conditions

    def condition(self, children: list[Any]) -> n.Condition:
        groups = tuple(tuple(c) for c in children)
        first, last = groups[0][0], groups[-1][-1]
        return n.Condition(groups, first.span.to(last.span))

    def cond_and(self, children: list[Any]) -> list[n.Comparison]:
        return list(children)

    def cond_not(self, children: list[Any]) -> n.Comparison:
        comparison: n.Comparison = children[-1]
        if len(children) == 1:
            return comparison
        return n.Comparison(
            comparison.left,
            comparison.op,
            comparison.right,
            negated=True,
            span=self._span(children),
        )

    def comparison(self, children: list[Any]) -> n.Comparison:
        left = children[0]
        if len(children) == 1:
            return n.Comparison(left, None, None, False, left.span)
        return n.Comparison(left, str(children[1]), children[2], False, self._span(children))


@dataclass(frozen=True, slots=True)
class _Else:
    block: n.Block
    span: Span


@dataclass(frozen=True, slots=True)
class _Outcomes:
    items: tuple[n.Outcome, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class _Steps:
    items: tuple[n.TestStep, ...]
    span: Span


_builder = _AstBuilder()
_parser: Any = None


def _lark() -> Any:
    global _parser
    if _parser is None:
        _parser = lark.Lark_StandAlone(
            transformer=_builder,
            lexer_callbacks={
                "LBRACE": lambda token: _builder.ctx.open_brace(token),
                "RBRACE": lambda token: _builder.ctx.close_brace(token),
            },
        )
    return _parser


# ---------------------------------------------------------------- public entry point


def parse(text: str, path: str = "<input>") -> tuple[n.File, list[Diagnostic]]:
    """Parse one card file; return the cards that parsed and every syntax diagnostic."""
    ctx = _ParseContext(file=path)
    try:
        cards = _parse_piece(text, ctx)
    except lark.UnexpectedInput:
        return _parse_by_card(text, path)
    return n.File(path, tuple(cards)), ctx.problems


def _parse_piece(text: str, ctx: _ParseContext) -> list[n.Card]:
    _builder.ctx = ctx
    result: list[n.Card] = _lark().parse(text)
    return result


def _parse_by_card(text: str, path: str) -> tuple[n.File, list[Diagnostic]]:
    """Parse each card on its own, so one broken card costs only its own diagnostic."""
    cards: list[n.Card] = []
    problems: list[Diagnostic] = []
    for piece in split_cards(text):
        if len(problems) >= MAX_SYNTAX_ERRORS:
            problems.append(
                Diagnostic(
                    "E0106",
                    "error",
                    "too many syntax errors; the rest of this file is not checked",
                    Span(path, piece.line, piece.column, piece.line, piece.column + 1),
                    "fix the errors above first",
                )
            )
            break
        ctx = _ParseContext(file=path, line_offset=piece.line - 1)
        padded = " " * (piece.column - 1) + text[piece.start : piece.end]
        try:
            cards.extend(_parse_piece(padded, ctx))
        except lark.UnexpectedInput as error:
            problems.append(_translate(error, ctx, padded))
        problems.extend(ctx.problems)
    return n.File(path, tuple(cards)), problems


@dataclass(frozen=True, slots=True)
class Piece:
    """A stretch of a file that holds at most one card."""

    start: int
    end: int
    line: int
    column: int


def _string_end(text: str, at: int) -> int:
    """Where a string whose text starts at an offset ends: its closing quote, or its line's end
    (a backslash escapes any character)."""
    found = _STRING_REST.match(text, at)
    assert found is not None  # the pattern matches the empty text
    return found.end()


def split_cards(text: str) -> list[Piece]:
    """Cut a file into stretches of one card each, by braces outside strings and comments.

    A line at the left margin that looks like a card header (`word "Title" {`) and does not
    start with a keyword also starts a new card, so a card whose `}` is missing does not swallow
    the cards after it.
    """
    pieces: list[Piece] = []
    depth = 0
    start = 0
    line = start_line = 1
    line_start = start_col_base = 0
    i, size = 0, len(text)
    while i < size:
        # only these characters change anything: jump to the next (a loop per character is
        # most of the language server's re-check of a large file)
        special = _SPLIT_AT.search(text, i)
        if special is None:
            break
        i = special.start()
        ch = text[i]
        if ch == "\n":
            line += 1
            line_start = i + 1
            header = _CARD_HEADER_RE.match(text, i + 1) if depth > 0 else None
            if header is not None and header.group(1) not in KEYWORDS:
                pieces.append(Piece(start, i + 1, start_line, start - start_col_base + 1))
                start, start_line, start_col_base, depth = i + 1, line, i + 1, 0
        elif ch == "#":
            nl = text.find("\n", i)
            i = size if nl < 0 else nl
            continue
        elif ch == '"':
            j = _string_end(text, i + 1)
            i = j + 1 if j < size and text[j] == '"' else j
            continue
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth > 0:  # a stray '}' stays in the piece it is found in
            depth -= 1
            if depth == 0:
                pieces.append(Piece(start, i + 1, start_line, start - start_col_base + 1))
                start, start_line, start_col_base = i + 1, line, line_start
        i += 1
    if text[start:].strip():
        pieces.append(Piece(start, size, start_line, start - start_col_base + 1))
    return pieces


# ---------------------------------------------------------------- error translation


def _translate(error: Any, ctx: _ParseContext, text: str) -> Diagnostic:
    """Turn one Lark exception into a diagnostic that speaks the card language."""
    line = (getattr(error, "line", None) or 1) + ctx.line_offset
    column = getattr(error, "column", None) or 1
    if isinstance(error, lark.UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        span = Span(ctx.file, line, column, line, column + 1)
        if char == '"':
            return Diagnostic(
                "E0102",
                "error",
                "this string is never closed: a quoted text must end on the line it starts",
                span,
                help='add the closing " at the end of the text',
            )
        help_text = _expected_help(getattr(error, "allowed", None))
        if char == "=":
            help_text = "a comparison is written `==` (or `!=`, `<=`, `>=`): did you mean `==`?"
        return Diagnostic("E0101", "error", f"unexpected character {char!r}", span, help=help_text)
    token = error.token
    if token.type == "$END":
        return _unclosed(ctx, text)
    span = ctx.span(token)
    shown = str(token).replace("\n", "\\n") if token.type != "_SEP" else "a new line"
    message = f"unexpected {shown!r}" if token.type != "_SEP" else "unexpected end of line"
    help_text = _expected_help(error.expected)
    if token.type == "SIGNED" and "INT" in error.expected:
        # `repeat -2`: a number, only not one with a sign; "expected a number" would be untrue
        help_text = f"a number here is written without a sign, like {shown[1:]}"
    elif _word_before(text, token) == "choose" and token.type != "_SEP":
        help_text = "a test chooses an option by its title in quotes, or answers yes or no"
    if str(token) == "else":
        help_text = "write `else` on the same line as the `}` that closes the `if` block"
    return Diagnostic("E0101", "error", message, span, help=help_text)


def _unclosed(ctx: _ParseContext, text: str) -> Diagnostic:
    # A piece starts where its card does, so the header is matched there and nowhere else
    # (searching would try every position of a long word: quadratic).
    header = _PIECE_HEADER_RE.match(text)
    if header is None:
        end_line = text.count("\n") + 1 + ctx.line_offset
        return Diagnostic(
            "E0103",
            "error",
            "the file ends inside a block that is not closed",
            Span(ctx.file, end_line, 1, end_line, 1),
            help="add the missing '}'",
        )
    start = Span.at_offset(ctx.file, text, header.start(1))
    line = start.line + ctx.line_offset
    span = Span(ctx.file, line, start.column, line, start.column + header.end() - header.start(1))
    unmatched = _unmatched_block(text, text.find("{", header.end()))
    if unmatched is not None:
        inner, still_open = unmatched
        opened = Span.at_offset(ctx.file, text, inner)
        line_start = text.rfind("\n", 0, inner) + 1
        indent = len(text[line_start:inner]) - len(text[line_start:inner].lstrip())
        first = opened.column - (inner - line_start - indent)
        line = opened.line + ctx.line_offset
        return Diagnostic(
            "E0103",
            "error",
            "this block is not closed: its '{' has no matching '}'",
            Span(ctx.file, line, first, line, opened.column + 1),
            help=f"add a '}}' after the block's last line, indented {indent} spaces as this line is"
            + (", and one at the end of the card" if still_open > 1 else ""),
        )
    if "{" not in text[header.end() :]:
        return Diagnostic(
            "E0103",
            "error",
            f"card {header.group(2)} has no body: the file ends before its '{{'",
            span,
            help="write the card's lines between { and }",
        )
    return Diagnostic(
        "E0103",
        "error",
        f"card {header.group(2)} is not closed: its '{{' has no matching '}}'",
        span,
        help="add the missing '}' at the end of the card",
    )


def _unmatched_block(text: str, card_brace: int) -> tuple[int, int] | None:
    """The offset of the inner `{` that is most likely never closed and how many blocks are
    left open, or None when it is the card's own.

    Braces are matched by count, so a missing `}` shows where a `}` closes a `{` on a line
    indented differently: that `{` is the one that lost its `}`. With no such mismatch, the
    innermost block still open at the end is.
    """
    stack: list[tuple[int, int]] = []  # offset of each open `{`, and its line's indentation
    suspect: int | None = None
    i, size = max(card_brace, 0), len(text)
    while i < size:
        ch = text[i]
        if ch == "#":
            i = size if (nl := text.find("\n", i)) < 0 else nl
            continue
        if ch == '"':
            j = _string_end(text, i + 1)
            i = j + 1
            continue
        if ch in "{}":
            line_start = text.rfind("\n", 0, i) + 1
            line = text[line_start:i]
            indent = len(line) - len(line.lstrip(" \t"))
            if ch == "{":
                stack.append((i, indent))
            elif stack:
                opened, opened_indent = stack.pop()
                alone = not line.strip()
                if suspect is None and alone and indent != opened_indent:
                    suspect = opened
        i += 1
    if suspect is None and len(stack) > 1:
        suspect = stack[-1][0]
    if suspect is None or suspect == card_brace:
        return None
    return suspect, len(stack)


def _word_before(text: str, token: Any) -> str:
    """The word just before a token on its line (the step or statement it belongs to)."""
    start = getattr(token, "start_pos", None)
    if start is None:
        return ""
    before = text[text.rfind("\n", 0, start) + 1 : start].split()
    return before[-1] if before else ""


def _expected_help(expected: Any) -> str | None:
    if not expected:
        return None
    names = sorted({_TERMINAL_NAMES.get(t, repr(t.lower())) for t in expected})
    if len(names) > 6:
        names = [*names[:6], "..."]
    return "expected " + ", ".join(names)
