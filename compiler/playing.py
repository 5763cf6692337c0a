"""What the commands that play a pack's cards share: the pack loaded and compiled, or its errors
shown; a card found by its title; the scene set by `--set` and `--against`; the narrator who asks
the person at the terminal.

Problems with the content come back as diagnostics (exit 1), problems with the command line as
`UsageError` (exit 2).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from compiler.build import CompiledPack, LoadResult, compile_pack, load_checked
from compiler.errors import EXIT_CONTENT, UsageError
from compiler.gamerules import game_rules, runtime_problems
from compiler.patterns import did_you_mean
from compiler.render import Style, counted, render_text
from compiler.ruleset import Ruleset
from compiler.terminal import echo
from compiler.wholegame import whole_game_problems
from runtime.cards import CardDef
from runtime.decisions import Decision, answer_index
from runtime.game import Game
from runtime.games import game_module
from runtime.module import GameModule
from runtime.rules import GameRules

Emit = Callable[[str], None]


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
        problems += whole_game_problems(loaded.pack.ruleset, loaded.sources)
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
    """`--set health=4`, `--set location=hallway`."""
    stats = game.stat_names()
    for setting in settings:
        name, sep, raw = setting.partition("=")
        name = name.strip()
        if not sep:
            raise UsageError(f"--set takes name=value, e.g. health=4; not {setting!r}")
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


def in_pack(root: Path | None, shown: str) -> str:
    """A card file's path relative to its pack folder, with forward slashes."""
    if root is None:
        return shown
    try:
        return Path(shown).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return shown
