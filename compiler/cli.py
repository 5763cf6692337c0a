"""The `pillbox` command line. Exit codes: 0 clean, 1 content errors, 2 usage, 3 internal error."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from compiler import __version__

EXIT_CLEAN, EXIT_CONTENT, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class _Group(click.Group):
    """Turns any unexpected exception into one line and exit code 3."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
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
                    f"pillbox: internal error: {type(error).__name__}: {error} "
                    "(this is a bug; run again with --debug for the traceback)",
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


def _use_colour(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="How to print the diagnostics.",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--ruleset", "ruleset", metavar="NAME", help="Check loose .card files with this ruleset."
)
@click.option("--no-cache", is_flag=True, help="Ignore and do not update the check cache.")
@click.option(
    "--validate-ir",
    is_flag=True,
    default=None,
    help="Also validate every card's compiled IR against schemas/ir.schema.json "
    "(finds bugs in pillbox itself; slow). Also on with PILLBOX_VALIDATE_IR=1.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text output.",
)
def check(
    paths: tuple[Path, ...],
    output_format: str,
    strict: bool,
    ruleset: str | None,
    no_cache: bool,
    validate_ir: bool | None,
    color: str,
) -> None:
    """Check card packs, pack.yaml files or .card files; report every problem in one run."""
    from compiler.check import UsageError, check_paths
    from compiler.render import ansi, plain, render_github, render_json, render_text, summary_line

    try:
        report = check_paths(
            list(paths), ruleset, use_cache=not no_cache, validate_ir=validate_ir or None
        )
    except UsageError as error:
        raise click.UsageError(str(error)) from None
    diagnostics = report.diagnostics
    emit: Callable[[str], None] = click.echo
    if output_format == "json":
        emit(
            render_json(
                [p.pack.name for p in report.packs],
                report.files,
                report.cards,
                report.executable,
                diagnostics,
            )
        )
    elif output_format == "github":
        for diagnostic in diagnostics:
            emit(render_github(diagnostic))
    else:
        style = ansi if _use_colour(color) else plain
        for diagnostic in diagnostics:
            emit(render_text(diagnostic, report.sources, style) + "\n")
    if output_format != "json":
        for result in report.packs:
            emit(
                summary_line(
                    result.pack.name,
                    result.card_count,
                    len(result.files),
                    result.errors,
                    result.warnings,
                    result.executable,
                )
            )
    failed = report.errors > 0 or (strict and report.warnings > 0)
    sys.exit(EXIT_CONTENT if failed else EXIT_CLEAN)
