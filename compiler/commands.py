"""What `pillbox test`, `play` and `build` do, apart from reading the command line.

Each command loads and checks one pack, compiles it, and reports through an `emit` callable;
it returns the exit code. Problems with the content come back as diagnostics (exit 1), problems
with the command line as `UsageError` (exit 2).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.build import (
    CompiledPack,
    LoadResult,
    compile_pack,
    game_rules,
    load_checked,
    runtime_problems,
)
from compiler.check import UsageError
from compiler.patterns import did_you_mean
from compiler.printing.pdf import write_atomically
from compiler.render import Style, counted, plain, render_text
from compiler.ruleset import Ruleset
from compiler.terminal import echo
from dsl.spans import Diagnostic, Span
from runtime.cards import CardDef, TestDef
from runtime.decisions import Decision, DecisionError, DecisionMaker, RefusedAnswer, answer_index
from runtime.dice import DiceError
from runtime.game import Game, RunawayError
from runtime.games import game_module
from runtime.module import GameModule
from runtime.rules import GameRules
from runtime.testing import TestResult, card_line, run_test, runtime_failure

Emit = Callable[[str], None]

EXIT_CLEAN, EXIT_CONTENT = 0, 1
EXIT_NO_TESTS = 4
"""`test -k PATTERN` matched no test: a typo in the pattern must not pass a CI gate."""


def load_compiled(
    path: Path,
    ruleset: str | None,
    emit: Emit,
    style: Style,
    as_json: bool = False,
    only: str | None = None,
) -> CompiledPack | None:
    """Check and compile a pack; print its errors and give None if it has any. With `only`
    (the card a command is about), card files with errors that do not hold it are left out,
    and a note on stderr says so."""
    loaded: LoadResult = load_checked(path, ruleset, only)
    if loaded.left_out:
        echo(style, err=True)(
            style("note:", "note")
            + f" left out {', '.join(loaded.left_out)}, which "
            + ("has errors" if len(loaded.left_out) == 1 else "have errors")
            + f" (pillbox check {' '.join(loaded.left_out)}); {only!r} is played from the rest"
        )
    loaded = with_runtime_problems(loaded)
    if loaded.pack is None and as_json:
        report = {"passed": 0, "failed": 0, "tests": []}
        emit(json.dumps({**report, "diagnostics": [d.to_json() for d in loaded.diagnostics]}))
        return None
    if loaded.pack is None:
        report_errors(loaded, path, emit, style)
        return None
    compiled = compile_pack(loaded.pack)
    if compiled.library.missing:
        # A pack's own ruleset may add vocabulary no runtime module implements: say so once,
        # on stderr, so JSON and emitted code on stdout stay whole.
        echo(style, err=True)(
            style("note:", "note")
            + " the runtime does not simulate "
            + ", ".join(sorted(compiled.library.missing))
            + "; the cards print them, runs log them and go on"
        )
    return compiled


def with_runtime_problems(loaded: LoadResult) -> LoadResult:
    """The load, stopped by what the runtime cannot run of the pack's ruleset, if anything."""
    if loaded.pack is not None:
        problems = runtime_problems(loaded.pack.ruleset, *_module_of(loaded.pack.ruleset))
        if problems:
            return LoadResult(None, problems, loaded.sources)
    return loaded


def report_errors(loaded: LoadResult, path: Path, emit: Emit, style: Style) -> int:
    """Print the errors that stop a pack from compiling; give the exit code."""
    for diagnostic in loaded.diagnostics:
        emit(render_text(diagnostic, loaded.sources, style) + "\n")
    broken = sorted({d.span.file for d in loaded.diagnostics})
    where = f" in {', '.join(broken[:5])}" + (
        f" and {len(broken) - 5} more files" * (len(broken) > 5)
    )
    shown = " ".join(broken[:5]) if broken else str(path)
    errors = counted(len(loaded.diagnostics), "error")
    emit(f"{errors}{where}: fix them first (pillbox check {shown})")
    return EXIT_CONTENT


def _module_of(ruleset: Ruleset) -> tuple[GameModule, GameRules]:
    rules = game_rules(ruleset)
    return game_module(rules.game), rules


# -- pillbox test ----------------------------------------------------------------------------


def _selected(compiled: CompiledPack, pattern: str | None) -> list[tuple[CardDef, TestDef]]:
    chosen = compiled.checked.selected
    wanted = pattern.casefold() if pattern else None
    out: list[tuple[CardDef, TestDef]] = []
    for card in compiled.cards:
        if chosen is not None and card.file not in chosen:
            continue
        for test in card.tests:
            name = f"{card.label} {test.name}".casefold()
            if wanted is None or wanted in name:
                out.append((card, test))
    return out


def run_tests(
    path: Path,
    ruleset: str | None,
    pattern: str | None,
    output_format: str,
    verbose: bool,
    emit: Emit,
    style: Style = plain,
) -> int:
    """Run every `test` block of a pack (those matching `pattern`); report like pytest."""
    compiled = load_compiled(path, ruleset, emit, style, as_json=output_format == "json")
    if compiled is None:
        return EXIT_CONTENT
    results = []
    seconds: dict[int, float] = {}
    for card, test in _selected(compiled, pattern):
        started = time.perf_counter()
        results.append(run_test(compiled.new_game, card, test))
        seconds[len(results) - 1] = time.perf_counter() - started
    failed = [r for r in results if not r.passed]
    unmatched = bool(pattern) and not results
    if output_format == "junit":
        from compiler.junit import render_junit

        emit(render_junit(compiled.checked.name, results, seconds).rstrip("\n"))
        return EXIT_NO_TESTS if unmatched else EXIT_CONTENT if failed else EXIT_CLEAN
    if output_format == "json":
        emit(json.dumps(_tests_json(results), indent=2, ensure_ascii=False))
        return EXIT_NO_TESTS if unmatched else EXIT_CONTENT if failed else EXIT_CLEAN
    by_file: dict[str, list[TestResult]] = {}
    for result in results:
        by_file.setdefault(result.card.file, []).append(result)
    for file, file_results in by_file.items():
        if verbose:
            for r in file_results:
                mark = style("PASSED", "note") if r.passed else style("FAILED", "error")
                emit(f"{file}:{r.test.line}: {r.name} {mark}")
        else:
            marks = "".join("." if r.passed else style("F", "error") for r in file_results)
            emit(f"{file} {marks}")
    for result in failed:
        emit("")
        emit(
            style(f"FAILED {result.card.file}:{result.line}:{result.column}", "error")
            + f" {result.name}"
        )
        emit(f"    {result.failure}")
        emit("    log:")
        for line in result.log or ["(nothing happened)"]:
            emit(f"      {line}")
    emit("")
    summary = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    if unmatched:
        emit(style(f"{summary}: no test matches -k {pattern!r}", "error"))
        emit("  a test is matched by its card's kind and title and its own name, ignoring case")
        return EXIT_NO_TESTS
    if not results:
        summary += " (the pack has no tests)"
    emit(style(summary, "error" if failed else "note"))
    return EXIT_CONTENT if failed else EXIT_CLEAN


def _tests_json(results: Sequence[TestResult]) -> dict[str, Any]:
    failed = sum(1 for r in results if not r.passed)
    return {
        "passed": len(results) - failed,
        "failed": failed,
        "tests": [
            {
                "card": r.card.title,
                "kind": r.card.kind,
                "variant": r.card.variant,
                "test": r.test.name,
                "file": r.card.file,
                "line": r.line,
                "column": r.column,
                "passed": r.passed,
                "failure": r.failure,
                "log": r.log,
            }
            for r in results
        ],
    }


# -- pillbox play ----------------------------------------------------------------------------


@dataclass
class PlayRequest:
    """What `pillbox play` was asked."""

    title: str
    variant: int | str | None  # a number, or RANDOM_VARIANT
    seed: int
    settings: Sequence[str]
    answers: Sequence[str]
    as_json: bool
    interactive: bool
    against: str | None = None  # the card of an actor to face: your target


RANDOM_VARIANT = "random"
"""`--variant random`: draw one of a title's variants as the deck would, by their copies."""


def find_card(
    compiled: CompiledPack, title: str, variant: int | str | None, seed: int | None = None
) -> CardDef:
    """The card of that title (and variant, or one drawn at random as the deck would); a
    usage error naming the near misses if none."""
    titled = [c for c in compiled.cards if c.title == title]
    if not titled:
        titles = sorted({c.title for c in compiled.cards})
        hint = did_you_mean(title, titles) or "pillbox build --text lists the cards"
        raise UsageError(f"no card titled {title!r} in pack {compiled.checked.name!r}; {hint}")
    if variant == RANDOM_VARIANT:
        drawn = random.Random(f"variant:{seed}") if seed is not None else random.Random()
        return drawn.choices(titled, weights=[c.copies for c in titled])[0]
    if variant is None:
        return titled[0]
    for card in titled:
        if card.variant == variant:
            return card
    known = ", ".join(str(c.variant) for c in titled if c.variant is not None) or "none"
    raise UsageError(f"{title!r} has no variant {variant} (variants: {known})")


def variant_note(compiled: CompiledPack, card: CardDef, asked: int | str | None) -> str | None:
    """Which variant of several is shown, and how to see the others; None for a card of one."""
    titled = [c for c in compiled.cards if c.title == card.title]
    if len(titled) < 2:
        return None
    which = f"variant {card.variant} of {len(titled)}"
    if asked == RANDOM_VARIANT:
        copies = ", ".join(f"{c.copies} of variant {c.variant}" for c in titled)
        return f"drew {which} as the deck would ({copies})"
    if asked is None:
        return f"{which}: --variant N shows another, --variant random draws one as the deck would"
    return None


def confront(game: Game, compiled: CompiledPack, title: str) -> None:
    """`--against "Orderly Husk"`: the actor that card is comes onto your space as your target."""
    definition = find_card(compiled, title, None)
    kind = compiled.rules.world.sheet_kind(definition.kind)
    if kind is None:
        sheets = sorted(k.sheet for k in compiled.rules.world.actors.values() if k.sheet)
        raise UsageError(
            f"--against: {title!r} is a {definition.kind} card, not an actor's"
            + (f"; actors come from {', '.join(sheets)} cards" if sheets else "")
        )
    actor = game.spawn(kind.name, game.actor.location, definition)
    game.target(actor)


TARGET_SETTING = "target."
"""`--set target.defense=3`: a stat of the actor `--against` brought in, not the player's."""


def set_the_scene(
    game: Game, compiled: CompiledPack, settings: Sequence[str], against: str | None
) -> None:
    """The player's `--set`, the actor `--against` names, then its own `--set target.NAME=N`."""
    theirs = [s for s in settings if s.strip().startswith(TARGET_SETTING)]
    apply_settings(game, compiled, [s for s in settings if s not in theirs])
    if against is not None:
        confront(game, compiled, against)
    for setting in theirs:
        _set_target(game, setting)


def _set_target(game: Game, setting: str) -> None:
    """`--set target.defense=3` on the target `--against` made."""
    name, sep, raw = setting.strip().removeprefix(TARGET_SETTING).partition("=")
    name = name.strip()
    target = game.state.target
    if target is None:
        raise UsageError(
            f"--set {TARGET_SETTING}{name}: there is no target; name one with --against"
        )
    if not sep:
        raise UsageError(f"--set takes name=value, e.g. target.defense=2; not {setting!r}")
    rule = target.stats.rules.get(name)
    if rule is None:
        stats = target.stats.names()
        raise UsageError(
            f"--set {TARGET_SETTING}{name}: {target.name} has no stat {name!r}; "
            + (did_you_mean(name, stats) or f"its stats: {', '.join(stats)}")
        )
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"--set {TARGET_SETTING}{name}: {raw!r} is not a whole number") from None
    if not rule.low <= value <= rule.high:
        raise UsageError(
            f"--set {TARGET_SETTING}{name}: {value} is out of range; "
            f"{name} goes from {rule.low} to {rule.high}"
        )
    target.stats.set(name, value)
    game.event("given", f"{target.name}: {name} is {value}", stat=name, value=value)


def apply_settings(game: Game, compiled: CompiledPack, settings: Sequence[str]) -> None:
    """`--set terror=4`, `--set location=hallway`."""
    stats = game.stat_names()
    for setting in settings:
        name, sep, raw = setting.partition("=")
        name = name.strip()
        if not sep:
            raise UsageError(f"--set takes name=value, e.g. terror=4; not {setting!r}")
        if name == "location":
            places = compiled.rules.places
            if raw not in places:
                raise UsageError(
                    f"--set location: {raw!r} is not a place; "
                    + (did_you_mean(raw, places) or f"places: {', '.join(places)}")
                )
            game.player.location = raw
            game.event("given", f"location is {raw}", location=raw)
            continue
        tracks = compiled.rules.world.tracks
        on_game = [track for track in game.state.tracks if track not in stats]
        if name not in stats and name not in on_game:
            raise UsageError(
                f"--set: {name!r} is not a stat or a track; "
                + (
                    did_you_mean(name, [*stats, *on_game, "location"])
                    or f"stats: {', '.join(stats)}"
                )
            )
        try:
            value = int(raw)
        except ValueError:
            raise UsageError(f"--set {name}: {raw!r} is not a whole number") from None
        if name not in stats:
            # A track of the game (an insomnia track): set as a test's `given` sets it.
            if not tracks[name].low <= value <= tracks[name].high:
                raise UsageError(
                    f"--set {name}: {value} is out of range; {name} goes from "
                    f"{tracks[name].low} to {tracks[name].high}"
                )
            game.state.tracks[name] = value
            game.event("given", f"{name} is {value}", track=name, value=value)
            continue
        low, high = compiled.checked.ruleset.stat_range(name)
        if not low <= value <= high:
            raise UsageError(
                f"--set {name}: {value} is out of range; {name} goes from {low} to {high}"
            )
        game.set_stat(name, value)


class Narrator:
    """Asks the person at the terminal, showing what happened since the last question."""

    def __init__(self, emit: Emit, ask: Callable[[str], str]) -> None:
        self.log: Callable[[], list[str]] = list  # the game's live log, once there is a game
        self._shown = 0
        self._emit = emit
        self._ask = ask

    def flush(self) -> None:
        """Print the log lines not shown yet."""
        lines = self.log()
        for line in lines[self._shown :]:
            self._emit(line)
        self._shown = len(lines)

    def __call__(self, decision: Decision) -> int:
        """Show the question and its answers; read a number or an answer's words."""
        self.flush()
        self._emit("")
        for number, choice in enumerate(decision.choices, start=1):
            self._emit(f"  {number}. {choice}")
        while True:
            reply = self._ask(f"{decision.prompt}?").strip()
            picked = answer_index(decision.choices, reply)
            if isinstance(picked, int):
                return picked
            self._emit(f"  {picked}")


class Unanswered(DecisionError):
    """A question that no --choose answered, with no terminal to ask."""

    def __str__(self) -> str:
        choices = " / ".join(self.decision.choices)
        return f"the card asks '{self.decision.prompt}' ({choices}); answer it with --choose"


class _NoAnswers:
    """Without a terminal, a question that --choose did not answer stops the run, unless the
    rule asking it has a default answer."""

    def decide(self, decision: Decision) -> int:
        """The decision's default, else refuse, naming the question."""
        if decision.default is not None:
            return decision.default
        raise Unanswered(decision)


def play_card(
    path: Path,
    ruleset: str | None,
    request: PlayRequest,
    emit: Emit,
    ask: Callable[[str], str],
    style: Style = plain,
) -> int:
    """Play one card as the narrator would, and show the state after."""
    from runtime.decisions import InteractiveDecisions, PresetThenAsk

    report_to = emit if not request.as_json else echo(style, err=True)
    compiled = load_compiled(path, ruleset, report_to, style, only=request.title)
    if compiled is None:
        return EXIT_CONTENT
    card = find_card(compiled, request.title, request.variant, request.seed)
    note = variant_note(compiled, card, request.variant)
    if note is not None:
        report_to(style("note:", "note") + f" {note}")
    narrator = None
    fallback: DecisionMaker = _NoAnswers()
    if request.interactive and not request.as_json:
        narrator = Narrator(emit, ask)
        fallback = InteractiveDecisions(narrator)
    decisions = PresetThenAsk(request.answers, fallback)
    game = compiled.new_game(seed=request.seed, decisions=decisions)
    if narrator is not None:
        narrator.log = game.log.lines
    set_the_scene(game, compiled, request.settings, request.against)
    problem = None
    refused = False
    try:
        game.play(card)
    except Exception as error:  # any failure of a card's code is reported on its line
        refused = isinstance(error, RefusedAnswer)
        known = isinstance(error, (DecisionError, DiceError, RunawayError))
        message = str(error) if known else runtime_failure(error)
        line, column = card_line(error, card.file) or (card.line, 1)
        problem = Diagnostic(
            "E0601", "error", message, Span(card.file, line, column, line, column + 1)
        )
    if problem is None and decisions.script.unused:
        problem = Diagnostic(
            "E0602",
            "error",
            "--choose answers never asked for: " + ", ".join(map(repr, decisions.script.unused)),
            Span(card.file, card.line, 1, card.line, 1),
        )
    if request.as_json:
        emit(
            json.dumps(
                {
                    "card": card.title,
                    "variant": card.variant,
                    "seed": request.seed,
                    "state": game.snapshot(),
                    "log": game.log.to_json(),
                    "error": problem.message if problem else None,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        if problem is not None and refused:  # a mistyped answer: nothing played is worth showing
            emit(render_text(problem, compiled.sources(), style))
            return EXIT_CONTENT
        if narrator is not None:
            narrator.flush()
        else:
            for logged in game.log.lines():
                emit(logged)
        emit("")
        emit(_state_text(game))
        emit(f"(seed {request.seed}: run again with --seed {request.seed} for the same dice)")
        if problem is not None:
            emit("")
            emit(render_text(problem, compiled.sources(), style))
    return EXIT_CONTENT if problem else EXIT_CLEAN


def _state_text(game: Game) -> str:
    """The player's state in a few lines."""
    state = game.snapshot()
    stats = ", ".join(f"{name} {value}" for name, value in state["stats"].items())
    lines = [f"state: {stats}{' (dead)' if state['dead'] else ''}"]
    lines.append(f"  location: {state['location'] or 'nowhere'}")
    lines.append(f"  items: {', '.join(state['items']) or 'none'}")
    if state["owned"]:
        lines.append(f"  owns: {', '.join(state['owned'])}")
    if state["found"]:
        lines.append(f"  clues found: {', '.join(state['found'])}")
    if state["flags"]:
        lines.append(f"  flags: {', '.join(f.replace('_', ' ') for f in state['flags'])}")
    if state["bonuses"]:
        lines.append(
            "  bonuses: "
            + ", ".join(f"{b['dice']:+d} on the next {b['check']}" for b in state["bonuses"])
        )
    return "\n".join(lines)


# -- pillbox build ---------------------------------------------------------------------------


def build_pack(
    path: Path,
    ruleset: str | None,
    emit_python: bool,
    text: bool,
    output: Path | None,
    emit: Emit,
    style: Style = plain,
) -> int:
    """Compile a pack; print its Python or rules text, or write its checked IR."""
    compiled = load_compiled(path, ruleset, emit, style)
    if compiled is None:
        return EXIT_CONTENT
    if emit_python:
        for index, file in enumerate(compiled.files):
            if index:
                emit("")
            emit(f"# ---- {file.file} ----")
            emit(file.source())
    if text:
        from compiler.rulestext import pack_text

        emit(pack_text(compiled.checked.ruleset, compiled.checked.cards))
    if output is not None:
        written = write_ir(compiled, output)
        emit(f"wrote {written}")
    if not (emit_python or text or output is not None):
        cards = len(compiled.cards)
        emit(
            f"{compiled.checked.name}: compiled {counted(cards, 'card')} from "
            f"{counted(len(compiled.files), 'file')} "
            "(--emit python to see the code, -o DIR to write the IR)"
        )
    return EXIT_CLEAN


def write_ir(compiled: CompiledPack, output: Path) -> Path:
    """Write the checked IR of every card, validated, atomically: to the file named if it ends
    in .json, else to DIR/<pack>.ir.json.

    Paths in the file are relative to the pack folder, so the bytes do not depend on where
    the command ran.
    """
    from compiler.irschema import validate_card

    checked = compiled.checked
    problems = [d for card in checked.cards for d in validate_card(checked.ruleset, card)]
    if problems:
        raise RuntimeError(f"the IR does not match schemas/ir.schema.json: {problems[0].message}")
    document = {
        "pack": checked.name,
        "ruleset": checked.ruleset.name,
        "ruleset_digest": checked.ruleset.digest,
        "files": [
            {
                "file": in_pack(checked.root, f.file),
                "cards": [{**card, "file": in_pack(checked.root, f.file)} for card in f.cards],
            }
            for f in checked.files
        ],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    # `-o ir.json` names the file; any other name is a folder to write <pack>.ir.json in.
    named = output.suffix == ".json" and not output.is_dir()
    target = output if named else output / f"{checked.name}.ir.json"
    try:
        if not named and output.exists() and not output.is_dir():
            raise UsageError(f"-o {output}: not a folder; name a folder, or a file ending .json")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"-o {output}: cannot write there ({error.strerror or error})") from None
    return target


def _only_matches_nothing(only: str, cards: Sequence[dict[str, Any]]) -> str:
    """`--only` names no kind or title: the closest of them, and the kinds to pick from."""
    kinds = sorted({card["kind"] for card in cards})
    titles = sorted({card["title"] for card in cards})
    guess = did_you_mean(only, [*kinds, *titles])
    return (
        f"--only {only!r} names no kind or card title of the pack; "
        + (f"{guess} " if guess else "")
        + f"the kinds: {', '.join(kinds)} (or a title, as `pillbox build --text` lists them)"
    )


def in_pack(root: Path | None, shown: str) -> str:
    """A card file's path relative to its pack folder, with forward slashes."""
    if root is None:
        return shown
    try:
        return Path(shown).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return shown


# -- pillbox print ---------------------------------------------------------------------------


@dataclass
class PrintRequest:
    """What `pillbox print` was asked."""

    output: Path | None
    overrides: dict[str, Any]
    only: str | None = None
    png: Path | None = None
    dpi: int = 150
    strict: bool = False  # a warning (text that does not fit) fails the print too
    tts: Path | None = None
    tts_url: str | None = None


def _web_prefix(url: str) -> bool:
    return url.startswith(("http://", "https://")) and len(url.split("//", 1)[1]) > 0


def _folder_url(url: str | None) -> str | None:
    """The address a file's name is appended to: `--tts-url`, ending in a slash."""
    return None if url is None else url if url.endswith("/") else url + "/"


def print_cards(
    path: Path,
    ruleset: str | None,
    request: PrintRequest,
    emit: Emit,
    style: Style = plain,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Lay a pack's cards out as a PDF (and PNG previews); report what was written."""
    from compiler.printing.output import unwritable
    from compiler.printing.sheets import print_pack, select
    from compiler.printing.sizes import OptionError, resolve_options
    from compiler.printing.tts import TtsRequest

    if request.output is None and request.tts is None:
        raise UsageError(
            "print writes a PDF (-o FILE.pdf), Tabletop Simulator decks (--tts DIR), or both"
        )
    if request.tts_url is not None and not _web_prefix(request.tts_url):
        raise UsageError(f"--tts-url {request.tts_url}: give an http:// or https:// address")
    if request.tts_url is not None and request.tts is None:
        raise UsageError("--tts-url is the address of the --tts folder's files: give --tts DIR too")
    problem = unwritable(request.output, request.png, request.tts)  # before any is written
    if problem is not None:
        raise UsageError(problem)
    loaded = load_checked(path, ruleset, request.only)
    if loaded.pack is None:
        return report_errors(loaded, path, emit, style)
    if loaded.left_out:
        echo(style, err=True)(
            style("note:", "note")
            + f" left out {', '.join(loaded.left_out)}, which has errors: "
            + f"--only {request.only!r} is printed from the rest"
        )
    overrides = request.overrides
    if request.output is None:  # no sheets: a card larger than the paper is no one's problem
        overrides = {**overrides, "layout": "single"}
    try:
        options = resolve_options(loaded.pack.print_settings, overrides)
    except OptionError as error:
        raise UsageError(str(error)) from None
    if request.only and not select(loaded.pack.cards, request.only):
        raise UsageError(_only_matches_nothing(request.only, loaded.pack.cards))
    if options.back_offset != (0.0, 0.0) and not options.backs and request.output is not None:
        echo(style, err=True)(
            style("note:", "note")
            + " the back offset moves back pages, and this print has none: add --backs duplex"
        )
    try:
        printed = print_pack(
            loaded.pack,
            options,
            request.output,
            request.only,
            request.png,
            request.dpi,
            progress,
            request.strict,
            TtsRequest(request.tts, _folder_url(request.tts_url)) if request.tts else None,
        )
    except OSError as error:
        raise UsageError(
            f"cannot write {error.filename or request.output or request.tts}: {error.strerror}"
        ) from None
    sources = {**loaded.sources}
    for diagnostic in printed.diagnostics:
        emit(render_text(diagnostic, sources, style) + "\n")
    if printed.failed:
        problems = "warnings (--strict)" if request.strict else "errors"
        unchanged = request.output or request.tts
        emit(f"nothing written: fix the {problems} above ({unchanged} is unchanged)")
        return EXIT_CONTENT
    if request.output is not None:
        emit(
            f"wrote {request.output}: {counted(printed.cards, 'card')} on "
            f"{counted(printed.pages, 'page')} "
            f"({options.card} {options.width:g} × {options.height:g} mm, {options.layout}, "
            f"{options.paper if options.layout == 'sheet' else 'one per page'}"
            + (f", bleed {options.bleed:g} mm" if options.bleed else "")
            + (", duplex backs" if options.backs else "")
            + ")"
        )
    if printed.pngs:
        emit(f"wrote {counted(len(printed.pngs), 'PNG preview')} to {request.png}")
    if printed.tts is not None:
        sheets = sum(len(deck.sheets) for deck in printed.tts.decks)
        emit(
            f"wrote {counted(len(printed.tts.decks), 'Tabletop Simulator deck')} "
            f"({counted(printed.cards, 'card')}, {counted(sheets, 'sheet')}) to {request.tts}: "
            f"copy {printed.tts.json_name} into Tabletop Simulator's Saves/Saved Objects"
        )
    return EXIT_CLEAN
