"""Phrase patterns: the ruleset's vocabulary as data, matched against the atoms of a phrase.

A pattern is written like the card text it accepts: literal words, typed slots in braces and
optional parts in brackets, e.g. `draw {deck} [{count}]` or `bonus next {check_name} {modifier}`.
`{name:type}` names a slot differently from its type.
"""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dsl import nodes as n
from dsl.spans import Span

# ---------------------------------------------------------------- slot types


@dataclass(frozen=True, slots=True)
class SlotType:
    """What a slot accepts: one or more words of a vocabulary, a bounded number, or text."""

    name: str
    vocabulary: str | None = None
    words: frozenset[str] = frozenset()
    repeat: bool = False
    integer: tuple[int, int] | None = None
    signed: tuple[int, int] | None = None
    text: bool = False
    titles: tuple[str, ...] = ()  # a text that is the title of a card of one of these kinds
    phrases: tuple[tuple[str, ...], ...] = field(init=False, default=(), compare=False)
    """Its words of several words (`each monster here`), split, the longest first."""

    def __post_init__(self) -> None:
        split = sorted((tuple(w.split()) for w in self.words if " " in w), key=len, reverse=True)
        object.__setattr__(self, "phrases", tuple(split))

    @property
    def label(self) -> str:
        """How diagnostics name this slot: 'stat', 'place', 'number'..."""
        return self.name.replace("_", " ")


# ---------------------------------------------------------------- compiled patterns


@dataclass(frozen=True, slots=True)
class Literal:
    """A word the phrase must contain as written."""

    word: str


@dataclass(frozen=True, slots=True)
class Slot:
    """A typed hole; its value becomes the argument `name`."""

    name: str
    type: SlotType


@dataclass(frozen=True, slots=True)
class Optional:
    """Elements that may be left out together."""

    elements: tuple[Element, ...]


Element = Literal | Slot | Optional


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled pattern of one vocabulary entry (a verb, a property, a trigger...)."""

    name: str
    source: str
    elements: tuple[Element, ...]
    summary: str = ""  # the ruleset's one line on what it does, for listings
    # Made once from the elements: rules text reads them for every phrase of every card.
    slots: tuple[Slot, ...] = field(init=False, repr=False, compare=False)
    slot_types: dict[str, SlotType] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slots = tuple(_slots(self.elements))
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "slot_types", {slot.name: slot.type for slot in slots})

    @property
    def first_word(self) -> str | None:
        """The literal the pattern starts with, if it starts with one."""
        first = self.elements[0] if self.elements else None
        return first.word if isinstance(first, Literal) else None

    @property
    def head(self) -> str:
        """The literal words before the first slot: 'symbol order', 'attacks with'."""
        words = []
        for element in self.elements:
            if not isinstance(element, Literal):
                break
            words.append(element.word)
        return " ".join(words) or self.source

    def example(self) -> str:
        """A line this pattern accepts, for help texts: 'type weapon', 'attack +1'."""
        return " ".join(_example(e) for e in self.elements if not isinstance(e, Optional))

    def phrase(self, args: Mapping[str, object]) -> str:
        """The phrase as a card writes it, from its arguments: `check speed -1`."""
        return " ".join(_phrase(self.elements, args))


def _example(element: Literal | Slot) -> str:
    if isinstance(element, Literal):
        return element.word
    kind = element.type
    if kind.vocabulary is not None:
        words = sorted(kind.words)
        return " ".join(words[:3] if kind.repeat else words[:1]) or f"<{kind.label}>"
    if kind.text:
        return '"..."'
    low, high = kind.integer or kind.signed or (1, 1)
    value = 1 if low <= 1 <= high else low
    return f"{value:+d}" if kind.signed else str(value)


def _phrase(elements: Iterable[Element], args: Mapping[str, object]) -> list[str]:
    words: list[str] = []
    for element in elements:
        if isinstance(element, Literal):
            words.append(element.word)
        elif isinstance(element, Optional):
            if any(slot.name in args for slot in _slots(element.elements)):
                words += _phrase(element.elements, args)
        elif element.name in args:
            value = args[element.name]
            if isinstance(value, list):
                words += map(str, value)
            elif isinstance(value, int) and element.type.signed:
                words.append(f"{value:+d}")
            else:
                words.append(str(value))
    return words


def _slots(elements: Iterable[Element]) -> Iterable[Slot]:
    for element in elements:
        if isinstance(element, Slot):
            yield element
        elif isinstance(element, Optional):
            yield from _slots(element.elements)


class PatternError(ValueError):
    """A pattern in a ruleset is malformed."""


SLOT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""Slot names become keyword arguments of generated calls: plain identifiers only."""

RESERVED_SLOT_NAMES = frozenset({"game", "card", "value", "rule", *keyword.kwlist})
"""Parameters every runtime callable already takes, and Python's keywords."""

MAX_OPTIONAL_PARTS = 8
"""Optional parts one pattern may have (the bundled rulesets use one at most). Matching takes
time by the square of their number; a cap keeps a ruleset from slowing every card line."""

_TOKEN_RE = re.compile(r"\{[^{}\s]+\}|\[|\]|[^\s\[\]{}]+")


def compile_pattern(name: str, source: str, slot_types: dict[str, SlotType]) -> Pattern:
    """Compile pattern text such as `draw {deck} [{count}]`; raise PatternError if malformed."""
    stack: list[list[Element]] = [[]]
    optional_parts = 0
    for token in _TOKEN_RE.findall(source):
        if token == "[":
            optional_parts += 1
            if optional_parts > MAX_OPTIONAL_PARTS:
                raise PatternError(
                    f"pattern {source!r} has more than {MAX_OPTIONAL_PARTS} optional parts [...]"
                )
            stack.append([])
        elif token == "]":
            if len(stack) == 1:
                raise PatternError(f"unbalanced ']' in pattern {source!r}")
            group = stack.pop()
            stack[-1].append(Optional(tuple(group)))
        elif token.startswith("{"):
            slot_name, _, type_name = token[1:-1].partition(":")
            type_name = type_name or slot_name
            if not SLOT_NAME.match(slot_name) or slot_name in RESERVED_SLOT_NAMES:
                raise PatternError(
                    f"pattern {source!r} names a slot {slot_name!r}: slot names are lower-case "
                    "letters, digits and _, and not "
                    + ", ".join(sorted(RESERVED_SLOT_NAMES - set(keyword.kwlist)))
                    + " or a Python keyword"
                )
            if type_name not in slot_types:
                raise PatternError(f"pattern {source!r} uses unknown slot type {type_name!r}")
            stack[-1].append(Slot(slot_name, slot_types[type_name]))
        else:
            stack[-1].append(Literal(token))
    if len(stack) != 1:
        raise PatternError(f"unclosed '[' in pattern {source!r}")
    if not stack[0]:
        raise PatternError(f"empty pattern for {name!r}")
    return Pattern(name, source, tuple(stack[0]))


# ---------------------------------------------------------------- matching


Value = str | int | list[str]


@dataclass(frozen=True, slots=True)
class Problem:
    """Why an atom does not fit, with a suggestion where one exists."""

    message: str
    span: Span
    help: str | None = None
    code: str = "E0201"


@dataclass(frozen=True, slots=True)
class Match:
    """A pattern that fits: its arguments, and value problems such as numbers out of range."""

    pattern: Pattern
    args: dict[str, Value]
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True, slots=True)
class Miss:
    """A pattern that does not fit; `reached` says how far it got, to pick the best story."""

    pattern: Pattern
    reached: float
    why: Problem | Callable[[], Problem]
    """The problem, or how to write it: most misses are never told (another pattern fits), so
    the costly messages are written only when asked for."""

    @property
    def problem(self) -> Problem:
        """Why the pattern does not fit."""
        why = self.why
        return why if isinstance(why, Problem) else why()


@dataclass
class _State:
    index: int
    args: dict[str, Value] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def match(pattern: Pattern, atoms: Sequence[n.Atom], span: Span) -> Match | Miss:
    """Match a whole phrase against one pattern."""
    result = _match_elements(pattern.elements, 0, atoms, _State(0), span, {})
    if isinstance(result, Miss):
        return Miss(pattern, result.reached, result.why)
    if result.index < len(atoms):
        extra = atoms[result.index]
        return Miss(
            pattern,
            result.index,
            Problem(
                f"unexpected {shown_atom(extra)!r} after "
                f"'{' '.join(n.atom_source(a) for a in atoms[: result.index])}'",
                extra.span,
                help=f"the pattern is '{pattern.source}'",
            ),
        )
    return Match(pattern, result.args, tuple(result.problems))


_Failures = dict[tuple[int, int, int], Miss]
"""Where matching is known to fail: (id of an element sequence, its start, the atom index)."""


def _match_elements(
    elements: Sequence[Element],
    start: int,
    atoms: Sequence[n.Atom],
    state: _State,
    span: Span,
    failed: _Failures,
) -> _State | Miss:
    """Match `elements[start:]` from the atom at `state.index`.

    Whether that fails depends only on where the elements and the atoms start, so each
    failure is remembered: tried afresh, a pattern of n optional parts that the phrase almost
    fits would be tried 2**n ways (28 parts: minutes), remembered it is tried at most once
    for each pair of positions.
    """
    key = (id(elements), start, state.index)
    known = failed.get(key)
    if known is not None:
        return known
    for position in range(start, len(elements)):
        element = elements[position]
        if isinstance(element, Optional):
            inside = _State(state.index, dict(state.args), list(state.problems))
            attempt = _match_elements(element.elements, 0, atoms, inside, span, failed)
            if isinstance(attempt, _State):
                rest = _match_elements(elements, position + 1, atoms, attempt, span, failed)
                if isinstance(rest, _State):
                    return rest
            continue
        miss = _take(element, atoms, state, span)
        if miss is not None:
            failed[key] = miss
            return miss
    return state


def _take(
    element: Literal | Slot, atoms: Sequence[n.Atom], state: _State, span: Span
) -> Miss | None:
    """Match one word or slot at `state.index`, moving the state on; or say why it does not fit."""
    if state.index >= len(atoms):
        return Miss(_NO_PATTERN, state.index, lambda: _expected_more(element, atoms, span))
    atom = atoms[state.index]
    if isinstance(element, Literal):
        if not (isinstance(atom, n.Word) and atom.text == element.word):
            return Miss(_NO_PATTERN, state.index, lambda: _not_the_word(element.word, atom))
        state.index += 1
        return None
    taken = _fill_slot(element, atoms, state)
    return taken if isinstance(taken, Miss) else None


def _expected_more(element: Literal | Slot, atoms: Sequence[n.Atom], span: Span) -> Problem:
    """The phrase ends where the pattern wants one more word or slot."""
    wanted = (
        f"'{element.word}'" if isinstance(element, Literal) else with_article(element.type.label)
    )
    end = Span(span.file, span.end_line, span.end_column, span.end_line, span.end_column)
    so_far = " ".join(n.atom_source(a) for a in atoms)
    return Problem(f"expected {wanted} after '{so_far}'", end, code="E0202")


def _not_the_word(word: str, atom: n.Atom) -> Problem:
    return Problem(f"expected '{word}', found {shown_atom(atom)!r}", atom.span)


def _phrase_at(kind: SlotType, atoms: Sequence[n.Atom], index: int) -> str | None:
    """The longest word of several words in the vocabulary that the atoms spell from `index`."""
    for parts in kind.phrases:
        found = atoms[index : index + len(parts)]
        if len(found) == len(parts) and all(
            isinstance(atom, n.Word) and atom.text == part
            for atom, part in zip(found, parts, strict=True)
        ):
            return " ".join(parts)
    return None


def _fill_slot(slot: Slot, atoms: Sequence[n.Atom], state: _State) -> _State | Miss:
    kind = slot.type
    atom = atoms[state.index]
    if kind.vocabulary is not None:
        phrase = _phrase_at(kind, atoms, state.index)
        if phrase is not None:  # a word of several words: `each monster here`
            state.args[slot.name] = [phrase] if kind.repeat else phrase
            state.index += len(phrase.split())
            return state
        taken: list[str] = []
        while state.index < len(atoms):
            atom = atoms[state.index]
            if not (isinstance(atom, n.Word) and atom.text in kind.words):
                break
            taken.append(atom.text)
            state.index += 1
            if not kind.repeat:
                break
        if not taken:
            return Miss(_NO_PATTERN, state.index + 0.5, lambda: unknown_word(kind, atom))
        state.args[slot.name] = taken if kind.repeat else taken[0]
        return state
    if kind.text:
        if not isinstance(atom, n.Text):
            return Miss(
                _NO_PATTERN,
                state.index,
                Problem(f"expected a quoted text, found {shown_atom(atom)!r}", atom.span),
            )
        texts: list[str] = []
        while state.index < len(atoms) and isinstance(atoms[state.index], n.Text):
            text = atoms[state.index]
            assert isinstance(text, n.Text)
            if len(text.value) > MAX_TEXT:
                state.problems.append(text_too_long(text))
            texts.append(text.value)
            state.index += 1
            if not kind.repeat:
                break
        state.args[slot.name] = texts if kind.repeat else texts[0]
        return state
    bounds = kind.integer or kind.signed
    assert bounds is not None
    wanted_type = n.Integer if kind.integer else n.Signed
    if not isinstance(atom, wanted_type):
        # Say what the slot takes: `copies -3` is a number, just not one copies can have.
        if kind.integer:
            example = f"a number from {bounds[0]} to {bounds[1]}"
            if isinstance(atom, n.Signed):
                example += ", written without a sign"
        elif isinstance(atom, n.Integer) and bounds[0] <= atom.value <= bounds[1]:
            example = f"a number with its sign, like +{atom.value}"  # `2` where `+2` goes
        else:
            example = "a signed number like +1"
        return Miss(
            _NO_PATTERN,
            state.index,
            Problem(f"expected {example}, found {shown_atom(atom)!r}", atom.span),
        )
    low, high = bounds
    if not low <= atom.value <= high:
        state.problems.append(out_of_range(atom.value, low, high, kind.label, atom.span))
    state.args[slot.name] = atom.value
    state.index += 1
    return state


MAX_TEXT = 20_000
"""The longest quoted text a card may hold; longer cannot be printed on any card."""


def text_too_long(text: n.Text) -> Problem:
    """The problem of a quoted text longer than any card can show."""
    return Problem(
        f"this text is {len(text.value)} characters long; at most {MAX_TEXT} fit on a card",
        text.span,
        code="E0222",
    )


def cut(text: str, width: int = 40) -> str:
    """A text as a message quotes it: cut short when longer than `width` characters."""
    return text if len(text) <= width else text[: width // 2] + "..."


def shown_atom(atom: n.Atom) -> str:
    """An atom as a message quotes it: as written, cut short when long."""
    return cut(n.atom_source(atom))


def out_of_range(value: int, low: int, high: int, label: str, span: Span) -> Problem:
    """The problem of a number outside its bounds."""
    shown = cut(str(value), 24)
    return Problem(
        f"{shown} is out of range: the {label} here must be from {low} to {high}",
        span,
        code="E0203",
    )


def unknown_word(kind: SlotType, atom: n.Atom) -> Problem:
    """The problem of a word that is not in a slot's vocabulary, with a suggestion."""
    written = n.atom_source(atom)
    return Problem(
        f"'{cut(written)}' is not {with_article(kind.label)} this ruleset knows",
        atom.span,
        help=did_you_mean_or_list(written, kind.words, kind.label),
    )


def with_article(noun: str) -> str:
    """'a stat', 'an item type'."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to a misspelt word, or None when nothing is close."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return close[0]
    lowered = {c.lower(): c for c in options}
    return lowered.get(word.lower()) if len(word) > 2 else None


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """Suggest the closest of `choices`, as `help`, or None when nothing is close."""
    found = closest(word, choices)
    return f"did you mean '{found}'?" if found else None


def did_you_mean_or_list(word: str, choices: Iterable[str], noun: str) -> str | None:
    """The closest of `choices`, or when nothing is close, all of them (the first 40)."""
    options = sorted(set(choices))
    shown = ", ".join(options[:40]) + (
        f" and {len(options) - 40} more" if len(options) > 40 else ""
    )
    return did_you_mean(word, options) or (f"the {noun}s here: {shown}" if options else None)


_NO_PATTERN = Pattern("", "", ())


@dataclass(frozen=True)
class PatternTable:
    """The patterns of one category (verbs, properties...), indexed by their first word."""

    category: str
    patterns: tuple[Pattern, ...]
    by_head: dict[str, tuple[Pattern, ...]]
    headless: tuple[Pattern, ...]
    by_name: dict[str, Pattern]

    @classmethod
    def build(cls, category: str, patterns: Iterable[Pattern]) -> PatternTable:
        """Index patterns; those that start with a slot are tried for every phrase."""
        ordered = tuple(patterns)
        by_head: dict[str, list[Pattern]] = {}
        for pattern in ordered:
            if pattern.first_word is not None:
                by_head.setdefault(pattern.first_word, []).append(pattern)
        headless = tuple(p for p in ordered if p.first_word is None)
        by_name = {p.name: p for p in ordered}
        return cls(category, ordered, {k: tuple(v) for k, v in by_head.items()}, headless, by_name)

    @property
    def head_words(self) -> list[str]:
        """Every first word, for 'did you mean'."""
        return sorted(self.by_head)

    def listing(self, noun: str) -> str:
        """Every entry by its leading words and summary: the help when nothing is close."""
        rows = {p.head: p.summary for p in sorted(self.patterns, key=lambda p: p.head)}
        lines = [
            f"    {head}" + (f": {summary}" if summary else "") for head, summary in rows.items()
        ]
        return f"the {noun}s here:\n" + "\n".join(lines)

    def lookup(self, phrase: n.Phrase) -> tuple[Match | None, list[Miss]]:
        """Match a phrase; return the first pattern that fits, or every miss."""
        first = phrase.atoms[0]
        candidates: tuple[Pattern, ...] = ()
        if isinstance(first, n.Word):
            candidates = self.by_head.get(first.text, ())
        misses: list[Miss] = []
        for pattern in candidates + self.headless:
            result = match(pattern, phrase.atoms, phrase.span)
            if isinstance(result, Match):
                return result, []
            misses.append(result)
        return None, misses
