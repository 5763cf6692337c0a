"""`pillbox fmt`: card files in the one canonical layout."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.commands.common import (
    usage,
)
from compiler.fmt import format_paths
from compiler.terminal import echo


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a file would change.")
@click.option("--diff", is_flag=True, help="Show what would change, as a unified diff.")
def fmt(paths: tuple[Path, ...], check: bool, diff: bool) -> None:
    """Lay card files out in the one canonical layout (the folder you are in, when no path is
    named); comments stay where they were."""

    sys.exit(usage(lambda: format_paths(list(paths) or [Path(".")], check, diff, echo())))
