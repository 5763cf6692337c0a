"""`pillbox serve`: the pack as a local page that follows every saved change."""

from __future__ import annotations

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
from compiler.serve.watch import serve_pack
from compiler.signals import raising
from compiler.terminal import echo


@click.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The port on 127.0.0.1 (0: a free one).",
)
@RULESET_OPTION
@COLOR_OPTION
def serve(pack: Path, port: int, ruleset: str | None, color: str) -> None:
    """Show the pack as a local page (127.0.0.1 only) that follows every saved change."""

    style = style_of(color)
    # SIGTERM stops it as Ctrl-C does: the server closed, its face pictures removed.
    with raising(signal.SIGTERM, Terminated):
        code = usage(lambda: serve_pack(pack, ruleset, port, echo(style), style))
    sys.exit(code)
