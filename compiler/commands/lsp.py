"""`pillbox lsp`: the language server, for an editor to start."""

from __future__ import annotations

import sys

import click

from compiler.lsp.server import serve


@click.command()
def lsp() -> None:
    """Run the language server for card files on stdin and stdout, for an editor to start:
    diagnostics while typing, formatting, symbols, completion and hover."""

    sys.exit(serve())
