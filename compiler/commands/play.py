"""`pillbox play`: one card played as the narrator reads it, or with `--game` a whole game."""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    VARIANT,
    ask_or_stop,
    style_of,
    usage,
)
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT
from compiler.play.game import GameRequest, play_game
from compiler.playing import (
    Emit,
    Narrator,
    find_card,
    load_compiled,
    set_the_scene,
    variant_note,
)
from compiler.render import Style, plain, render_text
from compiler.terminal import echo
from dsl.spans import Diagnostic, Span
from runtime.decisions import (
    Decision,
    DecisionError,
    DecisionMaker,
    InteractiveDecisions,
    PresetThenAsk,
    RefusedAnswer,
)
from runtime.dice import DiceError
from runtime.game import RunawayError
from runtime.testing import card_line, runtime_failure


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("title", required=False)
@click.option(
    "--variant",
    type=VARIANT,
    help="Which variant of the card: a number, or random to draw one as the deck would.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the dice and shuffles (default: a new one, printed so a run can be repeated).",
)
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@click.option(
    "--choose",
    "answers",
    multiple=True,
    metavar="ANSWER",
    help="Answer the next question (an option title, yes or no); repeat in order.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the card, seed, state and log as JSON."
)
@click.option(
    "--against",
    metavar="TITLE",
    help="Face the actor that card is (a monster): on your space, as your target.",
)
@click.option("--game", "whole", is_flag=True, help="Play a whole game, not one card.")
@click.option("--players", type=click.IntRange(1, 100), help="Seats of a whole game.")
@click.option("--policy", metavar="NAME", help="Who plays every seat (random, bold...).")
@click.option("--seats", metavar="P1,P2,...", help="Who plays each seat: a policy or human.")
@click.option("--until", metavar="PHASE", help="Play to the end of this phase (default: all).")
@click.option(
    "--record", type=click.Path(path_type=Path), help="Write the game's moves to this file."
)
@RULESET_OPTION
@COLOR_OPTION
def play(
    pack: Path,
    title: str | None,
    variant: int | str | None,
    seed: int | None,
    settings: tuple[str, ...],
    answers: tuple[str, ...],
    as_json: bool,
    against: str | None,
    whole: bool,
    players: int | None,
    policy: str | None,
    seats: str | None,
    until: str | None,
    record: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play one card as the narrator reads it: pick, roll, see what happens. With --game, a
    whole game, each seat played by a policy or by you."""

    seed = seed if seed is not None else secrets.randbelow(1_000_000)
    style = style_of(color)
    if whole:
        card_options = {"variant": variant, "set": settings, "choose": answers, "against": against}
        for name, value in card_options.items():
            if value:
                raise click.UsageError(f"--{name} is for playing a card; --game plays a whole game")

        if title is not None:
            raise click.UsageError(f"--game plays a whole game; it takes no card ({title!r})")
        game = GameRequest(
            str(pack),
            seed,
            players,
            policy,
            seats.split(",") if seats is not None else None,
            until,
            as_json,
            record,
            interactive=sys.stdin.isatty(),
        )
        _play_whole_game(pack, game, ruleset, style)
    _card_only(
        title,
        variant=variant,
        players=players,
        policy=policy,
        seats=seats,
        until=until,
        record=record,
    )
    assert title is not None
    request = PlayRequest(
        title,
        variant,
        seed,
        settings,
        answers,
        as_json,
        interactive=sys.stdin.isatty(),
        against=against,
    )
    sys.exit(usage(lambda: play_card(pack, ruleset, request, echo(style), ask_or_stop, style)))


def _card_only(title: str | None, **whole_game_options: Any) -> None:
    """Without --game, a card to play, and none of the options of a whole game."""
    if title is None:
        raise click.UsageError("name the card to play, or give --game to play a whole game")
    for name, value in whole_game_options.items():
        if value is not None and name != "variant":
            raise click.UsageError(f"--{name} is for a whole game: add --game")


def _play_whole_game(pack: Path, request: GameRequest, ruleset: str | None, style: Style) -> None:
    """`play --game`: one whole game; exits."""

    sys.exit(usage(lambda: play_game(pack, ruleset, request, echo(style), ask_or_stop, style)))


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
        emit(state_text(game.snapshot(), game.module.words.get("found", "found")))
        emit(f"(seed {request.seed}: run again with --seed {request.seed} for the same dice)")
        if problem is not None:
            emit("")
            emit(render_text(problem, compiled.sources(), style))
    return EXIT_CONTENT if problem else EXIT_CLEAN


def state_text(state: dict[str, Any], found_label: str) -> str:
    """The player's state in a few lines, as a player would say it (`found_label`: what the
    game calls what is found)."""
    stats = ", ".join(f"{name} {value}" for name, value in state["stats"].items())
    lines = [f"state: {stats}{' (dead)' if state['dead'] else ''}"]
    lines.append(f"  location: {state['location'] or 'nowhere'}")
    lines.append(f"  items: {', '.join(state['items']) or 'none'}")
    if state["owned"]:
        lines.append(f"  owns: {', '.join(state['owned'])}")
    if state["found"]:
        lines.append(f"  {found_label}: {', '.join(state['found'])}")
    # A card's own flags are words (`lights_out`); the engine's bookkeeping is written with
    # colons (`bonus-waits:0:dodge:126:0.0:1`, `stood at:matron:roof`), which no player says.
    said = [flag.replace("_", " ") for flag in state["flags"] if ":" not in flag]
    if said:
        lines.append(f"  flags: {', '.join(said)}")
    if state["bonuses"]:
        lines.append(
            "  bonuses: "
            + ", ".join(f"{b['dice']:+d} on the next {b['check']}" for b in state["bonuses"])
        )
    return "\n".join(lines)
