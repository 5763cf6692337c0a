"""`pillbox export`: the properties of a pack's cards as a sheet."""

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
from compiler.formats.export import export_csv
from compiler.terminal import data_out, echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--csv", "as_csv", is_flag=True, required=True, help="Write the cards as CSV.")
@click.option("--kind", metavar="KIND", help="Only the cards of this kind.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to FILE.")
@RULESET_OPTION
@COLOR_OPTION
def export(
    pack: Path, as_csv: bool, kind: str | None, output: Path | None, ruleset: str | None, color: str
) -> None:
    """Write the properties of a pack's cards as a sheet, which `sheets:` in pack.yaml reads."""

    style = style_of(color)
    sys.exit(
        usage(lambda: export_csv(pack, ruleset, kind, output, echo(style), style, data_out(style)))
    )
