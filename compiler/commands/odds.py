"""`pillbox odds`: the exact odds of every outcome of a card."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    VARIANT,
    style_of,
    usage,
)
from compiler.odds import OddsRequest, show_odds
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("title")
@click.option(
    "--variant",
    type=VARIANT,
    help="Which variant of the card: a number, or random to draw one as the deck would.",
)
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@click.option("--json", "as_json", is_flag=True, help="Print the odds as JSON.")
@click.option(
    "--against",
    metavar="TITLE",
    help="Face the actor that card is (a monster): on your space, as your target.",
)
@RULESET_OPTION
@COLOR_OPTION
def odds(
    pack: Path,
    title: str,
    variant: int | str | None,
    settings: tuple[str, ...],
    as_json: bool,
    against: str | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Work out the exact odds of every outcome of a card's options or blocks."""

    request = OddsRequest(title, variant, settings, as_json, against)
    style = style_of(color)
    sys.exit(usage(lambda: show_odds(pack, ruleset, request, echo(style), style)))
