"""The `pillbox` command line: the group of commands, and the exit codes (`compiler.errors`)."""

from __future__ import annotations

import importlib
import os
import signal
import sys
import traceback
from typing import Any

import click

from compiler import __version__
from compiler.commands.common import Terminated
from compiler.errors import EXIT_CONTENT, EXIT_INTERNAL
from compiler.terminal import terminal_safe

COMMANDS = {
    "build": "compiler.commands.build:build",
    "check": "compiler.commands.check:check",
    "export": "compiler.commands.export:export",
    "fmt": "compiler.commands.fmt:fmt",
    "lsp": "compiler.commands.lsp:lsp",
    "new": "compiler.commands.new:new",
    "odds": "compiler.commands.odds:odds",
    "play": "compiler.commands.play:play",
    "print": "compiler.commands.print:print_command",
    "replay": "compiler.commands.replay:replay",
    "report": "compiler.commands.report:report",
    "serve": "compiler.commands.serve:serve",
    "simulate": "compiler.commands.simulate:simulate",
    "test": "compiler.commands.test:test_command",
    "vocab": "compiler.commands.vocab:vocab",
}
"""Each command and where it is defined: `module:name`, one module a command under
`compiler/commands/`. A command's module is imported only when that command runs (or `--help`
lists them all): `pillbox check` never pays for the language server's or the printer's imports.
scripts/import_contracts.py reads this table as imports of this module."""


class _Group(click.Group):
    """Loads each command from its module when it is asked for (`COMMANDS`), and turns any
    unexpected exception into one line and exit code 3."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, in order."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command of that name, its module imported now; None for an unknown name."""
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        module, name = where.split(":")
        command = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command), where
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Terminated:
            click.echo("pillbox: terminated", err=True)
            ctx.exit(128 + signal.SIGTERM)
        except KeyboardInterrupt:
            click.echo("pillbox: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader went away (`pillbox check | head`): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(EXIT_CONTENT)
        except BaseException as error:
            if isinstance(error, SystemExit):
                raise
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            else:
                click.echo(
                    terminal_safe(
                        f"pillbox: internal error: {type(error).__name__}: {error} "
                        "(this is a bug; run again with --debug for the traceback)"
                    ),
                    err=True,
                )
            ctx.exit(EXIT_INTERNAL)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pillbox")
@click.option("--debug", is_flag=True, help="Show a traceback when pillbox itself fails.")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """Check, compile, simulate and print the cards of hospital-horror board games."""
    ctx.obj = {"debug": debug}
