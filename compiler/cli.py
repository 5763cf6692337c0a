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
from compiler.simulate.compiled import import_compiled, usable_build
from compiler.terminal import terminal_safe

COMMANDS = {
    "build": (
        "compiler.commands.build:build",
        "Compile a pack: show its generated Python or rules text, or write its IR.",
    ),
    "check": (
        "compiler.commands.check:check",
        (
            "Check card packs, pack.yaml files or .card files (the folder you are in, when none "
            "is named); report every problem in one run."
        ),
    ),
    "export": (
        "compiler.commands.export:export",
        "Write the properties of a pack's cards as a sheet, which `sheets:` in pack.yaml reads.",
    ),
    "fmt": (
        "compiler.commands.fmt:fmt",
        (
            "Lay card files out in the one canonical layout (the folder you are in, when no path "
            "is named); comments stay where they were."
        ),
    ),
    "lsp": (
        "compiler.commands.lsp:lsp",
        (
            "Run the language server for card files on stdin and stdout, for an editor to start: "
            "diagnostics while typing, formatting, symbols, completion and hover."
        ),
    ),
    "new": (
        "compiler.commands.new:new",
        (
            "Make a new pack that checks and tests clean: the game's smallest pack that plays a "
            "whole game (with --game, a whole game of its own), templates/, .gitignore, a CI "
            "workflow and a pre-commit config."
        ),
    ),
    "odds": (
        "compiler.commands.odds:odds",
        "Work out the exact odds of every outcome of a card's options or blocks.",
    ),
    "play": (
        "compiler.commands.play:play",
        (
            "Play one card as the narrator reads it: pick, roll, see what happens. With --game, a"
            " whole game, each seat played by a policy or by you."
        ),
    ),
    "print": (
        "compiler.commands.print:print_command",
        "Lay the cards out as print-and-play PDF sheets (or one card per page).",
    ),
    "replay": (
        "compiler.commands.replay:replay",
        "Play back a game recorded with play --game --record; fail where it no longer replays.",
    ),
    "report": (
        "compiler.commands.report:report",
        "Write one HTML page of every card with its odds charted, flags and diagnostics.",
    ),
    "serve": (
        "compiler.commands.serve:serve",
        "Show the pack as a local page (127.0.0.1 only) that follows every saved change.",
    ),
    "simulate": (
        "compiler.commands.simulate:simulate",
        "Play many whole games with policies in the seats; print their figures.",
    ),
    "table": (
        "compiler.commands.table:table",
        (
            "Play a whole game of the pack in the browser (127.0.0.1 unless --share): every rule "
            "enforced, bots in the seats no person takes, undo, and the game's record to replay."
        ),
    ),
    "test": (
        "compiler.commands.test:test_command",
        "Run the `test` blocks written next to the cards; exit 1 if any fails.",
    ),
    "tune": (
        "compiler.commands.tune:tune",
        "Find the smallest change to the cards' numbers that meets balance targets.",
    ),
    "vocab": (
        "compiler.commands.vocab:vocab",
        (
            "List what a card (of one kind) may say: properties, blocks, verbs, conditions, "
            "values, checks, each with its pattern and summary; and the ruleset's stats, places "
            "and decks."
        ),
    ),
}
"""Each command, where it is defined (`module:name`, one module a command under
`compiler/commands/`) and the first paragraph of its help. A command's module is imported only
when that command runs: `pillbox check` never pays for the language server's or the printer's
imports, and `pillbox --help` lists them all from here (a test holds the paragraphs to the
commands' own). scripts/import_contracts.py reads this table as imports of this module."""

PLAYS_SWEEPS = frozenset({"simulate"})
"""The commands that play sweeps of games: they run on the compiled runtime when `make compiled`
has a fresh build (`compiler.simulate.compiled`), imported before the command's module imports
any of the runtime, so that the pack is compiled once, here, and the workers forked with it."""


class _Group(click.Group):
    """Loads each command from its module when it is asked for (`COMMANDS`), and turns any
    unexpected exception into one line and exit code 3."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, in order."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command of that name, its module imported now; None for an unknown name."""
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if cmd_name in PLAYS_SWEEPS:
            import_compiled(usable_build())
        module, name = entry[0].split(":")
        command = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command), entry
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands, as click writes it, without importing a command's module."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [
            (name, click.Command(name, help=summary).get_short_help_str(limit))
            for name, (_, summary) in sorted(COMMANDS.items())
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
