"""`pillbox replay`: a recorded game played back, failing where it no longer replays."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    style_of,
    usage,
)
from compiler.play.game import replay_game
from compiler.terminal import echo


@click.command()
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--pack", type=click.Path(path_type=Path), help="The pack, if not where the record says."
)
@click.option("--json", "as_json", is_flag=True, help="Print the log and outcome as JSON.")
@RULESET_OPTION
@COLOR_OPTION
def replay(file: Path, pack: Path | None, as_json: bool, ruleset: str | None, color: str) -> None:
    """Play back a game recorded with play --game --record; fail where it no longer replays."""

    style = style_of(color)
    sys.exit(usage(lambda: replay_game(file, pack, ruleset, as_json, echo(style), style)))
