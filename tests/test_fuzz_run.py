"""Run fuzz: every pack that checks clean compiles, plays, runs its tests and reads aloud.

For each pack that `pillbox check` accepts with no errors:
1. `compile_pack` raises nothing;
2. the generated source of each file (`ast.unparse`) parses and compiles again;
3. every card plays with `Game.play` under `RandomDecisions(seed)` and `SeededDice(seed)`,
   for a few seeds and a small step budget, in a fresh game and all in one game; the only
   exception allowed is `RunawayError` (a runaway is a legitimate diagnostic);
4. every `test` block runs through `run_test` without an exception escaping, nor one that
   `run_test` caught from the runtime and reported as a failure (a test may fail on its own
   terms: wrong dice, answers, expectations);
5. `card_text` renders every card, and `pack_text` the whole pack;
6. the same seed gives the same `game.log.to_json()` twice.

The packs: cards built from the coma-ward ruleset's own vocabulary (valid by construction,
mostly: the few the checker rejects are skipped), the specimen pack, and specimen files
mutated as tests/test_fuzz.py mutates them (kept when they still check clean).

The knobs are those of tests/test_fuzz.py (PILLBOX_FUZZ_EXAMPLES and friends); `make fuzz`
runs this file too. Inputs that once crashed the compiled code, the runtime or the rules text
are kept in tests/fuzz_corpus/ as `NAME.run.card` and replayed on every run; a first line
`# seeds: 3 17` names the seeds to replay them with (default 0 to 4).
"""

from __future__ import annotations

import ast
import linecache
import re
import tempfile
from collections.abc import Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.lower import MAX_REPEAT
from compiler.patterns import Literal, Optional, Pattern, Slot, SlotType
from compiler.rulestext import card_text, pack_text
from dsl.parser import _unescape
from runtime.cards import CardDef
from runtime.decisions import RandomDecisions
from runtime.dice import SeededDice
from runtime.game import Game, RunawayError
from runtime.testing import run_test, runtime_failure
from tests.conftest import good_packs
from tests.helpers import make_pack
from tests.test_fuzz import (
    CORPUS,
    EXAMPLES,
    FUZZ_SETTINGS,
    SLOW_SECONDS,
    VOCABULARY,
    _corpus,
    _read,
    coma_ward,
    good_specimens,
    mutated,
    nasty_snippets,
    watchdog,
)

BUDGET = 2_000
"""Steps one play may take: small, so a looping card is stopped quickly as a runaway."""

RUNTIME_FAILED = runtime_failure(Exception()).split(":")[0]
"""How run_test words an exception it caught from the runtime: a bug, here."""

REPLAY_SEEDS = (0, 1, 2, 3, 4)
SEEDS = st.lists(st.integers(0, 2**32 - 1), min_size=2, max_size=3, unique=True)

# ---------------------------------------------------------------- the properties


def exercise(pack: CompiledPack, seeds: Sequence[int]) -> None:
    """Properties 1 to 6 over a compiled pack; raise on the first that does not hold."""
    for compiled_file in pack.files:
        source = compiled_file.source()
        compile(ast.parse(source), compiled_file.file, "exec", dont_inherit=True)
    ruleset = pack.checked.ruleset
    for card in pack.checked.cards:
        card_text(ruleset, card)
    pack_text(ruleset, pack.checked.cards)
    for card in pack.cards:
        for seed in seeds:
            assert _play(pack, [card], seed) == _play(pack, [card], seed), (
                f"{card.label}: seed {seed} gave two different logs"
            )
        new_game = partial(pack.new_game, budget=BUDGET)
        for test in card.tests:
            failure = run_test(new_game, card, test).failure or ""
            # A test may fail, but not because the runtime itself broke (which run_test
            # reports as a failure rather than let one card stop the others).
            assert not failure.startswith(RUNTIME_FAILED), f"{card.label}: {failure}"
    for seed in seeds:
        everything = _play(pack, pack.cards, seed)
        assert everything == _play(pack, pack.cards, seed), f"seed {seed} gave two different logs"


def _play(pack: CompiledPack, cards: Sequence[CardDef], seed: int) -> list[dict[str, Any]]:
    """Play the cards one after another in one fresh game; its log as JSON."""
    game: Game = pack.new_game(
        seed=seed, dice=SeededDice(seed), decisions=RandomDecisions(seed), budget=BUDGET
    )
    try:
        for card in cards:
            game.play(card)
    except RunawayError as error:
        return [*game.log.to_json(), {"runaway": str(error)}]
    return game.log.to_json()


def run_pack(folder: Path, seeds: Sequence[int], seconds: float = SLOW_SECONDS) -> bool:
    """Check a pack folder; if it checks clean, exercise it. Whether it checked clean."""
    with watchdog("checking and running a pack", seconds):
        loaded = load_checked(folder)
        if loaded.pack is None:
            return False
        try:
            exercise(compile_pack(loaded.pack), seeds)
        finally:
            for shown in loaded.sources:  # compiled files register their text: forget it
                linecache.cache.pop(shown, None)
    return True


def run_cards(cards: dict[str, str], seeds: Sequence[int], seconds: float = SLOW_SECONDS) -> bool:
    """Write card files as a temporary coma-ward pack and run it; whether it checked clean."""
    with tempfile.TemporaryDirectory(prefix="pillbox-fuzz-run-") as name:
        folder = make_pack(Path(name) / "pack", **cards)
        return run_pack(folder, seeds, seconds)


# ---------------------------------------------------------------- cards from the vocabulary

ODD_TEXT = [
    "{CARDS}",
    "__builtins__",
    "'; import os; '",
    "\\\\",
    '\\"',
    "\\n",
    "\\t",
    "\\{",
    "it's",
    "é",
    "😱",
    "\u202e",
    "\u00a0",
    "\u2028",
    "\x85",
    "\x0c",
    "%s",
    "{0}",
    "[a|b]",
    "{stat}",
]
"""Pieces of quoted text that a naive code generator or template filler would trip over.

No raw `\r` (pillbox reads it as a line end, which a string cannot hold) and no NUL (a file
holding one is rejected as binary): those are for tests/test_fuzz.py.
"""

_TEXT = st.lists(
    st.sampled_from(VOCABULARY) | st.sampled_from(ODD_TEXT),
    min_size=1,
    max_size=6,
).map(" ".join)
TITLES = _TEXT.filter(lambda t: _unescape(quoted(t)).strip() != "")


def quoted(text: str) -> str:
    """Card-language quotes around text already escaped."""
    return f'"{text}"'


@cache
def _rules() -> Any:
    return coma_ward()


def _fillable(elements: Sequence[Any]) -> bool:
    """Whether every slot outside optional parts has a word to take (a game without tracks has
    no word for a `{track}` slot)."""
    return all(
        not isinstance(e, Slot) or e.type.vocabulary is None or e.type.words for e in elements
    )


def writable(patterns: Sequence[Pattern]) -> list[Pattern]:
    """The patterns a card of this ruleset can write."""
    return [pattern for pattern in patterns if _fillable(pattern.elements)]


def _slot_value(draw: st.DrawFn, kind: SlotType) -> tuple[Any, str]:
    """A value a slot accepts, and how a card writes it."""
    if kind.vocabulary is not None:
        words = sorted(kind.words)
        if kind.repeat:
            picked = draw(st.lists(st.sampled_from(words), min_size=1, unique=True))
            return picked, " ".join(picked)
        word = draw(st.sampled_from(words))
        return word, word
    if kind.text:
        text = draw(_TEXT)
        return text, quoted(text)
    if kind.signed is not None:
        value = draw(st.integers(*kind.signed))
        return value, f"{value:+d}"
    low, high = kind.integer or (0, 9)
    value = draw(st.integers(low, high))
    return value, str(value)


def _fill(draw: st.DrawFn, elements: Sequence[Any], args: dict[str, Any]) -> list[str]:
    words: list[str] = []
    for element in elements:
        if isinstance(element, Literal):
            words.append(element.word)
        elif isinstance(element, Slot):
            value, written = _slot_value(draw, element.type)
            args[element.name] = value
            words.append(written)
        elif isinstance(element, Optional) and _fillable(element.elements) and draw(st.booleans()):
            words += _fill(draw, element.elements, args)
    return words


def phrase(draw: st.DrawFn, pattern: Pattern, example: bool = True) -> tuple[str, dict[str, Any]]:
    """A phrase the pattern accepts, with random slot values; `pattern.example()` now and then
    (whose slot values are not known: `example=False` when they are needed)."""
    if example and draw(st.integers(0, 9)) == 0:
        return pattern.example(), {}
    args: dict[str, Any] = {}
    return " ".join(_fill(draw, pattern.elements, args)), args


# Labels: `0..1 {`, `2 {`, `3+ {`. Now and then a gap or an overlap, which the checker rejects.


def labels(draw: st.DrawFn, low: int, high: int) -> list[str]:
    """Outcome labels covering low..high exactly once, in some order."""
    size = high - low + 1
    parts = draw(st.integers(1, min(5, size)))
    cuts: list[int] = []
    if parts > 1:
        cuts = sorted(
            draw(st.sets(st.integers(low + 1, high), min_size=parts - 1, max_size=parts - 1))
        )
    runs = list(zip([low, *cuts], [c - 1 for c in cuts] + [high], strict=True))
    if draw(st.integers(0, 29)) == 0 and len(runs) > 1:
        del runs[draw(st.integers(0, len(runs) - 1))]  # a gap
    written = []
    for index, (a, b) in enumerate(runs):
        last = index == len(runs) - 1
        if index == 0 and low > 0 and draw(st.integers(0, 4)) == 0:
            a = draw(st.integers(0, low))  # starting below what can be rolled is harmless
        if last and draw(st.booleans()):
            written.append(f"{a}+")
            continue
        if last and draw(st.integers(0, 4)) == 0:
            b += draw(st.integers(1, 5))  # so is ending above it
        written.append(str(a) if a == b else f"{a}..{b}")
    if draw(st.integers(0, 3)) == 0:
        written = draw(st.permutations(written))
    return written


def condition(draw: st.DrawFn) -> str:
    """`terror >= 3`, `not phenomenon revealed`, `location == roof or clues found > 1`..."""
    groups = []
    for _ in range(draw(st.integers(1, 2))):
        parts = []
        for _ in range(draw(st.integers(1, 2))):
            parts.append(("not " if draw(st.integers(0, 3)) == 0 else "") + comparison(draw))
        groups.append(" and ".join(parts))
    return " or ".join(groups)


def comparison(draw: st.DrawFn) -> str:
    """One comparison or flag."""
    rules = _rules()
    what = draw(st.sampled_from(["flag", "number", "number", "number", "place"]))
    if what == "flag" and writable(rules.conditions.patterns):
        return phrase(draw, draw(st.sampled_from(writable(rules.conditions.patterns))))[0]
    values = writable(rules.values.patterns)
    if what == "place":
        places = [p for p in values if rules.value_types.get(p.name) == "place"]
        if places:
            left = phrase(draw, draw(st.sampled_from(places)))[0]
            op = draw(st.sampled_from(["==", "!="]))
            return f"{left} {op} {draw(st.sampled_from(sorted(rules.places)))}"
    numbers = [p for p in values if rules.value_types.get(p.name) == "number"]
    left = phrase(draw, draw(st.sampled_from(numbers)))[0]
    op = draw(st.sampled_from(["==", "!=", ">=", "<=", "<", ">"]))
    if draw(st.integers(0, 3)) == 0:
        right = phrase(draw, draw(st.sampled_from(numbers)))[0]
    else:
        right = str(draw(st.integers(0, 7) | st.integers(0, 10**6)))
    return f"{left} {op} {right}"


def _bounds(check: str, args: dict[str, Any]) -> tuple[int, int]:
    """The results a check can give, as the coverage pass reckons them."""
    bounds = _rules().check_bounds(check, args)
    assert bounds is not None, f"check {check} gives no bounds"
    return bounds.low, bounds.high


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _braced(head: str, lines: list[str]) -> list[str]:
    """`head {` ... `}`, or on one line when short."""
    if len(lines) <= 1 and not any("{" in line for line in lines):
        return [f"{head} {{ {' '.join(lines)} }}".replace("{  }", "{ }")]
    return [f"{head} {{", *_indent(lines), "}"]


MAX_DEPTH = 3


def effects(draw: st.DrawFn, depth: int, titles: list[str]) -> list[str]:
    """The lines of a block of effects; `choose` option titles are added to `titles`."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0 if depth else 1, 4 if depth < 2 else 2))):
        lines += effect(draw, depth, titles)
    return lines


def effect(draw: st.DrawFn, depth: int, titles: list[str]) -> list[str]:
    """The lines of one effect: a verb, say, rule, or (not too deep) a control form."""
    rules = _rules()
    forms = ["verb"] * 6 + ["say", "rule", "may verb"]
    if depth < MAX_DEPTH:
        forms += ["may", "choose", "if", "check", "roll", "repeat"]
    form = draw(st.sampled_from(forms))
    inner = depth + 1
    if form == "verb":
        return [phrase(draw, draw(st.sampled_from(writable(rules.verbs.patterns))))[0]]
    if form == "may verb":
        return ["may " + phrase(draw, draw(st.sampled_from(writable(rules.verbs.patterns))))[0]]
    if form in ("say", "rule"):
        return [f"{form} {quoted(draw(_TEXT))}"]
    if form == "may":
        return _braced("may", effects(draw, inner, titles))
    if form == "repeat":
        times = draw(st.integers(1, 3) | st.integers(1, MAX_REPEAT))
        return _braced(f"repeat {times}", effects(draw, inner, titles))
    if form == "choose":
        options: list[str] = []
        names = draw(st.lists(TITLES, min_size=2, max_size=3, unique=True))
        titles += names
        for name in names:
            options += _braced(f"option {quoted(name)}", effects(draw, inner, titles))
        return ["choose {", *_indent(options), "}"]
    if form == "if":
        lines = _braced(f"if {condition(draw)}", effects(draw, inner, titles))
        for _ in range(draw(st.integers(0, 2))):
            more = _braced(f"else if {condition(draw)}", effects(draw, inner, titles))
            lines = [*lines[:-1], f"{lines[-1]} {more[0]}", *more[1:]]
        if draw(st.booleans()):
            more = _braced("else", effects(draw, inner, titles))
            lines = [*lines[:-1], f"{lines[-1]} {more[0]}", *more[1:]]
        return lines
    if form == "check":
        pattern = draw(st.sampled_from(writable(rules.checks.patterns)))
        written, args = phrase(draw, pattern, example=False)
        head = f"check {written}"
        procedure = rules.procedures[pattern.name]
        if not procedure.counted:  # named outcomes: each once, in any order
            named = draw(st.permutations(procedure.names))
            outcomes = [line for n in named for line in _braced(n, effects(draw, inner, titles))]
            return [f"{head} {{", *_indent(outcomes), "}"]
        low, high = _bounds(pattern.name, args)
    else:
        count = draw(st.sampled_from([1, 1, 1, 2, 2, 3, 5]))
        sides = draw(st.sampled_from([2, 3, 4, 6, 6, 6, 8, 10, 12, 20, 100]))
        notation = f"{count}d{sides}" if count > 1 or draw(st.booleans()) else f"d{sides}"
        head = f"roll {notation}"
        low, high = count, count * sides
    outcomes: list[str] = []
    for label in labels(draw, low, high):
        outcomes += _braced(label, effects(draw, inner, titles))
    return [f"{head} {{", *_indent(outcomes), "}"]


def card_test(draw: st.DrawFn, options: list[str], pack_titles: list[str]) -> list[str]:
    """A `test` block: given, choose, dice, use, carry, play and expect lines in some order."""
    rules = _rules()
    settable = writable([rules.values.by_name[v] for v in sorted(rules.settable_values)])
    steps: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        step = draw(
            st.sampled_from(
                ["given", "choose", "answer", "dice", "use", "carry", "play", "next", "expect"]
            )
        )
        if step == "given":
            settings_ = []
            for _ in range(draw(st.integers(1, 2))):
                entry = draw(st.sampled_from(settable))
                target, args = phrase(draw, entry)
                stat = args.get("stat") or (target if target in rules.stat_names else None)
                if stat is not None:
                    value = str(draw(st.integers(*rules.stat_range(stat))))
                elif rules.value_types[entry.name] == "place":
                    value = draw(st.sampled_from(sorted(rules.places)))
                else:
                    value = str(draw(st.integers(0, 3)))
                settings_.append(f"{target} {value}")
            steps.append("given " + ", ".join(settings_))
        elif step == "choose" and options:
            steps.append(f"choose {quoted(draw(st.sampled_from(options)))}")
        elif step == "answer":
            steps.append(f"choose {draw(st.sampled_from(['yes', 'no']))}")
        elif step == "dice":
            faces = draw(st.lists(st.integers(1, 6) | st.integers(1, 100), min_size=1, max_size=6))
            steps.append("dice " + " ".join(map(str, faces)))
        elif step in ("use", "carry", "play") and pack_titles:
            steps.append(f"{step} {quoted(draw(st.sampled_from(pack_titles)))}")
        elif step == "next":
            steps.append("next turn")
        elif step == "expect":
            steps.append(f"expect {condition(draw)}")
    name = draw(TITLES)
    if draw(st.integers(0, 4)) == 0:
        return [f"test {quoted(name)} {{ {'; '.join(steps)} }}"]
    return [f"test {quoted(name)} {{", *_indent(steps), "}"]


def _names_a_file(pattern: Pattern) -> bool:
    """Whether a property's pattern takes an image of the pack (`art {image}`)."""
    return any(isinstance(e, Slot) and e.type.name == "image" for e in pattern.elements)


def card(
    draw: st.DrawFn,
    kind_name: str,
    title: str,
    pack_titles: list[str],
    variant: int | None = None,
    shown: tuple[str, list[str]] | None = None,
) -> tuple[str, tuple[str, list[str]]]:
    """One card of a kind, and what a variant of it must show (situation line, option titles)."""
    rules = _rules()
    kind = rules.kinds[kind_name]
    lines: list[str] = []
    situation = ""
    for name, required in kind.properties.items():
        if name == "situation" and shown is not None:
            written = shown[0]
        elif not required and _names_a_file(rules.properties.by_name[name]):
            continue  # a generated pack has no images: a name of one could only be E0710
        elif required or draw(st.integers(0, 2)) == 0:
            written = phrase(draw, rules.properties.by_name[name])[0]
        else:
            continue
        situation = written if name == "situation" else situation
        lines.append(written)
    if len(lines) > 1 and draw(st.booleans()):
        lines = draw(st.permutations(lines))
    titles: list[str] = []
    option_titles: list[str] = []
    if kind.options:
        fewest = draw(st.sampled_from([0, 1, 2, 2, 2, 2, 2, 2]))
        option_titles = (
            shown[1]
            if shown is not None
            else draw(st.lists(TITLES, min_size=fewest, max_size=max(fewest, 3), unique=True))
        )
        titles += option_titles
        for name in option_titles:
            lines += _braced(f"option {quoted(name)}", effects(draw, 1, titles))
    for block in kind.blocks:
        if draw(st.integers(0, 2)) == 0:
            continue
        header = phrase(draw, rules.blocks.by_name[block])[0]
        if rules.block_bodies.get(block) == "modifiers":
            body = [
                phrase(draw, draw(st.sampled_from(writable(rules.modifiers.patterns))))[0]
                if draw(st.integers(0, 4))
                else f"rule {quoted(draw(_TEXT))}"
                for _ in range(draw(st.integers(0, 3)))
            ]
        else:
            body = effects(draw, 1, titles)
        lines += _braced(header, body)
    for _ in range(draw(st.integers(0, 1))):
        lines.append(f"{draw(st.sampled_from(['rule', 'say']))} {quoted(draw(_TEXT))}")
    for _ in range(draw(st.integers(0, 2))):
        lines += card_test(draw, titles, pack_titles)
    number = f" variant {variant}" if variant is not None else ""
    text = "\n".join([f"{kind_name} {quoted(title)}{number} {{", *_indent(lines), "}"])
    return text, (situation, option_titles)


@st.composite
def vocabulary_packs(draw: st.DrawFn) -> dict[str, str]:
    """One or two card files of one to four cards, built from the ruleset's vocabulary."""
    rules = _rules()
    titles = draw(st.lists(TITLES, min_size=1, max_size=4, unique=True))
    texts = []
    for title in titles:
        kind = draw(st.sampled_from(sorted(rules.kinds)))
        # Now and then two numbered versions that look the same until an option is picked.
        paired = rules.kinds[kind].variants_same is not None and draw(st.integers(0, 3)) == 0
        text, shown = card(draw, kind, title, titles, 1 if paired else None)
        texts.append(text)
        if paired:
            texts.append(card(draw, kind, title, titles, 2, shown)[0])
    split = draw(st.integers(1, len(texts)))
    files = {"cards": "\n\n".join(texts[:split]) + "\n"}
    if texts[split:]:
        files["more"] = "\n\n".join(texts[split:]) + "\n"
    return files


@st.composite
def mutated_specimen_files(draw: st.DrawFn) -> dict[str, str]:
    """A good specimen file, mutated as tests/test_fuzz.py mutates files."""
    name, text = draw(st.sampled_from(sorted(good_specimens().items())))
    return {Path(name).stem: draw(mutated(text, nasty_snippets))}


# ---------------------------------------------------------------- the tests

CLEAN = {"generated": 0, "clean": 0}


@settings(FUZZ_SETTINGS, max_examples=max(1, EXAMPLES // 3))
@given(cards=vocabulary_packs(), seeds=SEEDS)
def test_vocabulary_packs_run_without_raising(cards: dict[str, str], seeds: list[int]) -> None:
    """Cards built from the ruleset's vocabulary compile, play, test and read cleanly."""
    CLEAN["generated"] += 1
    clean = run_cards(cards, seeds)
    CLEAN["clean"] += clean
    assume(clean)


def test_the_vocabulary_generator_makes_mostly_valid_cards() -> None:
    """The checker keeps most generated packs: otherwise the test above tests little."""
    if CLEAN["generated"] < 10:
        pytest.skip("the vocabulary fuzz test did not run enough examples here")
    assert CLEAN["clean"] >= CLEAN["generated"] // 2, CLEAN


@pytest.mark.parametrize("pack", good_packs(), ids=lambda p: p.parent.parent.name)
@settings(FUZZ_SETTINGS, max_examples=max(1, EXAMPLES // 12))
@given(seeds=SEEDS)
def test_the_specimen_pack_runs_without_raising(pack: Path, seeds: list[int]) -> None:
    """The good specimens, as one pack, under random dice and answers."""
    assert run_pack(pack, seeds), f"{pack} does not check clean"


@settings(FUZZ_SETTINGS, max_examples=max(1, EXAMPLES // 3))
@given(cards=mutated_specimen_files(), seeds=SEEDS)
def test_mutated_specimens_that_check_clean_run_without_raising(
    cards: dict[str, str], seeds: list[int]
) -> None:
    """A specimen file that still checks after mutation compiles, plays, tests and reads."""
    # Most mutations break the file: those are skipped, but they count as examples (with
    # assume() Hypothesis would try about nine files for each one kept).
    clean = run_cards(cards, seeds)
    event("checked clean" if clean else "rejected by the checker")


SEEDS_LINE = re.compile(r"#\s*seeds:\s*([\d ]+)")


@pytest.mark.parametrize("path", _corpus("*.run.card"), ids=lambda p: p.name)
def test_run_corpus_runs_without_raising(path: Path) -> None:
    """Card files that once crashed the compiled code, the runtime or the rules text."""
    text = _read(path)
    found = SEEDS_LINE.match(text)
    seeds = [int(s) for s in found.group(1).split()] if found else list(REPLAY_SEEDS)
    assert run_cards({"cards": text}, seeds, min(SLOW_SECONDS, 5.0)), (
        f"{path.relative_to(CORPUS.parent)} no longer checks clean: update it"
    )
