"""`pillbox vocab`: what a card of a ruleset may say."""

from __future__ import annotations

import sys

import click

from compiler.commands.common import (
    usage,
)
from compiler.terminal import echo
from compiler.vocab import show_vocabulary


@click.command()
@click.argument("words", nargs=-1, metavar="[KIND] [PACK]")
@click.option("--ruleset", "ruleset", metavar="NAME", help="A bundled ruleset, or a ruleset file.")
@click.option("--json", "as_json", is_flag=True, help="Print the vocabulary as JSON.")
def vocab(words: tuple[str, ...], ruleset: str | None, as_json: bool) -> None:
    """List what a card (of one kind) may say: properties, blocks, verbs, conditions, values,
    checks, each with its pattern and summary; and the ruleset's stats, places and decks."""

    sys.exit(usage(lambda: show_vocabulary(words, ruleset, as_json, echo())))
