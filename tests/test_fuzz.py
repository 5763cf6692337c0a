"""Fuzz tests: no card file, pack.yaml or ruleset file, however broken, may make pillbox raise.

Every input is fed through the same stages `pillbox check` runs: parse, lower and schema-check
one file, then the cross-file passes, then the rendering of every diagnostic. Diagnostics are
the expected outcome for broken input; an exception escaping any stage is a bug.

Knobs, all environment variables:
- PILLBOX_FUZZ_EXAMPLES (default 60; this module's tests 12): examples per test; `make fuzz`
  sets 20000.
- PILLBOX_FUZZ_SHRINK (default: on from 1000 examples up): shrink a failure to a minimal input.
  Off in `make test`, where shrinking a slow input would take minutes.
- PILLBOX_FUZZ_SLOW_SECONDS (default 10): one input running longer fails with SlowInput
  instead of hanging the run.
- PILLBOX_FUZZ_MEMORY_MB (default 3072, Linux only): the process may grow this far past its
  size at start-up; an input that needs more fails with MemoryError instead of swapping.

Inputs that once crashed or hung pillbox are kept in tests/fuzz_corpus/ (`NAME.card`,
`NAME.pack.yaml`, `NAME.ruleset.yaml`) and re-run on every test run.
"""

from __future__ import annotations

import os
import re
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from io import StringIO
from pathlib import Path
from types import FrameType
from typing import Any

import lark
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from ruamel.yaml import YAML

from compiler import check as check_module
from compiler import ruleset as ruleset_module
from compiler.check import check_paths
from compiler.fmt import formatted
from compiler.lower import LoweredCard
from compiler.passes import run_passes
from compiler.render import render_text
from compiler.ruleset import Ruleset, load_ruleset
from dsl.spans import Diagnostic

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CORPUS = TESTS / "fuzz_corpus"
GRAMMAR_FILE = ROOT / "dsl" / "grammar.lark"
SPECIMEN_ROOTS = [TESTS / "specimens"]
SPECIMEN_FILES = sorted(p for root in SPECIMEN_ROOTS for p in root.glob("**/*.card"))
RULESET = "coma-ward"
RULESET_FILE = ROOT / "content" / RULESET / "ruleset.yaml"
VALID_CARD = 'item "Fuzz Scalpel" {\n    type weapon\n    hands 1\n    attack +1\n    damage 1\n}\n'

EXAMPLES = int(os.environ.get("PILLBOX_FUZZ_EXAMPLES", "60"))
CHECK_EXAMPLES = int(os.environ.get("PILLBOX_FUZZ_EXAMPLES", "12"))
"""This module's examples per test. The gate draws the same ones every run (conftest.py's
profile), so its draws are a fixed set of inputs, and more of them only check more of the same
kind: exploring is `make fuzz`'s, which draws afresh, thousands of each."""
SLOW_SECONDS = float(os.environ.get("PILLBOX_FUZZ_SLOW_SECONDS", "10"))
MEMORY_MB = int(os.environ.get("PILLBOX_FUZZ_MEMORY_MB", "3072"))
SHRINK = os.environ.get("PILLBOX_FUZZ_SHRINK", "1" if EXAMPLES >= 1000 else "0") != "0"

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    # The explain phase traces every line, which makes a slow input look like a hang.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    + ([Phase.shrink] if SHRINK else []),
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
        HealthCheck.function_scoped_fixture,
    ],
)
"""Shared by every fuzz test; the YAML tests write and load files, so they run fewer examples."""

KEYWORDS = [
    *("option", "choose", "may", "if", "else", "check", "roll", "repeat", "say", "rule"),
    *("test", "variant", "given", "use", "dice", "expect", "and", "or", "not"),
]


# ---------------------------------------------------------------- guarding one input


class SlowInput(AssertionError):
    """One input ran longer than the fuzz budget allows: a hang or a quadratic blow-up."""


def _address_space() -> int | None:
    """This process's virtual memory size in bytes, where /proc tells it."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


START_SIZE = _address_space()


@contextmanager
def _memory_cap() -> Iterator[None]:
    """Cap the process at its start-up size plus MEMORY_MB, so a blow-up is a MemoryError."""
    try:
        import resource
    except ImportError:  # not on this platform
        yield
        return
    if START_SIZE is None or MEMORY_MB <= 0:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = START_SIZE + MEMORY_MB * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def watchdog(what: str, seconds: float = SLOW_SECONDS) -> Iterator[None]:
    """Fail with SlowInput instead of hanging when one input runs past `seconds`."""
    alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    previous: Any = None

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise SlowInput(f"{what} ran longer than {seconds:g} s")

    if alarm:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.perf_counter()
    try:
        with _memory_cap():
            yield
    except SlowInput as error:
        # Raised wherever the alarm struck, often deep in a recursion whose full traceback
        # pytest cannot even print; the last frames say where the time went.
        frames = "".join(traceback.format_tb(error.__traceback__)[-12:])
        raise SlowInput(f"{error}; it was busy here:\n{frames}") from None
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - start
    if elapsed > seconds:
        raise SlowInput(f"{what} took {elapsed:.1f} s")


# ---------------------------------------------------------------- the pipeline under test


def check_one_file(ruleset: Ruleset, shown: str, text: str) -> Any:
    """Parse, lower and schema-check one file, as `pillbox check` does for each file."""
    legacy = getattr(check_module, "_check_file", None)
    if legacy is not None:
        return legacy(ruleset, shown, text)
    # The per-file stage moved to compiler.pipeline, with the IR schema check made optional.
    from compiler.pipeline import check_file

    return check_file(ruleset, shown, text, validate_ir=True)


@cache
def coma_ward() -> Ruleset:
    """The bundled ruleset every card input is checked against."""
    return load_ruleset(RULESET)


@cache
def specimen_cards() -> tuple[LoweredCard, ...]:
    """The good specimens, lowered once, so the cross-file passes see fuzz cards among them."""
    good = sorted((TESTS / "specimens" / "coma-ward").glob("*.card"))
    cards: list[LoweredCard] = []
    for path in good:
        text = path.read_text(encoding="utf-8")
        cards.extend(check_one_file(coma_ward(), path.name, text).cards)
    return tuple(cards)


def _render_all(diagnostics: list[Diagnostic], sources: dict[str, str]) -> None:
    """Sort and render every diagnostic the way `pillbox check` prints them."""
    for diagnostic in sorted(dict.fromkeys(diagnostics), key=Diagnostic.sort_key):
        render_text(diagnostic, sources)


FORMAT_FUZZ_CHARS = 50_000
"""Texts up to this size are formatted too; tests/test_fmt.py formats every corpus file."""


def check_card_text(text: str, seconds: float = SLOW_SECONDS) -> None:
    """Run one card file's text through every stage of `pillbox check`; raise only on bugs."""
    ruleset = coma_ward()
    shown = "fuzz.card"
    with watchdog(f"checking {len(text)} characters of card text", seconds):
        result = check_one_file(ruleset, shown, text)
        diagnostics = list(result.diagnostics)
        diagnostics += run_passes(ruleset, result.cards)
        diagnostics += run_passes(ruleset, [*specimen_cards(), *result.cards])
        _render_all(diagnostics, {shown: text})
        if len(text) <= FORMAT_FUZZ_CHARS:
            formatted(text, shown)  # fmt's safety checks hold (UnsafeFormat), or it declines


def _forget_loaded_rulesets() -> None:
    """Drop pillbox's in-memory ruleset cache: every example's ruleset is new, so it only grows."""
    for name in ("_load_cached", "_load_versioned"):
        clear = getattr(getattr(ruleset_module, name, None), "cache_clear", None)
        if clear is not None:
            clear()


def check_pack(
    manifest: str,
    ruleset_text: str | None = None,
    seconds: float = SLOW_SECONDS,
    cards: dict[str, str] | None = None,
) -> None:
    """Check a temporary pack: this pack.yaml, card files (default: one), maybe rules.yaml."""
    with tempfile.TemporaryDirectory(prefix="pillbox-fuzz-") as name:
        folder = Path(name) / "pack"
        folder.mkdir()
        (folder / "pack.yaml").write_bytes(manifest.encode("utf-8", "surrogatepass"))
        for card_name, card_text in (cards or {"cards.card": VALID_CARD}).items():
            (folder / card_name).write_text(card_text, encoding="utf-8")
        if ruleset_text is not None:
            (folder / "rules.yaml").write_bytes(ruleset_text.encode("utf-8", "surrogatepass"))
        # pillbox remembers valid YAML documents in its cache folder: never the user's real one.
        saved = os.environ.get("PILLBOX_CACHE_DIR")
        os.environ["PILLBOX_CACHE_DIR"] = str(Path(name) / "cache")
        try:
            with watchdog("checking a pack", seconds):
                report = check_paths([folder], use_cache=False)
                _render_all(report.diagnostics, report.sources)
        finally:
            if saved is None:
                del os.environ["PILLBOX_CACHE_DIR"]
            else:
                os.environ["PILLBOX_CACHE_DIR"] = saved
            if ruleset_text is not None:
                _forget_loaded_rulesets()


# ---------------------------------------------------------------- nasty pieces of text


def _digits(low: int, high: int) -> st.SearchStrategy[str]:
    """Digit strings from small numbers to thousands of digits."""
    return st.one_of(
        st.integers(0, 12).map(str),
        st.integers(low, high).map(str),
        st.builds(lambda d, k: d * k, st.sampled_from(["9", "1", "0"]), st.integers(20, 5000)),
    )


NUMBERS = _digits(0, 10**6)
WEIRD_CHARS = [
    "\x00",
    "\x01",
    "\x7f",
    "\r",
    "\r\n",
    "\t",
    "\f",
    "\v",
    "\x1c",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\u00a0",
    "\u200b",
    "\u202e",
    "é",
    "ß",
    "İ",
    "ǅ",
    "ﬁ",
    "𝔘",
    "😱",
    "\U0010ffff",
    "٣",
    "²",
    "½",
    "Ⅻ",
    "\u0301",
    "\\",
    '\\"',
    "\\u0000",
    "'",
    "`",
    "$",
    "%",
    "&",
    "*",
    "@",
]
PUNCTUATION = [
    "{",
    "}",
    "{{",
    "}}",
    "{ }",
    '"',
    '""',
    "#",
    ";",
    ";;",
    "\n",
    "\n\n",
    ",",
    ",,",
    "..",
    "+",
    "-",
    "--",
    "=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "d",
    "d0",
    "d1",
    "0d6",
    "2d0",
    "0..0",
    "5..1",
    "0+",
    "-0",
    "+0",
    "6+",
    "1..6",
]
DEEP_UNITS = [
    "may { ",
    "{ ",
    "}",
    "{",
    "choose { ",
    'option "x" { ',
    "if terror > 1 { ",
    "if a { ",
    "repeat 2 { ",
    "roll d6 { 1..6 { ",
    "check focus { 0+ { ",
    "} else ",
    "else if a { ",
    '"',
    "(",
    "[",
    "may ",
    "not ",
    "a and ",
    "a or ",
    "-",
    "d",
    "#",
    "\n",
    ";",
    "\\",
    'item "x" { ',
    'test "t" { ',
    "given ",
    "dice 1 ",
]


def _word_list() -> list[str]:
    """Every word and quoted text of the specimens, to keep generated phrases plausible."""
    found: set[str] = set(KEYWORDS)
    for path in SPECIMEN_FILES:
        found.update(re.findall(r"[^\W\d][\w'-]*", path.read_text(encoding="utf-8")))
    return sorted(found)


def _string_list() -> list[str]:
    """Every quoted text of the specimens."""
    found: set[str] = set()
    for path in SPECIMEN_FILES:
        found.update(re.findall(r'"(?:[^"\\\n]|\\.)*"', path.read_text(encoding="utf-8")))
    return sorted(found) or ['"x"']


VOCABULARY = _word_list()
STRINGS = _string_list()

nasty_snippets: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(WEIRD_CHARS + PUNCTUATION + KEYWORDS),
    st.sampled_from(VOCABULARY),
    st.sampled_from(STRINGS),
    NUMBERS,
    st.builds(lambda a, b: f"{a}d{b}", st.sampled_from(["", "1", "0"]) | NUMBERS, NUMBERS),
    st.builds(lambda a, b: f"{a}..{b}", NUMBERS, NUMBERS),
    st.builds(lambda s, a: f"{s}{a}", st.sampled_from("+-"), NUMBERS),
    st.builds(lambda a: f"{a}+", NUMBERS),
    st.builds(lambda u, k: u * k, st.sampled_from(DEEP_UNITS), st.integers(1, 6000)),
    st.text(st.characters(codec="utf-8"), max_size=12),
    st.builds(lambda k: '"' + "x" * k, st.integers(0, 100_000)),
)
"""Bits of text that stress the lexer, the number handling and the nesting limits."""


# ---------------------------------------------------------------- generated from the grammar


@cache
def grammar() -> lark.Lark:
    """The card grammar as a Lark parser, as `make grammar` builds the shipped one."""
    return lark.Lark(GRAMMAR_FILE.read_text(encoding="utf-8"), parser="lalr", lexer="contextual")


def _spaced(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A token with blanks around it mostly, so adjacent generated tokens rarely fuse."""
    blank = st.sampled_from(["", " ", " ", " ", "\t"])
    return st.tuples(blank, inner, blank).map("".join)


def _explicit_terminals() -> dict[str, st.SearchStrategy[str]]:
    """Strategies for the grammar's terminals that make generated files look like cards."""
    terminals = {t.name: t for t in grammar().terminals}
    word_re = terminals["WORD"].pattern.to_regexp()
    string_re = terminals["STRING"].pattern.to_regexp()
    explicit: dict[str, st.SearchStrategy[str]] = {
        "_SEP": st.sampled_from(["\n", ";", "\n\n", "\n    ", "; ", "\n# note\n", "\n\t\n  "]),
        "WORD": _spaced(st.sampled_from(VOCABULARY) | st.from_regex(word_re, fullmatch=True)),
        "STRING": _spaced(st.sampled_from(STRINGS) | st.from_regex(string_re, fullmatch=True)),
        "INT": _spaced(NUMBERS),
        "SIGNED": _spaced(st.builds(lambda s, a: f"{s}{a}", st.sampled_from("+-"), NUMBERS)),
        "RANGE": _spaced(st.builds(lambda a, b: f"{a}..{b}", NUMBERS, NUMBERS)),
        "OPEN_RANGE": _spaced(st.builds(lambda a: f"{a}+", NUMBERS)),
        "DICE_NOTATION": _spaced(
            st.builds(
                lambda a, b: f"{a}d{b}", st.sampled_from(["", "1", "2", "3"]) | NUMBERS, NUMBERS
            )
        ),
        "CMP": _spaced(st.sampled_from(["==", "!=", ">=", "<=", "<", ">"])),
        # Ignored anywhere; Hypothesis's own regex strategies for these are slow to draw.
        "WS": st.sampled_from([" ", "\t", "  ", "\f", "\r"]),
        "COMMENT": st.sampled_from([" ", " ", " ", "# note\n", "#\n"]),
    }
    for name, terminal in terminals.items():
        if name not in explicit:
            literal = terminal.pattern.value if terminal.pattern.type == "str" else None
            if literal is not None:
                explicit[name] = _spaced(st.just(literal))
    return explicit


def _from_grammar(start: str | None = None) -> st.SearchStrategy[str]:
    """Text the grammar derives from `start`, with the explicit terminals it uses."""
    explicit = _explicit_terminals()
    if start is not None:
        kept, _, _ = grammar().grammar.compile([start], ())
        names = {t.name for t in kept}
        explicit = {k: v for k, v in explicit.items() if k in names}
    return from_lark(grammar(), start=start, explicit=explicit)


# ---------------------------------------------------------------- cards from specimen lines


CONTROL = ("roll", "test", "choose", "may", "repeat", "option", "else")


@cache
def specimen_pieces() -> dict[str, list[str]]:
    """Lines of the specimens by role: plain lines, block headers, conditions, check phrases."""
    found: dict[str, set[str]] = {k: set() for k in ("line", "header", "if", "check", "given")}
    for text in specimen_texts():
        for raw in text.splitlines():
            line = raw.split(" #")[0].strip()
            if not line or line.startswith(("#", "}")) or not raw[:1].isspace():
                continue
            head, _, rest = line.partition(" ")
            if head in ("if", "check") and line.endswith("{"):
                found[head].add(rest[:-1].strip())
            elif head == "expect":
                found["if"].add(rest)
            elif head == "given":
                found["given"].add(rest)
            elif line.endswith("{") and head not in CONTROL and not head[:1].isdigit():
                found["header"].add(line[:-1].strip())
            elif "{" not in line and "}" not in line and head not in ("choose", "dice", "use"):
                found["line"].add(line)
    return {k: sorted(v) or ["x"] for k, v in found.items()}


def _with_numbers(pool: list[str]) -> st.SearchStrategy[str]:
    """Lines from a pool, sometimes with their first number swapped for a nasty one."""
    numbered = [p for p in pool if re.search(r"\d", p)] or pool
    return st.sampled_from(pool) | st.builds(
        lambda line, number: re.sub(r"\d+", number, line, count=1),
        st.sampled_from(numbered),
        NUMBERS,
    )


def _block(inner: st.SearchStrategy[str], max_size: int = 4) -> st.SearchStrategy[str]:
    """A braced block of statements, one a line."""
    return st.lists(inner, max_size=max_size).map(lambda xs: "{\n" + "\n".join(xs) + "\n}")


SMALL = st.integers(0, 12).map(str) | NUMBERS
TITLES = st.sampled_from(STRINGS)


def _tests() -> st.SearchStrategy[str]:
    """`test` blocks with steps built from specimen lines and nasty numbers."""
    pieces = specimen_pieces()
    step = st.one_of(
        _with_numbers(pieces["given"]).map(lambda g: f"given {g}"),
        st.lists(_with_numbers(pieces["given"]), min_size=2, max_size=3).map(
            lambda gs: "given " + ", ".join(gs)
        ),
        TITLES.map(lambda t: f"choose {t}"),
        st.sampled_from(["choose yes", "choose no", "choose maybe"]),
        TITLES.map(lambda t: f"use {t}"),
        st.lists(SMALL, min_size=1, max_size=6).map(lambda ds: "dice " + " ".join(ds)),
        _with_numbers(pieces["if"]).map(lambda c: f"expect {c}"),
    )
    return st.builds(lambda t, b: f"test {t} {b}", TITLES, _block(step, 6))


def _statements() -> st.SearchStrategy[str]:
    """Effects built from specimen lines and every control form, nested."""
    pieces = specimen_pieces()
    label = st.one_of(
        SMALL,
        st.builds(lambda a, b: f"{a}..{b}", SMALL, SMALL),
        SMALL.map(lambda a: f"{a}+"),
        st.sampled_from(["success", "failure", "hit", "miss", "else"]),
    )
    dice = st.builds(lambda a, b: f"{a}d{b}", st.sampled_from(["", "1", "2", "3"]) | SMALL, SMALL)
    condition = _with_numbers(pieces["if"])
    lines = _with_numbers(pieces["line"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        block = _block(inner)
        outcomes = _block(st.builds(lambda lb, b: f"{lb} {b}", label, block), 5)
        return st.one_of(
            block.map(lambda b: f"may {b}"),
            _block(st.builds(lambda t, b: f"option {t} {b}", TITLES, block)).map(
                lambda b: f"choose {b}"
            ),
            st.builds(
                lambda c, b, elifs, other: f"if {c} {b}{elifs}{other}",
                condition,
                block,
                st.lists(
                    st.builds(lambda c, b: f" else if {c} {b}", condition, block), max_size=2
                ).map("".join),
                st.just("") | block.map(lambda b: f" else {b}"),
            ),
            st.builds(lambda d, o: f"roll {d} {o}", dice, outcomes),
            st.builds(lambda c, o: f"check {c} {o}", _with_numbers(pieces["check"]), outcomes),
            st.builds(lambda k, b: f"repeat {k} {b}", SMALL, block),
            # Now and then something that belongs elsewhere.
            st.builds(lambda h, b: f"{h} {b}", st.sampled_from(pieces["header"]), block),
            _tests(),
        )

    leaf = st.one_of(
        lines,
        lines.map(lambda line: f"may {line}"),
        TITLES.map(lambda t: f"say {t}"),
        TITLES.map(lambda t: f"rule {t}"),
    )
    return st.recursive(leaf, extend, max_leaves=25)


def _card_items() -> st.SearchStrategy[str]:
    """What a card holds: properties, blocks with a header, options, tests, text."""
    pieces = specimen_pieces()
    block = _block(_statements())
    return st.one_of(
        _with_numbers(pieces["line"]),
        st.builds(lambda h, b: f"{h} {b}", st.sampled_from(pieces["header"]), block),
        st.builds(lambda t, b: f"option {t} {b}", TITLES, block),
        _tests(),
        TITLES.map(lambda t: f"rule {t}"),
        TITLES.map(lambda t: f"say {t}"),
    )


@cache
def card_files() -> st.SearchStrategy[str]:
    """Card files: from the grammar, real kinds with grammar bodies, or from specimen lines."""
    kinds = sorted(coma_ward().kinds)
    variant = st.sampled_from(["", " variant 1", " variant 2"]) | st.builds(
        lambda k: f" variant {k}", NUMBERS
    )
    card = st.builds(
        lambda kind, title, var, block: f"{kind} {title}{var} {block}",
        st.sampled_from(kinds),
        st.sampled_from(STRINGS),
        variant,
        _from_grammar("block"),
    )
    known_kinds = st.lists(card, min_size=1, max_size=4).map("\n".join)
    plausible = st.builds(
        lambda kind, title, var, body: f"{kind} {title}{var} {{\n" + "\n".join(body) + "\n}",
        st.sampled_from(kinds),
        st.sampled_from(STRINGS),
        variant,
        st.lists(_card_items(), max_size=8),
    )
    from_specimens = st.lists(plausible, min_size=1, max_size=4).map("\n".join)
    return st.one_of(_from_grammar(), known_kinds, from_specimens)


# ---------------------------------------------------------------- mutations of real files

FLOOD_CHARS = 60_000
"""How much text one flooding mutation may add: enough to expose quadratic work."""

TOKEN_RE = re.compile(
    r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|\d*d\d+|\d+(?:\.\.\d+|\+)?|[+-]\d+'
    r"|[^\W\d][\w'-]*|==|!=|>=|<=|\s+|.",
    re.S,
)


def tokens_of(text: str) -> list[str]:
    """Cut text into card-language tokens and the blanks between them; they join back to it."""
    return TOKEN_RE.findall(text)


@st.composite
def mutated(draw: st.DrawFn, text: str, snippets: st.SearchStrategy[str]) -> str:
    """Text with tokens deleted, duplicated, swapped, replaced or inserted, maybe truncated."""
    tokens = tokens_of(text)
    for _ in range(draw(st.integers(1, 8))):
        op = draw(
            st.sampled_from(
                ["delete", "duplicate", "swap", "replace", "insert", "splice", "cut", "flood"]
            )
        )
        if not tokens:
            tokens = [draw(snippets)]
            continue
        i = draw(st.integers(0, len(tokens) - 1))
        if op == "delete":
            del tokens[i : i + draw(st.integers(1, 3))]
        elif op == "duplicate":
            tokens[i:i] = tokens[i : i + draw(st.integers(1, 3))] * draw(st.integers(1, 3))
        elif op == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif op == "replace":
            tokens[i] = draw(snippets)
        elif op == "insert":
            tokens.insert(i, draw(snippets))
        elif op == "splice":
            j = draw(st.integers(i, min(len(tokens), i + 40)))
            tokens.insert(draw(st.integers(0, len(tokens))), "".join(tokens[i:j]))
        elif op == "cut":
            joined = "".join(tokens)
            tokens = tokens_of(joined[: draw(st.integers(0, len(joined)))])
        elif op == "flood":
            # A stretch repeated thousands of times: whatever is quadratic in it shows.
            j = draw(st.integers(i + 1, min(len(tokens), i + 12)))
            stretch = max(1, len("".join(tokens[i:j])))
            copies = draw(st.integers(2, max(2, FLOOD_CHARS // stretch)))
            tokens[i:i] = tokens[i:j] * copies
    return "".join(tokens)


@cache
def good_specimens() -> dict[str, str]:
    """The card files of the good coma-ward specimen pack, by name."""
    folder = TESTS / "specimens" / "coma-ward"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.card"))}


@cache
def specimen_texts() -> tuple[str, ...]:
    """Every specimen card file, good and bad."""
    return tuple(p.read_text(encoding="utf-8") for p in SPECIMEN_FILES)


@cache
def mutated_specimens() -> st.SearchStrategy[str]:
    """A specimen card file, mutated a few times."""
    return st.sampled_from(specimen_texts()).flatmap(lambda t: mutated(t, nasty_snippets))


# ---------------------------------------------------------------- YAML: pack.yaml and rulesets

GOOD_MANIFEST = {
    "pack": "fuzz-pack",
    "title": "Fuzzed pack",
    "version": "0.1.0",
    "ruleset": RULESET,
    "sources": ["**/*.card"],
    "print": {"card": "poker", "paper": "a4", "bleed": "3mm", "marks": "crop"},
}
TRICKY_PATHS = [
    "coma-ward",
    "base",
    "nope",
    "pack.yaml",
    "./pack.yaml",
    "cards.card",
    "rules.yaml",
    "../rules.yaml",
    "/etc/passwd",
    "/dev/zero",
    ".",
    "..",
    "./",
    "sub/",
    "a\x00.yaml",
    "a\x00",
    "x" * 300 + ".yaml",
    "~/x.yaml",
    "C:\\x.yaml",
    "*",
    "**",
    "**/*.card",
    "*.card",
    "a**",
    "**a",
    "a/**b/*.card",
    "",
    "/",
    "/*",
    "../*",
    "[",
    "[!",
    "{a,b}",
    "cards.card/x",
    "\n",
    " ",
    "..\\x",
    "%2e%2e/x",
    "é.card",
    "\u202e.card",
]
YAML_TAGS = [
    "!!str",
    "!!int",
    "!!float",
    "!!bool",
    "!!null",
    "!!binary",
    "!!timestamp",
    "!!set",
    "!!omap",
    "!!pairs",
    "!!seq",
    "!!map",
    "!!merge",
    "!!value",
    "!custom",
    "!!python/object/apply:os.system",
    "!!python/name:os.system",
    "!<tag:yaml.org,2002:int>",
]
YAML_SCALARS = [
    "~",
    "null",
    "true",
    "no",
    "off",
    "y",
    "0x1F",
    "0o17",
    "0b101",
    "1_000",
    ".inf",
    "-.inf",
    ".nan",
    "1e400",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "12:30:45",
    "=",
    "<<",
    "*undefined",
    "&",
    "*",
    "!",
    "|",
    ">",
    "@x",
    "`x`",
    "'",
    '"',
    "'unterminated",
    '"\\x"',
    '"\\0\\a\\e\\N\\L\\P\\uD800"',
    "9" * 5000,
    "1" + "0" * 200,
    "-" + "9" * 30,
    "0.1.0",
    "1.0",
    "1",
    "-1",
    "a" * 70,
    "UPPER",
    "has space",
    "-leading-hyphen",
    r'"rules\0.yaml"',
    r'"coma\0ward"',
    r'"\0"',
    r'"\t"',
]


def _yaml_values(strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Values of every YAML type, nested a little."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(10**120), 10**120),
        st.floats(allow_nan=True, allow_infinity=True),
        strings,
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20),
    )
    keys = st.text(max_size=8) | st.sampled_from(["kinds", "pattern", "min", "max", "from"])
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=12,
    )


def dump_yaml(data: Any) -> str:
    """Write data as YAML text; values YAML cannot hold are written as their repr."""
    yaml = YAML(typ="safe", pure=True)
    yaml.allow_unicode = True
    yaml.default_flow_style = None
    out = StringIO()
    try:
        yaml.dump(data, out)
    except Exception:  # the dumper, not pillbox, failed: fall back to repr
        return repr(data)
    return out.getvalue()


def _paths_in(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every mapping entry and list item in nested data, the root included."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths_in(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths_in(value, (*prefix, index))
    return found


NASTY_INTS = [0, -1, 1, 2, 99, 100, 101, 10**6, 2**31, 2**63, 10**18, 10**100, -(10**100)]


@st.composite
def edited(draw: st.DrawFn, data: Any, values: st.SearchStrategy[Any]) -> Any:
    """A deep copy of data with a few entries replaced, deleted, renamed, borrowed or added.

    Borrowing a value from elsewhere in the same document and renaming keys keep the types
    right, so the edit gets past the schema and reaches the cross-references behind it.
    """
    import copy

    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 5))):
        paths = _paths_in(data)
        path = draw(st.sampled_from(paths))
        if not path:
            data = draw(values) if draw(st.integers(0, 9)) == 0 else data
            continue
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        op = draw(
            st.sampled_from(
                ["replace", "delete", "add", "wrap", "null", "borrow", "borrow", "rename", "number"]
            )
        )
        if op == "replace":
            parent[key] = draw(values)
        elif op == "delete":
            del parent[key]
        elif op == "null":
            parent[key] = None
        elif op == "wrap":
            parent[key] = draw(st.sampled_from([[parent[key]], {"x": parent[key]}]))
        elif op == "borrow":
            source = draw(st.sampled_from(paths))
            value: Any = data
            for step in source:
                value = value[step]
            parent[key] = copy.deepcopy(value)
        elif op == "number":
            parent[key] = draw(st.sampled_from(NASTY_INTS))
        elif op == "rename" and isinstance(parent, dict):
            names = sorted({str(p[-1]) for p in paths if p and isinstance(p[-1], str)})
            new_key = draw(st.sampled_from(names) | st.text(max_size=10))
            parent[new_key] = parent.pop(key)
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=10) | st.sampled_from(["kinds", "x"]))] = draw(values)
        else:
            parent.insert(key, draw(values))
    return data


def _bomb(levels: int, width: int, key: str) -> str:
    """A billion-laughs document whose last alias sits under `key`."""
    lines = ['a0: &a0 ["lol", "lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append(f"{key}: *a{levels}")
    return "\n".join(lines) + "\n"


def _deep(depth: int, style: str) -> str:
    """Nesting `depth` levels deep, in flow or block style."""
    if style == "flow-list":
        return "[" * depth + "]" * depth
    if style == "flow-map":
        return "{a: " * depth + "1" + "}" * depth
    if style == "block-map":
        return "\n".join("  " * i + "a:" for i in range(depth)) + " 1"
    return "\n".join("  " * i + "-" for i in range(depth)) + " 1"


def _manifest_with(key: str, value_text: str) -> str:
    """A good pack.yaml whose `key` holds the given YAML text."""
    lines = [f"{k}: {v}" for k, v in GOOD_MANIFEST.items() if k not in (key, "print", "sources")]
    return "\n".join(lines) + f"\n{key}: {value_text}\n"


def yaml_documents(good: Any, keys: list[str]) -> st.SearchStrategy[str]:
    """YAML text: edited good data, mutated good text, alias bombs, deep nesting, odd tags."""
    good_text = dump_yaml(good)
    scalar = st.sampled_from(TRICKY_PATHS + YAML_SCALARS)
    quoted = scalar.map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\0", "\\0") + '"'
    )

    def with_key(key: str, value_text: str) -> str:
        """The good document with `key` holding the given YAML text."""
        rest = {k: v for k, v in good.items() if k != key}
        return dump_yaml(rest) + f"{key}: {value_text}\n"

    one_field = st.builds(with_key, st.sampled_from(keys), quoted | scalar) | st.builds(
        lambda k, items: with_key(k, "[" + ", ".join(items) + "]"),
        st.sampled_from(keys),
        st.lists(quoted, min_size=1, max_size=3),
    )
    strings = st.sampled_from(TRICKY_PATHS + YAML_SCALARS) | nasty_snippets
    values = _yaml_values(strings)
    key = st.sampled_from(keys)
    structured = edited(good, values).map(dump_yaml)
    text = mutated(good_text, st.sampled_from(YAML_SCALARS + YAML_TAGS) | nasty_snippets)
    bombs = st.builds(
        lambda levels, width, k, rest: rest + _bomb(levels, width, k),
        st.integers(1, 12),
        st.integers(1, 12),
        key,
        st.just("") | st.just(good_text),
    )
    # A nesting guard that reads the text itself must also get quotes and comments right.
    lead_in = st.sampled_from(["", "", "[it's, ", '["a\\"", ', "['a''b', ", "# it's\n", '"\\\\" '])
    deep = st.builds(
        lambda k, lead, depth, style: f"{k}: {lead}" + _deep(depth, style),
        key,
        lead_in,
        st.integers(1, 3000),
        st.sampled_from(["flow-list", "flow-map", "block-map", "block-list"]),
    ) | st.builds(lambda depth: _deep(depth, "flow-map"), st.integers(40, 3000))
    tagged = st.builds(
        lambda k, tag, scalar: f"{k}: {tag} {scalar}\n",
        key,
        st.sampled_from(YAML_TAGS),
        st.sampled_from(YAML_SCALARS),
    )
    oddities = st.sampled_from(
        [
            "",
            "---\n...\n",
            "--- a\n--- b\n",
            "%YAML 1.1\n---\npack: x\n",
            "%YAML 9.9\n---\n{}\n",
            "%TAG ! tag:x,2000:\n--- !a {}\n",
            "base: &b {pack: x, title: t}\nthis:\n  <<: *b\n",
            "<<: [*u]\n",
            "<<: 1\n",
            "<<: [1, 2]\n",
            "? [a, b]\n: c\n",
            "? {a: b}\n: c\n",
            "pack: a\npack: b\n",
            "a: &x\n  b: *x\n",
            "&x [*x]\n",
            "\ufeffpack: x\n",
            "pack:\tx\n",
            "pack: |\n  \x00\n",
            "!!set {a, b}\n",
            "!!omap [a: 1, a: 2]\n",
            "[1, 2, 3]\n",
            "just text\n",
            "!!binary AAAA\n",
            "!!python/object/apply:os.system ['true']\n",
        ]
    )
    return st.one_of(structured, text, bombs, deep, tagged, oddities, one_field)


@cache
def manifests() -> st.SearchStrategy[str]:
    """Broken pack.yaml texts of every sort."""
    return yaml_documents(GOOD_MANIFEST, list(GOOD_MANIFEST))


@cache
def good_ruleset() -> Any:
    """The bundled ruleset file as plain data, the starting point for ruleset mutations."""
    return YAML(typ="safe", pure=True).load(RULESET_FILE.read_text(encoding="utf-8"))


@cache
def ruleset_files() -> st.SearchStrategy[str]:
    """Broken ruleset files, edited from the bundled coma-ward ruleset."""
    good = good_ruleset()
    return yaml_documents(good, list(good))


RULES_MANIFEST = _manifest_with("ruleset", "rules.yaml")


# ---------------------------------------------------------------- the tests


@settings(FUZZ_SETTINGS, max_examples=CHECK_EXAMPLES)
@given(text=st.deferred(lambda: card_files()))
def test_generated_card_files_never_raise(text: str) -> None:
    """Card files the grammar derives (and near misses) give diagnostics, never exceptions."""
    check_card_text(text)


@settings(FUZZ_SETTINGS, max_examples=CHECK_EXAMPLES)
@given(text=st.deferred(lambda: mutated_specimens()))
def test_mutated_specimens_never_raise(text: str) -> None:
    """Specimens with tokens deleted, doubled, swapped, cut or garbage added never raise."""
    check_card_text(text)


@settings(FUZZ_SETTINGS, max_examples=max(1, CHECK_EXAMPLES // 2))
@given(manifest=st.deferred(lambda: manifests()))
def test_mutated_pack_yaml_never_raises(manifest: str) -> None:
    """A pack whose pack.yaml is broken in any way gives diagnostics, never exceptions."""
    check_pack(manifest)


@settings(FUZZ_SETTINGS, max_examples=max(1, CHECK_EXAMPLES // 4))
@given(ruleset_text=st.deferred(lambda: ruleset_files()))
def test_mutated_ruleset_file_never_raises(ruleset_text: str) -> None:
    """A pack whose own ruleset file is broken gives diagnostics, never exceptions."""
    check_pack(RULES_MANIFEST, ruleset_text, cards=good_specimens())


def _corpus(pattern: str) -> list[Path]:
    """Corpus files matching a pattern, if the corpus folder exists."""
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []


def _read(path: Path) -> str:
    """A corpus file exactly as written: no newline translation."""
    return path.read_bytes().decode("utf-8")


CORPUS_SECONDS = min(SLOW_SECONDS, 5.0)
"""A corpus input is small: even on a slow machine it must check well within this."""

CORPUS_RUNNERS: dict[str, Callable[[str], None]] = {
    ".card": lambda text: check_card_text(text, CORPUS_SECONDS),
    ".pack.yaml": lambda text: check_pack(text, seconds=CORPUS_SECONDS),
    ".ruleset.yaml": lambda text: check_pack(
        RULES_MANIFEST, text, CORPUS_SECONDS, cards=good_specimens()
    ),
}


@pytest.mark.parametrize(
    "path",
    [p for suffix in CORPUS_RUNNERS for p in _corpus(f"*{suffix}")],
    ids=lambda p: p.name,
)
def test_fuzz_corpus_never_raises(path: Path) -> None:
    """Inputs that once crashed or hung pillbox: kept so the bug stays fixed."""
    runner = next(r for suffix, r in CORPUS_RUNNERS.items() if path.name.endswith(suffix))
    runner(_read(path))
