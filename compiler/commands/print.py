"""`pillbox print`: the cards laid out as print-and-play PDF sheets, PNG previews and Tabletop
Simulator decks; and the calibration page for duplex backs.
"""

from __future__ import annotations

import errno
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from compiler import cache
from compiler.build import load_checked
from compiler.commands.common import (
    COLOR_OPTION,
    RULESET_OPTION,
    Terminated,
    progress_bar,
    style_of,
    usage,
)
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.ir import Card
from compiler.patterns import did_you_mean
from compiler.playing import Emit, report_errors
from compiler.printing.calibrate import write_calibration
from compiler.printing.output import unwritable
from compiler.printing.sheets import print_pack, select
from compiler.printing.sizes import OptionError, resolve_options
from compiler.printing.tts import TtsRequest
from compiler.render import Style, counted, plain, render_text
from compiler.signals import raising
from compiler.terminal import echo


@click.command("print")
@click.argument("pack", type=click.Path(path_type=Path), required=False)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="The PDF (or give --tts).")
@click.option("--card", help="poker, bridge, tarot, mini, square or WxHmm (default: pack.yaml).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), help="Paper for sheets.")
@click.option("--bleed", help="Bleed around each card, e.g. 3mm.")
@click.option("--marks", type=click.Choice(["crop", "none"]), help="Cut marks.")
@click.option("--layout", type=click.Choice(["sheet", "single"]), help="Sheets, or a card a page.")
@click.option("--backs", type=click.Choice(["duplex", "none"]), help="Back pages for duplex.")
@click.option(
    "--only",
    "only_given",
    metavar='KIND|"Title"',
    multiple=True,
    help="Print only one kind or one card.",
)
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
@RULESET_OPTION
@COLOR_OPTION
def print_command(
    pack: Path | None,
    output: Path | None,
    card: str | None,
    paper: str | None,
    bleed: str | None,
    marks: str | None,
    layout: str | None,
    backs: str | None,
    only_given: tuple[str, ...],
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

    if len(only_given) > 1:
        # click would keep the last one alone: three --only printed one card.
        named = ", ".join(repr(each) for each in only_given)
        sys.exit(usage(lambda: _only_once(named)))
    only = only_given[0] if only_given else None
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
        others |= {"ruleset": ruleset, "strict": strict or None, "no_cache": no_cache or None}
        # --dpi has a default, so only where it came from tells whether it was given.
        dpi_from = click.get_current_context().get_parameter_source("dpi")
        others["dpi"] = dpi if dpi_from != ParameterSource.DEFAULT else None
        sys.exit(usage(lambda: _calibrate(pack, calibrate, output, overrides, others, echo())))
    request = PrintRequest(output, overrides, only, png, dpi, strict, tts, tts_url)
    progress = progress_bar if sys.stderr.isatty() else None
    style = style_of(color)
    # SIGTERM unwinds a print as Ctrl-C does: its workers are killed, its temporary files
    # removed, and nothing it would have replaced is touched.
    with cache.enabled(not no_cache), raising(signal.SIGTERM, Terminated):
        code = usage(lambda: print_cards(pack, ruleset, request, echo(style), style, progress))
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


@dataclass
class PrintRequest:
    """What `pillbox print` was asked."""

    output: Path | None
    overrides: dict[str, Any]
    only: str | None = None
    png: Path | None = None
    dpi: int = 150
    strict: bool = False  # a warning (text that does not fit) fails the print too
    tts: Path | None = None
    tts_url: str | None = None


def _web_prefix(url: str) -> bool:
    return url.startswith(("http://", "https://")) and len(url.split("//", 1)[1]) > 0


def _folder_url(url: str | None) -> str | None:
    """The address a file's name is appended to: `--tts-url`, ending in a slash."""
    return None if url is None else url if url.endswith("/") else url + "/"


def print_cards(
    path: Path,
    ruleset: str | None,
    request: PrintRequest,
    emit: Emit,
    style: Style = plain,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Lay a pack's cards out as a PDF (and PNG previews); report what was written."""

    if request.output is None and request.tts is None:
        raise UsageError(
            "print writes a PDF (-o FILE.pdf), Tabletop Simulator decks (--tts DIR), or both"
        )
    if request.tts_url is not None and not _web_prefix(request.tts_url):
        raise UsageError(f"--tts-url {request.tts_url}: give an http:// or https:// address")
    if request.tts_url is not None and request.tts is None:
        raise UsageError("--tts-url is the address of the --tts folder's files: give --tts DIR too")
    problem = unwritable(request.output, request.png, request.tts)  # before any is written
    if problem is not None:
        raise UsageError(problem)
    loaded = load_checked(path, ruleset, request.only)
    if loaded.pack is None:
        return report_errors(loaded, path, emit, style)
    if loaded.left_out:
        echo(style, err=True)(
            style("note:", "note")
            + f" left out {', '.join(loaded.left_out)}, which has errors: "
            + f"--only {request.only!r} is printed from the rest"
        )
    overrides = request.overrides
    if request.output is None:  # no sheets: a card larger than the paper is no one's problem
        overrides = {**overrides, "layout": "single"}
    try:
        options = resolve_options(loaded.pack.print_settings, overrides)
    except OptionError as error:
        raise UsageError(str(error)) from None
    if request.only and not select(loaded.pack.cards, request.only):
        raise UsageError(_only_matches_nothing(request.only, loaded.pack.cards))
    if options.back_offset != (0.0, 0.0) and not options.backs and request.output is not None:
        echo(style, err=True)(
            style("note:", "note")
            + " the back offset moves back pages, and this print has none: add --backs duplex"
        )
    try:
        printed = print_pack(
            loaded.pack,
            options,
            request.output,
            request.only,
            request.png,
            request.dpi,
            progress,
            request.strict,
            TtsRequest(request.tts, _folder_url(request.tts_url)) if request.tts else None,
        )
    except OSError as error:
        if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
            # A folder that was not there when the print began is there now, with files: two
            # prints raced into one new folder. Not the command line's fault: nothing of this
            # print was written, and printing again puts its files there.
            emit(
                f"nothing written: {error.filename} was made by something else while this "
                "print ran (another print?); print again"
            )
            return EXIT_CONTENT
        raise UsageError(
            f"cannot write {error.filename or request.output or request.tts}: {error.strerror}"
        ) from None
    sources = {**loaded.sources}
    for diagnostic in printed.diagnostics:
        emit(render_text(diagnostic, sources, style) + "\n")
    if printed.failed:
        problems = "warnings (--strict)" if request.strict else "errors"
        unchanged = request.output or request.tts
        emit(f"nothing written: fix the {problems} above ({unchanged} is unchanged)")
        return EXIT_CONTENT
    if request.output is not None:
        emit(
            f"wrote {request.output}: {counted(printed.cards, 'card')} on "
            f"{counted(printed.pages, 'page')} "
            f"({options.card} {options.width:g} × {options.height:g} mm, {options.layout}, "
            f"{options.paper if options.layout == 'sheet' else 'one per page'}"
            + (f", bleed {options.bleed:g} mm" if options.bleed else "")
            + (", duplex backs" if options.backs else "")
            + ")"
        )
    if printed.pngs:
        emit(f"wrote {counted(len(printed.pngs), 'PNG preview')} to {request.png}")
    if printed.tts is not None:
        sheets = sum(len(deck.sheets) for deck in printed.tts.decks)
        emit(
            f"wrote {counted(len(printed.tts.decks), 'Tabletop Simulator deck')} "
            f"({counted(printed.cards, 'card')}, {counted(sheets, 'sheet')}) to {request.tts}: "
            f"copy {printed.tts.json_name} into Tabletop Simulator's Saves/Saved Objects"
        )
    return EXIT_CLEAN


def _only_once(named: str) -> int:
    """A usage error: `--only` given more than once."""
    raise UsageError(
        f"--only is given {named}: it takes one kind or one card title; print each in turn"
    )


def _only_matches_nothing(only: str, cards: Sequence[Card]) -> str:
    """`--only` names no kind or title: the closest of them, and the kinds to pick from."""
    kinds = sorted({card["kind"] for card in cards})
    titles = sorted({card["title"] for card in cards})
    guess = did_you_mean(only, [*kinds, *titles])
    return (
        f"--only {only!r} names no kind or card title of the pack; "
        + (f"{guess} " if guess else "")
        + f"the kinds: {', '.join(kinds)} (or a title, as `pillbox build --text` lists them)"
    )
