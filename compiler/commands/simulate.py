"""`pillbox simulate`: many whole games played by policies, and their figures."""

from __future__ import annotations

import secrets
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
    progress_bar,
    style_of,
    usage,
)
from compiler.errors import UsageError
from compiler.signals import raising
from compiler.simulate.command import SimulateRequest
from compiler.simulate.command import simulate as run_simulation
from compiler.simulate.ladder import rungs_of, simulate_ladder
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True)
@click.option("--players", type=int, help="Seats at the table (default: the fewest, or --seats).")
@click.option("--policy", metavar="NAME", help="The policy of every seat (default: random).")
@click.option("--seats", metavar="P1,P2,...", help="A policy for each seat, in seat order.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the sweep (default: a new one, printed so a run can be repeated).",
)
@click.option(
    "--workers", type=click.IntRange(1, 512), help="Worker processes (default: every core)."
)
@click.option("--until", "until", metavar="PHASE", help="Play to the end of this phase.")
@click.option("--json", "as_json", is_flag=True, help="Print every figure as JSON.")
@click.option(
    "--report", type=click.Path(path_type=Path), help="Also write an HTML page of charts here."
)
@click.option(
    "--compare",
    type=click.Path(path_type=Path),
    metavar="OTHER_PACK",
    help="Also play a variant pack; print the difference of every figure.",
)
@ENGINE_OPTION
@SCHEDULER_OPTION
@click.option(
    "--ladder",
    is_flag=True,
    help="Play the same seeds under each rung of policies (--rungs) and report them side by side.",
)
@click.option(
    "--rungs",
    metavar="P1,P2,...",
    help="The ladder's rungs, weakest first (default: random,greedy,mcts:8,mcts:16).",
)
@click.option(
    "--include-records",
    "records",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Also count the played games recorded in DIR (*.json, of this pack), apart.",
)
@RULESET_OPTION
@COLOR_OPTION
def simulate(
    pack: Path,
    games: int,
    players: int | None,
    policy: str | None,
    seats: str | None,
    seed: int | None,
    workers: int | None,
    until: str | None,
    as_json: bool,
    report: Path | None,
    compare: Path | None,
    engine: str,
    scheduler: str | None,
    ladder: bool,
    rungs: str | None,
    records: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play many whole games with policies in the seats; print their figures."""

    request = SimulateRequest(
        games,
        seed if seed is not None else secrets.randbelow(1_000_000),
        players,
        policy,
        seats,
        workers,
        until,
        as_json,
        report,
        compare,
        engine,
        scheduler,
        records,
    )
    progress = None
    if sys.stderr.isatty():

        def progress(done: int, total: int) -> None:
            progress_bar(done, total, "playing games")

    style = style_of(color)

    # SIGTERM unwinds a sweep as Ctrl-C does: its workers are killed, no page is half-written.
    def run() -> int:
        if records is not None and ladder:
            raise UsageError("--include-records counts records beside one sweep: not a --ladder")
        if rungs is not None and not ladder:
            raise UsageError("--rungs names the rungs of a --ladder: add --ladder")
        if ladder:
            named = rungs_of(rungs)
            return simulate_ladder(pack, ruleset, request, named, echo(style), style, progress)
        return run_simulation(pack, ruleset, request, echo(style), style, progress)

    with raising(signal.SIGTERM, Terminated):
        code = usage(run)
    sys.exit(code)
