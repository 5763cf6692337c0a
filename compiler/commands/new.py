"""`pillbox new`: a new pack that checks and tests clean."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.commands.common import (
    usage,
)
from compiler.new.pack import new_pack
from compiler.terminal import echo


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option(
    "--ruleset",
    "ruleset",
    metavar="NAME",
    help="A bundled game's ruleset (the first by name unless given; base with --game).",
)
@click.option("--from", "bundled", metavar="PACK", help="Copy a bundled pack instead.")
@click.option(
    "--game",
    is_flag=True,
    help="Start a whole game of your own on the base ruleset: its ruleset.yaml and cards.",
)
def new(folder: Path, ruleset: str | None, bundled: str | None, game: bool) -> None:
    """Make a new pack that checks and tests clean: the game's smallest pack that plays a
    whole game (with --game, a whole game of its own), templates/, .gitignore, a CI workflow
    and a pre-commit config."""

    sys.exit(usage(lambda: new_pack(folder, ruleset, bundled, echo(), game)))
