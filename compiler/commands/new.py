"""`pillbox new`: a new pack that checks and tests clean."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.commands.common import (
    usage,
)
from compiler.newpack import new_pack
from compiler.terminal import echo


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option(
    "--ruleset",
    "ruleset",
    metavar="NAME",
    help="A bundled game's ruleset (the first by name unless given).",
)
@click.option("--from", "bundled", metavar="PACK", help="Copy a bundled pack instead.")
def new(folder: Path, ruleset: str | None, bundled: str | None) -> None:
    """Make a new pack that checks and tests clean: pack.yaml, an example card of each kind,
    templates/, .gitignore, a CI workflow and a pre-commit config."""

    sys.exit(usage(lambda: new_pack(folder, ruleset, bundled, echo())))
