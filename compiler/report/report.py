"""`pillbox report PACK -o report.html`: one self-contained page to look at a pack's balance.

The page shows every card's face as print renders it, and for each option or effect block a
chart of its outcomes across the stat its checks roll, its expected stat changes and its
flags; then the pack's executable share and every diagnostic, each linked to its card. It
needs no script, no network and no file beside it: CSS and SVG are inline, and the page's
Content Security Policy forbids scripts and fetches. A card whose odds cannot be worked out
is shown with its error instead of its charts, and an image print would refuse is left out of
its face with print's error; the page is written all the same, and the command exits 1.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from compiler import __version__
from compiler.build import CompiledPack
from compiler.check import check_paths
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.files import write_atomically
from compiler.playing import Emit, load_compiled
from compiler.printing.faces import TemplateProblem
from compiler.printing.refusals import refusal_diagnostics
from compiler.printing.sizes import OptionError, resolve_options
from compiler.render import Style, counted, plain, render_text
from compiler.report.analysis import (
    RARE,
    VARIANT_THRESHOLD,
    Analysis,
    BlockReport,
    CardReport,
    Flag,
    analyse,
    left_out_text,
    percent,
    signed,
)
from compiler.report.charts import LEFT, TOP, chart
from compiler.report.faces import FACE_POLICY, FACE_SANDBOX, MAX_FACE_BYTES, FaceRenderer
from dsl.spans import Diagnostic, Span

FLAG_KINDS = {
    "branch": "Branches under 2 % or over 98 %",
    "dominated": "Options no better than another on any stat",
    "endless": "Uses that spend nothing and have no limit",
    "variants": "Variants that differ",
}


@dataclass(frozen=True)
class ReportRequest:
    """What `pillbox report` was asked."""

    output: Path
    settings: Sequence[str] = ()


@dataclass(frozen=True)
class Share:
    """The pack's executable share and the diagnostics `pillbox check` reports."""

    executable: float
    diagnostics: list[Diagnostic]


@dataclass(frozen=True)
class Live:
    """What `pillbox serve` adds to a report page: its script and policy, the generation of the
    pack it shows, and by card anchor a printed face picture, a card page and a panel."""

    script: str
    policy: str
    generation: int
    home: str | None = None  # the pack page, from a card page
    pictures: Mapping[str, str] = field(default_factory=dict)
    pages: Mapping[str, str] = field(default_factory=dict)
    panels: Mapping[str, Markup] = field(default_factory=dict)
    notice: Markup | None = None  # above everything: what is left out of the pack, and why


def make_report(
    path: Path, ruleset: str | None, request: ReportRequest, emit: Emit, style: Style = plain
) -> int:
    """Check, compile and walk a pack; write its report page (nothing if anything fails)."""
    output = request.output
    check_html_output(output, "-o")
    compiled = load_compiled(path, ruleset, emit, style)
    if compiled is None:
        return EXIT_CONTENT
    try:
        options = resolve_options(compiled.checked.print_settings, {})
    except OptionError as error:
        raise UsageError(str(error)) from None
    analysis = analyse(compiled, request.settings)
    sources = compiled.sources()
    renderer = FaceRenderer(compiled.checked, options)
    try:
        faces = render_faces(renderer, analysis.cards)
    except TemplateProblem as problem:  # the design itself: no face can be shown
        emit(render_text(problem.diagnostic, sources, style) + "\n")
        emit(f"nothing written: fix the errors above ({output} is unchanged)")
        return EXIT_CONTENT
    problems = [*analysis.problems, *faces_left_out(analysis.cards, faces)]
    problems += refusal_diagnostics(renderer.images.refused, renderer.cards)  # as print's
    problems += renderer.cards.no_room_for_art.values()  # W0711, as print's
    for diagnostic in problems:
        emit(render_text(diagnostic, sources, style) + "\n")
    checked = check_paths([path], ruleset)
    share = Share(checked.executable, [*checked.diagnostics, *problems])
    page = render_page(compiled, analysis, faces, renderer.frame_css(), share)
    try:
        write_atomically(output, page.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None
    charts = sum(len(card.blocks) for card in analysis.cards)
    flags = len(analysis.flags)
    failed = sum(1 for card in analysis.cards if card.failed is not None or card.unwalked)
    emit(
        f"wrote {output}: {counted(len(analysis.cards), 'card')}, {counted(charts, 'chart')}, "
        f"{counted(flags, 'flag')}, {counted(len(share.diagnostics), 'diagnostic')}, "
        f"{round(share.executable * 100)}% of effect lines executable"
        + (f"; the odds of {counted(failed, 'card')} cannot be worked out" if failed else "")
    )
    refused = any(d.severity == "error" for d in problems)
    return EXIT_CONTENT if failed or refused else EXIT_CLEAN


def check_html_output(output: Path, option: str) -> None:
    """A UsageError unless `output` can be an HTML page to write: before any work is done."""
    if output.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"{option} {output}: the report is an HTML file, e.g. report.html")
    if output.is_dir():
        raise UsageError(f"{option} {output}: is a folder; name an .html file")
    if not output.parent.is_dir():
        raise UsageError(f"{option} {output}: folder {output.parent} does not exist")


def render_faces(renderer: FaceRenderer, cards: Sequence[CardReport]) -> list[str | None]:
    """The document of each card's face frame, None past MAX_FACE_BYTES of them in all."""
    faces: list[str | None] = []
    size = 0
    for index, report in enumerate(cards):
        face = renderer.face(report.ir, index) if size <= MAX_FACE_BYTES else None
        size += len(face or "")
        faces.append(face if size <= MAX_FACE_BYTES else None)
    return faces


def faces_left_out(cards: Sequence[CardReport], faces: Sequence[str | None]) -> list[Diagnostic]:
    """W0606 at the first card whose face is left out of the report, if any is."""
    missing = [report.card for report, face in zip(cards, faces, strict=True) if face is None]
    if not missing:
        return []
    first = missing[0]
    return [
        Diagnostic(
            "W0606",
            "warning",
            f"the report shows {len(cards) - len(missing)} of the {len(cards)} card faces: "
            f"each face carries the whole design, and the faces may take "
            f"{MAX_FACE_BYTES // 2**20} MB of the page in all",
            Span(first.file, first.line, 1, first.line, 1),
            help="a smaller cards.css (or fewer cards in one report) shows every face",
        )
    ]


@functools.cache  # one a package: each compiles its templates once, `pillbox serve` many times
def template_environment(package: str = "compiler.report") -> jinja2.Environment:
    """The templates of a package of pillbox, the report's by default (trusted; pack text
    reaches them only as escaped data)."""

    def load(name: str) -> str:
        return resources.files(package).joinpath("templates", name).read_text("utf-8")

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["n"] = _number
    return env


def _number(value: float) -> str:
    """A coordinate for SVG: two decimals at most."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def render_page(
    compiled: CompiledPack,
    analysis: Analysis,
    faces: Sequence[str | None],
    frame_css: str,
    share: Share,
    live: Live | None = None,
) -> str:
    """The whole report page (`live`: as `pillbox serve` shows it)."""
    checked = compiled.checked
    diagnostics = [_diagnostic(d, analysis.cards) for d in share.diagnostics]
    cards = []
    for index, (report, face) in enumerate(zip(analysis.cards, faces, strict=True)):
        linked = [d for d in diagnostics if d["anchor"] == report.anchor]
        shown = live or Live("", "", 0)
        cards.append(
            {
                **_card(report, face, analysis, linked),
                "index": index,
                "picture": shown.pictures.get(report.anchor),
                "page": shown.pages.get(report.anchor),
                "panel": shown.panels.get(report.anchor),
            }
        )
    flags = analysis.flags
    context: dict[str, Any] = {
        "title": checked.title or checked.name,
        "pack": checked.name,
        "ruleset": checked.ruleset.name,
        "version": __version__,
        "given": list(analysis.given.items()),
        "cards": cards,
        "printed": [c for c in cards if not (c["blocks"] or c["failed"] or c["unwalked"])],
        "charts": sum(len(card["blocks"]) for card in cards),
        "flag_count": len(flags),
        "flag_groups": [
            (label, [f for f in flags if f.kind == kind])
            for kind, label in FLAG_KINDS.items()
            if any(f.kind == kind for f in flags)
        ],
        "rare": percent(RARE),
        "threshold": f"{float(VARIANT_THRESHOLD):g}",
        "executable": round(share.executable * 100),
        "diagnostics": diagnostics,
        "left": LEFT,
        "top": TOP,
        "frame_css": Markup(frame_css),
        "policy": Markup(live.policy if live else FACE_POLICY),
        "live": live,
        "sandbox": FACE_SANDBOX,
        "polarity": [
            (stat, "good" if sign > 0 else "bad") for stat, sign in analysis.polarity.items()
        ],
    }
    return template_environment().get_template("report.html").render(**context)


def _card(
    report: CardReport, face: str | None, analysis: Analysis, diagnostics: list[dict[str, Any]]
) -> dict[str, Any]:
    card = report.card
    return {
        "anchor": report.anchor,
        "label": card.label,
        "kind": card.kind,
        "title": card.title,
        "variant": card.variant,
        "where": f"{card.file}:{card.line}",
        "face": face,
        "blocks": [_block(block, analysis) for block in report.blocks],
        "failed": _diagnostic(report.failed, [report]) if report.failed else None,
        "unwalked": report.unwalked,
        "flags": report.flags,
        "notes": [flag for flag in report.flags if flag.kind != "branch"],
        "diagnostics": diagnostics,
    }


def _block(block: BlockReport, analysis: Analysis) -> dict[str, Any]:
    signs = analysis.polarity
    columns = block.columns
    rows = []
    for stat in analysis.stats:
        means = [c.odds.expected([stat])[stat] for c in columns]
        if any(means) or stat in signs:
            rows.append((stat, [_cell(mean, signs.get(stat, 0)) for mean in means]))
    deaths = [c.odds.death for c in columns]
    if any(deaths):
        rows.append(("death", [_cell(d, -1, percent(d)) for d in deaths]))
    given = next(c for c in columns if c.given) if any(c.given for c in columns) else None
    return {
        "name": block.name,
        "chart": chart(block, signs),
        "axis": " & ".join(block.axis),
        "also": block.also,
        "decisions": block.odds.decisions,
        "columns": [
            {"label": str(c.value) if c.value is not None else "as given", "given": c.given}
            for c in columns
        ],
        "rows": rows,
        "charted": given is not None and given.value is not None,
        "sampled": _sampled(block),
        "left_out": left_out_text(block) if block.left_out else "",
        "flags": block.flags,
    }


def _sampled(block: BlockReport) -> str:
    """What a chart of a few of its stat's many values says of them."""
    charted = len(block.columns) + len(block.left_out)
    if not block.axis or block.values <= charted:
        return ""
    return f"{charted} of the {block.values:,} values of {' & '.join(block.axis)}, evenly spread"


def _cell(value: Fraction, sign: int, shown: str | None = None) -> dict[str, str]:
    tone = "zero" if not value else ("good" if sign * value > 0 else "bad" if sign else "plain")
    return {"text": shown or (signed(value) if value else "0"), "tone": tone}


def _diagnostic(diagnostic: Diagnostic, cards: Sequence[CardReport]) -> dict[str, Any]:
    span = diagnostic.span
    card = next(
        (
            c
            for c in cards
            if c.card.file == span.file and c.ir["at"][0] <= span.line <= c.ir["at"][2]
        ),
        None,
    )
    return {
        "severity": diagnostic.severity,
        "code": diagnostic.code,
        "where": f"{span.file}:{span.line}:{span.column}",
        "message": diagnostic.message,
        "help": diagnostic.help,
        "anchor": card.anchor if card else None,
        "card": card.card.label if card else None,
    }


__all__ = ["Flag", "ReportRequest", "make_report", "render_page"]
