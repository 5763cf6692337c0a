"""`pillbox table`: a whole game of the pack in the browser, bots in the empty seats."""

from __future__ import annotations

import secrets
import signal
import sys
from pathlib import Path

import click

from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    Terminated,
    style_of,
    usage,
)
from compiler.signals import raising
from compiler.table.run import TableRequest, table_pack
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--players", type=click.IntRange(1, 100), help="Seats at the table.")
@click.option(
    "--seats",
    metavar="P1,P2,...",
    help="Who plays each seat: human (a person at the page) or a policy "
    "(default: human, then random).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the dice and shuffles (default: a new one, printed).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The port on 127.0.0.1 (0: a free one).",
)
@click.option(
    "--pace",
    type=click.FloatRange(0, 60),
    default=0.6,
    show_default=True,
    help="Seconds a bot's decision shows on the page before it is made.",
)
@click.option(
    "--share",
    is_flag=False,
    flag_value="0.0.0.0",
    default=None,
    metavar="[ADDRESS]",
    help="Listen on ADDRESS (default: every address of this machine) instead of 127.0.0.1; "
    "each human seat joins by a link with a code of its own, printed here.",
)
@click.option(
    "--record",
    "record",
    type=click.Path(path_type=Path),
    default=None,
    metavar="FILE",
    help="Step through this record of a game (play --game --record, or the page's) instead "
    "of playing one.",
)
@RULESET_OPTION
@COLOR_OPTION
def table(
    pack: Path,
    players: int | None,
    seats: str | None,
    seed: int | None,
    port: int,
    pace: float,
    share: str | None,
    record: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play a whole game of the pack in the browser (127.0.0.1 unless --share): every rule
    enforced, bots in the seats no person takes, undo, and the game's record to replay."""

    style = style_of(color)
    request = TableRequest(
        str(pack),
        seed if seed is not None else secrets.randbelow(1_000_000),
        players,
        tuple(name.strip() for name in seats.split(",")) if seats is not None else None,
        port,
        pace,
        share,
        record,
    )
    with raising(signal.SIGTERM, Terminated):
        code = usage(lambda: table_pack(pack, ruleset, request, echo(style), style))
    sys.exit(code)
