"""`pillbox tune`: the smallest change to the cards' numbers that meets balance targets."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click

from compiler.commands.common import (
    COLOR_OPTION,
    ENGINE_OPTION,
    RULESET_OPTION,
    SCHEDULER_OPTION,
    Terminated,
    style_of,
    usage,
)
from compiler.signals import raising
from compiler.simulate.command import SimulateRequest, known_policies
from compiler.terminal import echo
from compiler.tune.command import TuneRequest
from compiler.tune.command import tune as run_tune
from compiler.tune.search import Budget


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="'[VALUE:] FIGURE BAND'",
    help=(
        "A band a figure must fall in: 'won 40..60%', 'High Water: won 40..60%', "
        "'first seat advantage <= 5 points'. Repeatable."
    ),
)
@click.option(
    "--vary",
    multiple=True,
    metavar="TITLE|KIND",
    help=(
        "A card (or a kind: all its cards) whose numbers may change, or a derived stat of the "
        "pack's own ruleset whose designer values may ('designer values': all). Repeatable."
    ),
)
@click.option(
    "--policy",
    metavar="NAME",
    help="The policy of every seat (default: the strongest rung whose search fits --minutes).",
)
@click.option(
    "--minutes",
    type=click.FloatRange(0.1, 10_000),
    default=15.0,
    show_default=True,
    help="The time the default seats are chosen to fit.",
)
@click.option("--players", type=int, help="Seats at the table (default: the game's fewest).")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=1,
    show_default=True,
    help="Seed of every candidate's sweep (every candidate plays the same games).",
)
@click.option(
    "--games",
    type=click.IntRange(10, 1_000_000),
    default=400,
    show_default=True,
    help="Games a candidate is played on at most.",
)
@click.option(
    "--first-games",
    type=click.IntRange(5, 1_000_000),
    default=50,
    show_default=True,
    help="Games every candidate is played on before the worse half is dropped.",
)
@click.option(
    "--max-edits",
    type=click.IntRange(1, 10),
    default=3,
    show_default=True,
    help="The most numbers changed.",
)
@click.option("--workers", type=click.IntRange(1, 512), help="Worker processes (default: 1).")
@click.option(
    "--apply",
    "apply_edit",
    is_flag=True,
    help="Write the edit to the card files (only if the pack's tests pass with it).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@ENGINE_OPTION
@SCHEDULER_OPTION
@RULESET_OPTION
@COLOR_OPTION
def tune(
    pack: Path,
    targets: tuple[str, ...],
    vary: tuple[str, ...],
    policy: str | None,
    minutes: float,
    players: int | None,
    seed: int,
    games: int,
    first_games: int,
    max_edits: int,
    workers: int | None,
    apply_edit: bool,
    as_json: bool,
    engine: str,
    scheduler: str | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Find the smallest change to the cards' numbers that meets balance targets."""
    style = style_of(color)
    asked = TuneRequest(
        targets,
        vary,
        SimulateRequest(
            games, seed, players, policy, workers=workers, engine=engine, scheduler=scheduler
        ),
        Budget(first_games, games, max_edits),
        apply_edit,
        as_json,
        minutes,
    )

    def run() -> int:
        known_policies([policy] if policy else [])
        return run_tune(pack, ruleset, asked, echo(style), echo(style, err=True))

    with raising(signal.SIGTERM, Terminated):
        code = usage(run)
    sys.exit(code)
