"""The `pillbox` command line. Exit codes: 0 clean, 1 content errors, 2 usage, 3 internal error."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from compiler import __version__
from compiler.render import Style
from compiler.signals import raising
from compiler.terminal import echo, terminal_safe

EXIT_CLEAN, EXIT_CONTENT, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so it stops as Ctrl-C does (see `print`)."""


class _Group(click.Group):
    """Turns any unexpected exception into one line and exit code 3."""

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
    from compiler.render import plain, render_github, render_json, render_text, summary_line

    try:
        report = check_paths(
            list(paths), ruleset, use_cache=not no_cache, validate_ir=validate_ir or None
        )
    except UsageError as error:
        raise click.UsageError(terminal_safe(str(error))) from None
    diagnostics = report.diagnostics
    style = _style(color) if output_format == "text" else plain
    emit = echo(style)
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


def _style(color: str) -> Style:
    from compiler.render import ansi, plain

    return ansi if _use_colour(color) else plain


_RULESET_OPTION = click.option(
    "--ruleset", "ruleset", metavar="NAME", help="The ruleset of loose .card files."
)
_COLOR_OPTION = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text output.",
)


def _usage(run: Callable[[], int]) -> int:
    """Run a command; a problem with the command line becomes click's usage error (exit 2)."""
    from compiler.check import UsageError

    try:
        return run()
    except UsageError as error:
        raise click.UsageError(terminal_safe(str(error))) from None


@main.command("test")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("-k", "pattern", metavar="PATTERN", help="Only tests whose card or name has this.")
@click.option("-v", "--verbose", is_flag=True, help="A line per test, not a dot.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How to report.",
)
@_RULESET_OPTION
@_COLOR_OPTION
def test_command(
    pack: Path,
    pattern: str | None,
    verbose: bool,
    output_format: str,
    ruleset: str | None,
    color: str,
) -> None:
    """Run the `test` blocks written next to the cards; exit 1 if any fails."""
    from compiler.commands import run_tests

    style = _style(color)
    sys.exit(
        _usage(
            lambda: run_tests(pack, ruleset, pattern, output_format, verbose, echo(style), style)
        )
    )


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("title")
@click.option("--variant", type=click.IntRange(1, 10_000), help="Which variant of the card.")
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@click.option("--json", "as_json", is_flag=True, help="Print the odds as JSON.")
@click.option(
    "--against",
    metavar="TITLE",
    help="Face the actor that card is (a monster): on your space, as your target.",
)
@_RULESET_OPTION
@_COLOR_OPTION
def odds(
    pack: Path,
    title: str,
    variant: int | None,
    settings: tuple[str, ...],
    as_json: bool,
    against: str | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Work out the exact odds of every outcome of a card's options or blocks."""
    from compiler.odds import OddsRequest, show_odds

    request = OddsRequest(title, variant, settings, as_json, against)
    style = _style(color)
    sys.exit(_usage(lambda: show_odds(pack, ruleset, request, echo(style), style)))


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), required=True, help="The HTML file."
)
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@_RULESET_OPTION
@_COLOR_OPTION
def report(
    pack: Path, output: Path, settings: tuple[str, ...], ruleset: str | None, color: str
) -> None:
    """Write one HTML page of every card with its odds charted, flags and diagnostics."""
    from compiler.report.report import ReportRequest, make_report

    request = ReportRequest(output, settings)
    style = _style(color)
    sys.exit(_usage(lambda: make_report(pack, ruleset, request, echo(style), style)))


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("title")
@click.option("--variant", type=click.IntRange(1, 10_000), help="Which variant of the card.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the dice and shuffles (default: a new one, printed so a run can be repeated).",
)
@click.option("--set", "settings", multiple=True, metavar="NAME=N", help="Set a stat first.")
@click.option(
    "--choose",
    "answers",
    multiple=True,
    metavar="ANSWER",
    help="Answer the next question (an option title, yes or no); repeat in order.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the card, seed, state and log as JSON."
)
@click.option(
    "--against",
    metavar="TITLE",
    help="Face the actor that card is (a monster): on your space, as your target.",
)
@_RULESET_OPTION
@_COLOR_OPTION
def play(
    pack: Path,
    title: str,
    variant: int | None,
    seed: int | None,
    settings: tuple[str, ...],
    answers: tuple[str, ...],
    as_json: bool,
    against: str | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play one card as the narrator reads it: pick, roll, see what happens."""
    import secrets

    from compiler.commands import PlayRequest, play_card

    request = PlayRequest(
        title,
        variant,
        seed if seed is not None else secrets.randbelow(1_000_000),
        settings,
        answers,
        as_json,
        interactive=sys.stdin.isatty(),
        against=against,
    )

    def ask(prompt: str) -> str:
        return str(click.prompt(terminal_safe(prompt), prompt_suffix=" "))

    style = _style(color)
    sys.exit(_usage(lambda: play_card(pack, ruleset, request, echo(style), ask, style)))


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "--emit", "emit_kind", type=click.Choice(["python"]), help="Print the generated Python."
)
@click.option("--text", is_flag=True, help="Print every card's rules text.")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), help="Write the checked IR as JSON here."
)
@_RULESET_OPTION
@_COLOR_OPTION
def build(
    pack: Path,
    emit_kind: str | None,
    text: bool,
    output: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Compile a pack: show its generated Python or rules text, or write its IR."""
    from compiler.commands import build_pack

    style = _style(color)
    sys.exit(
        _usage(
            lambda: build_pack(
                pack, ruleset, emit_kind == "python", text, output, echo(style), style
            )
        )
    )


@main.command("print")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="The PDF.")
@click.option("--card", help="poker, bridge, tarot, mini, square or WxHmm (default: pack.yaml).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), help="Paper for sheets.")
@click.option("--bleed", help="Bleed around each card, e.g. 3mm.")
@click.option("--marks", type=click.Choice(["crop", "none"]), help="Cut marks.")
@click.option("--layout", type=click.Choice(["sheet", "single"]), help="Sheets, or a card a page.")
@click.option("--backs", type=click.Choice(["duplex", "none"]), help="Back pages for duplex.")
@click.option("--only", metavar='KIND|"Title"', help="Print only one kind or one card.")
@click.option("--png", type=click.Path(path_type=Path), help="Also write a PNG per card here.")
@click.option("--dpi", type=click.IntRange(30, 600), default=150, show_default=True)
@click.option("--no-cache", is_flag=True, help="Use and keep no cache: lay every face out again.")
@_RULESET_OPTION
@_COLOR_OPTION
def print_command(
    pack: Path,
    output: Path,
    card: str | None,
    paper: str | None,
    bleed: str | None,
    marks: str | None,
    layout: str | None,
    backs: str | None,
    only: str | None,
    png: Path | None,
    dpi: int,
    no_cache: bool,
    ruleset: str | None,
    color: str,
) -> None:
    """Lay the cards out as print-and-play PDF sheets (or one card per page)."""
    from compiler import cache
    from compiler.commands import PrintRequest, print_cards

    overrides = {
        "card": card,
        "paper": paper,
        "bleed": bleed,
        "marks": marks,
        "layout": layout,
        "backs": backs,
    }
    request = PrintRequest(output, overrides, only, png, dpi)
    progress = _progress_bar if sys.stderr.isatty() else None
    style = _style(color)
    # SIGTERM unwinds a print as Ctrl-C does: its workers are killed, its temporary files
    # removed, and nothing it would have replaced is touched.
    with cache.enabled(not no_cache), raising(signal.SIGTERM, Terminated):
        code = _usage(lambda: print_cards(pack, ruleset, request, echo(style), style, progress))
    sys.exit(code)


def _progress_bar(done: int, total: int, doing: str = "rendering cards") -> None:
    """A one-line bar on the terminal while card faces render; cleared at the end."""
    width = 30
    filled = width * done // max(total, 1)
    line = f"\r{doing} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    click.echo(line + ("\r" + " " * len(line) + "\r" if done >= total else ""), nl=False, err=True)


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True)
@click.option("--players", type=int, help="Seats at the table (default: the fewest, or --seats).")
@click.option("--policy", metavar="NAME", help="The policy of every seat (default: random).")
@click.option("--seats", metavar="P1,P2,...", help="A policy for each seat, in seat order.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the sweep (default: a new one, printed so a run can be repeated).",
)
@click.option(
    "--workers", type=click.IntRange(1, 512), help="Worker processes (default: every core)."
)
@click.option("--until", "until", metavar="PHASE", help="Play to the end of this phase.")
@click.option("--json", "as_json", is_flag=True, help="Print every figure as JSON.")
@click.option(
    "--report", type=click.Path(path_type=Path), help="Also write an HTML page of charts here."
)
@click.option(
    "--compare",
    type=click.Path(path_type=Path),
    metavar="OTHER_PACK",
    help="Also play a variant pack; print the difference of every figure.",
)
@_RULESET_OPTION
@_COLOR_OPTION
def simulate(
    pack: Path,
    games: int,
    players: int | None,
    policy: str | None,
    seats: str | None,
    seed: int | None,
    workers: int | None,
    until: str | None,
    as_json: bool,
    report: Path | None,
    compare: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play many whole games with policies in the seats; print their figures."""
    import secrets

    from compiler.simulate.command import SimulateRequest
    from compiler.simulate.command import simulate as run_simulation

    request = SimulateRequest(
        games,
        seed if seed is not None else secrets.randbelow(1_000_000),
        players,
        policy,
        seats,
        workers,
        until,
        as_json,
        report,
        compare,
    )
    progress = None
    if sys.stderr.isatty():

        def progress(done: int, total: int) -> None:
            _progress_bar(done, total, "playing games")

    style = _style(color)
    # SIGTERM unwinds a sweep as Ctrl-C does: its workers are killed, no page is half-written.
    with raising(signal.SIGTERM, Terminated):
        code = _usage(lambda: run_simulation(pack, ruleset, request, echo(style), style, progress))
    sys.exit(code)
