"""`pillbox report`: one HTML page of every card with its odds charted."""

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
from compiler.report.report import ReportRequest, make_report
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), required=True, help="The HTML file."
)
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@RULESET_OPTION
@COLOR_OPTION
def report(
    pack: Path, output: Path, settings: tuple[str, ...], ruleset: str | None, color: str
) -> None:
    """Write one HTML page of every card with its odds charted, flags and diagnostics."""

    request = ReportRequest(output, settings)
    style = style_of(color)
    sys.exit(usage(lambda: make_report(pack, ruleset, request, echo(style), style)))
