"""What the commands share of the command line: options, colour, answers read at the terminal,
the progress bar, and how a usage error becomes click's (exit 2).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

from compiler.errors import UsageError
from compiler.render import Style, ansi, plain
from compiler.terminal import terminal_safe


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so it stops as Ctrl-C does (see `print`)."""


class _Variant(click.ParamType[int | str]):
    """`--variant 2`, or `--variant random`."""

    name = "N|random"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | str:
        """A variant number from 1 to 10,000, or the word random."""
        if value == "random":
            return "random"
        if isinstance(value, int) or (str(value).isdigit() and 1 <= int(value) <= 10_000):
            return int(value)
        self.fail(f"{value!r}: give a variant number from 1 to 10000, or random", param, ctx)


VARIANT = _Variant()


def use_colour(choice: str) -> bool:
    """Whether to colour the output: `--color`, NO_COLOR, and whether stdout is a terminal."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def style_of(color: str) -> Style:
    """The style `--color` asks for."""
    return ansi if use_colour(color) else plain


RULESET_OPTION = click.option(
    "--ruleset", "ruleset", metavar="NAME", help="The ruleset of loose .card files."
)


ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["pool", "dask"]),
    default="pool",
    show_default=True,
    help="Where the games run: a process pool here, or a dask.distributed cluster.",
)

SCHEDULER_OPTION = click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="The dask scheduler (tcp://host:8786); without it, a LocalCluster of --workers here.",
)


COLOR_OPTION = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text output.",
)


def usage(run: Callable[[], int]) -> int:
    """Run a command; a problem with the command line becomes click's usage error (exit 2)."""
    try:
        return run()
    except UsageError as error:
        raise click.UsageError(terminal_safe(str(error))) from None


def ask(prompt: str) -> str:
    """Read an answer at the terminal (or from piped input)."""
    return str(click.prompt(terminal_safe(prompt), prompt_suffix=" "))


def ask_or_stop(prompt: str) -> str:
    """Read an answer; Ctrl-C or Ctrl-D (the end of the input) stops the game."""
    try:
        return ask(prompt)
    except click.Abort:
        raise KeyboardInterrupt from None


def progress_bar(done: int, total: int, doing: str = "rendering cards") -> None:
    """A one-line bar on the terminal while card faces render; cleared at the end."""
    width = 30
    filled = width * done // max(total, 1)
    line = f"\r{doing} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    click.echo(line + ("\r" + " " * len(line) + "\r" if done >= total else ""), nl=False, err=True)
