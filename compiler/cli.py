"""The `pillbox` command line. Exit codes: 0 clean, 1 content errors, 2 usage, 3 internal error."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from compiler import __version__
from compiler.render import Style
from compiler.signals import raising
from compiler.terminal import echo, terminal_safe

if TYPE_CHECKING:
    from compiler.whole_game import GameRequest

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


def _use_colour(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="How to print the diagnostics (sarif: for code scanning).",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--strict-tests",
    is_flag=True,
    help="Report every card with effects and no test (W0331), and fail on it.",
)
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
    strict_tests: bool,
    ruleset: str | None,
    no_cache: bool,
    validate_ir: bool | None,
    color: str,
) -> None:
    """Check card packs, pack.yaml files or .card files (the folder you are in, when none is
    named); report every problem in one run."""
    from compiler.check import UsageError, check_paths
    from compiler.render import plain, render_github, render_json, render_text, summary_line

    try:
        report = check_paths(
            list(paths) or [Path(".")],  # no path: the pack of the folder you are in
            ruleset,
            use_cache=not no_cache,
            validate_ir=validate_ir or None,
            strict_tests=strict_tests,
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
    elif output_format == "sarif":
        from compiler.sarif import render_sarif

        emit(render_sarif(diagnostics))
    else:
        for diagnostic in diagnostics:
            emit(render_text(diagnostic, report.sources, style) + "\n")
    if output_format not in ("json", "sarif"):
        for result in report.packs:
            emit(
                summary_line(
                    result.pack.name,
                    result.card_count,
                    len(result.files),
                    result.errors,
                    result.warnings,
                    result.executable,
                    result.allowed,
                )
            )
    untested = strict_tests and any(d.code == "W0331" for d in diagnostics)
    failed = report.errors > 0 or (strict and report.warnings > 0) or untested
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


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a file would change.")
@click.option("--diff", is_flag=True, help="Show what would change, as a unified diff.")
def fmt(paths: tuple[Path, ...], check: bool, diff: bool) -> None:
    """Lay card files out in the one canonical layout (the folder you are in, when no path is
    named); comments stay where they were."""
    from compiler.fmt import format_paths

    sys.exit(_usage(lambda: format_paths(list(paths) or [Path(".")], check, diff, echo())))


@main.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--ruleset", "ruleset", metavar="NAME", help="The bundled ruleset (coma-ward).")
@click.option("--from", "bundled", metavar="PACK", help="Copy a bundled pack instead.")
def new(folder: Path, ruleset: str | None, bundled: str | None) -> None:
    """Make a new pack that checks and tests clean: pack.yaml, an example card of each kind,
    templates/, .gitignore, a CI workflow and a pre-commit config."""
    from compiler.newpack import new_pack

    sys.exit(_usage(lambda: new_pack(folder, ruleset, bundled, echo())))


@main.command()
@click.argument("words", nargs=-1, metavar="[KIND] [PACK]")
@click.option("--ruleset", "ruleset", metavar="NAME", help="A bundled ruleset, or a ruleset file.")
@click.option("--json", "as_json", is_flag=True, help="Print the vocabulary as JSON.")
def vocab(words: tuple[str, ...], ruleset: str | None, as_json: bool) -> None:
    """List what a card (of one kind) may say: properties, blocks, verbs, conditions, values,
    checks, each with its pattern and summary; and the ruleset's stats, places and decks."""
    from compiler.vocab import show_vocabulary

    sys.exit(_usage(lambda: show_vocabulary(words, ruleset, as_json, echo())))


@main.command()
def lsp() -> None:
    """Run the language server for card files on stdin and stdout, for an editor to start:
    diagnostics while typing, formatting, symbols, completion and hover."""
    from compiler.lsp.server import serve

    sys.exit(serve())


@main.command("test")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("-k", "pattern", metavar="PATTERN", help="Only tests whose card or name has this.")
@click.option("-v", "--verbose", is_flag=True, help="A line per test, not a dot.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "junit"]),
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
@_RULESET_OPTION
@_COLOR_OPTION
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
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The port on 127.0.0.1 (0: a free one).",
)
@_RULESET_OPTION
@_COLOR_OPTION
def serve(pack: Path, port: int, ruleset: str | None, color: str) -> None:
    """Show the pack as a local page (127.0.0.1 only) that follows every saved change."""
    from compiler.serve.watch import serve_pack

    style = _style(color)
    # SIGTERM stops it as Ctrl-C does: the server closed, its face pictures removed.
    with raising(signal.SIGTERM, Terminated):
        code = _usage(lambda: serve_pack(pack, ruleset, port, echo(style), style))
    sys.exit(code)


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("title", required=False)
@click.option(
    "--variant",
    type=VARIANT,
    help="Which variant of the card: a number, or random to draw one as the deck would.",
)
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
@click.option("--game", "whole", is_flag=True, help="Play a whole game, not one card.")
@click.option("--players", type=click.IntRange(1, 100), help="Seats of a whole game.")
@click.option("--policy", metavar="NAME", help="Who plays every seat (random, bold...).")
@click.option("--seats", metavar="P1,P2,...", help="Who plays each seat: a policy or human.")
@click.option("--until", metavar="PHASE", help="Play to the end of this phase (default: all).")
@click.option(
    "--record", type=click.Path(path_type=Path), help="Write the game's moves to this file."
)
@_RULESET_OPTION
@_COLOR_OPTION
def play(
    pack: Path,
    title: str | None,
    variant: int | str | None,
    seed: int | None,
    settings: tuple[str, ...],
    answers: tuple[str, ...],
    as_json: bool,
    against: str | None,
    whole: bool,
    players: int | None,
    policy: str | None,
    seats: str | None,
    until: str | None,
    record: Path | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Play one card as the narrator reads it: pick, roll, see what happens. With --game, a
    whole game, each seat played by a policy or by you."""
    import secrets

    from compiler.commands import PlayRequest, play_card

    seed = seed if seed is not None else secrets.randbelow(1_000_000)
    style = _style(color)
    if whole:
        card_options = {"variant": variant, "set": settings, "choose": answers, "against": against}
        for name, value in card_options.items():
            if value:
                raise click.UsageError(f"--{name} is for playing a card; --game plays a whole game")
        from compiler.whole_game import GameRequest

        if title is not None:
            raise click.UsageError(f"--game plays a whole game; it takes no card ({title!r})")
        game = GameRequest(
            str(pack),
            seed,
            players,
            policy,
            seats.split(",") if seats is not None else None,
            until,
            as_json,
            record,
            interactive=sys.stdin.isatty(),
        )
        _play_whole_game(pack, game, ruleset, style)
    _card_only(
        title,
        variant=variant,
        players=players,
        policy=policy,
        seats=seats,
        until=until,
        record=record,
    )
    assert title is not None
    request = PlayRequest(
        title,
        variant,
        seed,
        settings,
        answers,
        as_json,
        interactive=sys.stdin.isatty(),
        against=against,
    )
    sys.exit(_usage(lambda: play_card(pack, ruleset, request, echo(style), _ask_or_stop, style)))


def _ask(prompt: str) -> str:
    """Read an answer at the terminal (or from piped input)."""
    return str(click.prompt(terminal_safe(prompt), prompt_suffix=" "))


def _ask_or_stop(prompt: str) -> str:
    """Read an answer; Ctrl-C or Ctrl-D (the end of the input) stops the game."""
    try:
        return _ask(prompt)
    except click.Abort:
        raise KeyboardInterrupt from None


def _card_only(title: str | None, **whole_game_options: Any) -> None:
    """Without --game, a card to play, and none of the options of a whole game."""
    if title is None:
        raise click.UsageError("name the card to play, or give --game to play a whole game")
    for name, value in whole_game_options.items():
        if value is not None and name != "variant":
            raise click.UsageError(f"--{name} is for a whole game: add --game")


def _play_whole_game(pack: Path, request: GameRequest, ruleset: str | None, style: Style) -> None:
    """`play --game`: one whole game; exits."""
    from compiler.whole_game import play_game

    sys.exit(_usage(lambda: play_game(pack, ruleset, request, echo(style), _ask_or_stop, style)))


@main.command()
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--pack", type=click.Path(path_type=Path), help="The pack, if not where the record says."
)
@click.option("--json", "as_json", is_flag=True, help="Print the log and outcome as JSON.")
@_RULESET_OPTION
@_COLOR_OPTION
def replay(file: Path, pack: Path | None, as_json: bool, ruleset: str | None, color: str) -> None:
    """Play back a game recorded with play --game --record; fail where it no longer replays."""
    from compiler.whole_game import replay_game

    style = _style(color)
    sys.exit(_usage(lambda: replay_game(file, pack, ruleset, as_json, echo(style), style)))


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option(
    "--emit", "emit_kind", type=click.Choice(["python"]), help="Print the generated Python."
)
@click.option("--text", is_flag=True, help="Print every card's rules text.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write the checked IR as JSON: to FILE.json, or DIR/<pack>.ir.json.",
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


@main.command()
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--csv", "as_csv", is_flag=True, required=True, help="Write the cards as CSV.")
@click.option("--kind", metavar="KIND", help="Only the cards of this kind.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to FILE.")
@_RULESET_OPTION
@_COLOR_OPTION
def export(
    pack: Path, as_csv: bool, kind: str | None, output: Path | None, ruleset: str | None, color: str
) -> None:
    """Write the properties of a pack's cards as a sheet, which `sheets:` in pack.yaml reads."""
    from compiler.export import export_csv

    style = _style(color)
    sys.exit(_usage(lambda: export_csv(pack, ruleset, kind, output, echo(style), style)))


@main.command("print")
@click.argument("pack", type=click.Path(path_type=Path), required=False)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="The PDF (or give --tts).")
@click.option("--card", help="poker, bridge, tarot, mini, square or WxHmm (default: pack.yaml).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), help="Paper for sheets.")
@click.option("--bleed", help="Bleed around each card, e.g. 3mm.")
@click.option("--marks", type=click.Choice(["crop", "none"]), help="Cut marks.")
@click.option("--layout", type=click.Choice(["sheet", "single"]), help="Sheets, or a card a page.")
@click.option("--backs", type=click.Choice(["duplex", "none"]), help="Back pages for duplex.")
@click.option("--only", metavar='KIND|"Title"', help="Print only one kind or one card.")
@click.option("--png", type=click.Path(path_type=Path), help="Also write a PNG per card here.")
@click.option("--tts", type=click.Path(path_type=Path), help="Write Tabletop Simulator decks here.")
@click.option("--tts-url", metavar="PREFIX", help="The web address the --tts files are put at.")
@click.option("--dpi", type=click.IntRange(30, 600), default=150, show_default=True)
@click.option("--no-cache", is_flag=True, help="Use and keep no cache: lay every face out again.")
@click.option("--strict", is_flag=True, help="Fail, writing nothing, on warnings too (W0701).")
@click.option("--calibrate", is_flag=True, help="Write the front/back calibration page, no PACK.")
@click.option("--back-offset", metavar="Xmm,Ymm", help="Move back pages (as --calibrate reads).")
@click.option("--corners", metavar="3mm", help="Rounded-corner guides of this radius.")
@click.option("--cuts", type=click.Choice(["auto", "shared", "separate"]), help="Cut lines.")
@click.option("--low-ink", is_flag=True, default=None, help="No full-bleed colour; thin borders.")
@_RULESET_OPTION
@_COLOR_OPTION
def print_command(
    pack: Path | None,
    output: Path | None,
    card: str | None,
    paper: str | None,
    bleed: str | None,
    marks: str | None,
    layout: str | None,
    backs: str | None,
    only: str | None,
    png: Path | None,
    tts: Path | None,
    tts_url: str | None,
    dpi: int,
    no_cache: bool,
    strict: bool,
    calibrate: bool,
    back_offset: str | None,
    corners: str | None,
    cuts: str | None,
    low_ink: bool | None,
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
        "back_offset": back_offset,
        "corners": corners,
        "cuts": cuts,
        "low_ink": low_ink,
    }
    if calibrate or pack is None:
        others: dict[str, Any] = {"only": only, "png": png, "tts": tts, "tts_url": tts_url}
        others |= {"ruleset": ruleset, "strict": strict or None}
        sys.exit(_usage(lambda: _calibrate(pack, calibrate, output, overrides, others, echo())))
    request = PrintRequest(output, overrides, only, png, dpi, strict, tts, tts_url)
    progress = _progress_bar if sys.stderr.isatty() else None
    style = _style(color)
    # SIGTERM unwinds a print as Ctrl-C does: its workers are killed, its temporary files
    # removed, and nothing it would have replaced is touched.
    with cache.enabled(not no_cache), raising(signal.SIGTERM, Terminated):
        code = _usage(lambda: print_cards(pack, ruleset, request, echo(style), style, progress))
    sys.exit(code)


def _calibrate(
    pack: Path | None,
    calibrate: bool,
    output: Path | None,
    overrides: dict[str, Any],
    others: dict[str, Any],
    emit: Callable[[str], None],
) -> int:
    """`print --calibrate`: the calibration page, from --paper and --back-offset alone
    (`others`: the print's options that are no layout setting, refused here when given)."""
    from compiler.check import UsageError
    from compiler.printing.calibrate import write_calibration
    from compiler.printing.output import unwritable
    from compiler.printing.sizes import OptionError, resolve_options

    if not calibrate:
        raise UsageError("missing PACK: name the pack folder to print (or use --calibrate)")
    if pack is not None:
        raise UsageError(f"--calibrate prints a page of marks, not a pack: leave out {pack}")
    if output is None:
        raise UsageError("--calibrate writes a PDF: give -o FILE.pdf")
    given = {**overrides, **others}.items()
    extra = [k for k, v in given if v is not None and k not in CALIBRATE_OPTIONS]
    if extra:
        named = ", ".join("--" + name.replace("_", "-") for name in extra)
        raise UsageError(f"--calibrate takes only --paper and --back-offset, not {named}")
    problem = unwritable(output, None)
    if problem is not None:
        raise UsageError(problem)
    try:
        options = resolve_options({}, overrides)
        write_calibration(output, options)
    except OptionError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror}") from None
    emit(f"wrote {output}: calibration page, 2 pages ({options.paper}); read it as page 2 says")
    return EXIT_CLEAN


CALIBRATE_OPTIONS = ("paper", "back_offset")
"""What the calibration page is drawn from."""


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
@click.option(
    "--engine",
    type=click.Choice(["pool", "dask"]),
    default="pool",
    show_default=True,
    help="Where the games run: a process pool here, or a dask.distributed cluster.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="The dask scheduler (tcp://host:8786); without it, a LocalCluster of --workers here.",
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
    engine: str,
    scheduler: str | None,
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
        engine,
        scheduler,
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
