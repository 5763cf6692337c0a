"""The pages of `pillbox serve`: the pack as its report shows it, a page a card, or its errors.

A snapshot is every page of one state of the pack: the pack page made at once after each
saved change, each card's page on its first request, both from what that check found, so a
request never sees a page half made or two states mixed. A pack that checks is shown as
`pillbox report` shows it (the report's own analysis, charts and templates), with each face as
print lays it out (`pictures`), and beside each card its rules text and the results of its
tests. A card file with errors is left out, as `play` and `print --only` leave it out: the pack
page shows every card that checks, and above them the files left out, each card of theirs with
its diagnostics (and its own page says the same). Only errors that stop every card (pack.yaml,
the ruleset) make every page the pack's diagnostics, until it checks again. Pack text reaches
the pages only as data of autoescaped templates.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup

from compiler import __version__
from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.check import check_paths
from compiler.errors import UsageError
from compiler.ir import Card
from compiler.playing import with_runtime_problems
from compiler.printing.faces import TemplateProblem
from compiler.printing.refusals import refusal_diagnostics
from compiler.printing.sheets import slug
from compiler.printing.sizes import OptionError, PrintOptions, resolve_options
from compiler.render import counted, plain, render_text
from compiler.report.analysis import Analysis, CardReport, analyse
from compiler.report.faces import FACE_POLICY, FaceRenderer
from compiler.report.report import (
    Live,
    Share,
    faces_left_out,
    render_faces,
    render_page,
    template_environment,
)
from compiler.rulestext import card_listing, card_text
from compiler.serve.pictures import Pictures
from dsl.spans import Diagnostic, Span
from runtime.testing import TestResult, run_test

SCRIPT = "/live.js"
"""The page's one script, served by pillbox: it follows `/events` and swaps the page in."""

LIVE_POLICY = (
    FACE_POLICY.replace("img-src data:", "img-src 'self' data:")
    + "; script-src 'self'; connect-src 'self'"
)
"""The report's policy, with the pillbox script, its events and the face pictures of this
server allowed: still no inline script and nothing from anywhere else."""


@dataclass(frozen=True)
class Snapshot:
    """Every page of one state of the pack, by path, and what checking it found."""

    generation: int
    pages: dict[str, str]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    broken: bool = False  # no card loads: every page shows the pack's errors
    redrawn: int = 0  # faces laid out anew (or taken from the face cache) for it
    pending: Callable[[int], Snapshot] | None = None
    """Lays out the faces this snapshot shows in frames for want of a picture: the snapshot of
    that generation with every picture."""
    later: dict[str, Callable[[], str]] = field(default_factory=dict)  # pages made when asked
    left_out: tuple[str, ...] = ()  # the files with errors, whose cards are not shown
    cards: int = 0  # the cards shown
    _made: dict[str, str] = field(default_factory=dict)
    _making: threading.Lock = field(default_factory=threading.Lock)

    @property
    def paths(self) -> list[str]:
        """Every page's path."""
        return [*self.pages, *self.later]

    def ready(self, path: str) -> bool:
        """Whether the page at this path is made (or there is none): answered without work."""
        return self.broken or path not in self.later or path in self._made

    def page(self, path: str) -> str | None:
        """The page at this path, if there is one (a card page of a broken pack: its errors)."""
        if self.broken and path.startswith("/card/"):
            return self.pages["/"]
        if path in self.pages or path not in self.later:
            return self.pages.get(path)
        with self._making:  # from the server's threads: each page is made once
            if path not in self._made:
                self._made[path] = self.later[path]()
            return self._made[path]


def build_snapshot(
    path: Path, ruleset: str | None, pictures: Pictures, generation: int
) -> Snapshot:
    """Check, compile and analyse the pack, and make its pages at once: faces not drawn
    before are shown in frames, as the report shows them, until `pending` draws them."""
    try:
        loaded = with_runtime_problems(load_checked(path, ruleset, rest=True))
    except UsageError as error:  # pack.yaml removed or renamed since the server started
        problem = Diagnostic(
            "E0470",
            "error",
            f"the pack cannot be read any more: {error}",
            Span.whole_file(str(path)),
            "put pack.yaml back (or undo the rename): the page follows as soon as it is there",
        )
        return _broken(path.name, [problem], {}, generation)
    if loaded.pack is None:
        return _broken(path.name, loaded.diagnostics, loaded.sources, generation)
    compiled = compile_pack(loaded.pack)
    try:
        options = resolve_options(compiled.checked.print_settings, {})
    except OptionError as error:
        # `check` validates these (E0403): only a pack.yaml changed under it gets here.
        problem = Diagnostic("E0403", "error", str(error), Span.whole_file("pack.yaml"))
        return _broken(compiled.checked.name, [problem], loaded.sources, generation)
    checked = check_paths([path], ruleset)
    state = _State(compiled, options, analyse(compiled, ()), pictures)
    state.executable, state.checked = checked.executable, list(checked.diagnostics)
    # What leaving a file out broke in the rest (a card naming one of its cards), if anything.
    reported = set(state.checked)
    state.checked += [d for d in loaded.diagnostics if d not in reported]
    state.left_out = _LeftOut(loaded.left_out, loaded.left_out_cards, loaded.sources)
    return state.snapshot(generation, lay_out=False)


@dataclass
class _State:
    """A pack that checks, analysed: what its pages show, but for the faces."""

    compiled: CompiledPack
    options: PrintOptions
    analysis: Analysis
    pictures: Pictures
    executable: float = 0.0
    checked: list[Diagnostic] = field(default_factory=list)  # what `pillbox check` reports
    left_out: _LeftOut = field(default_factory=lambda: _LeftOut((), {}, {}))
    _panels: dict[str, Markup] = field(default_factory=dict)

    def snapshot(self, generation: int, lay_out: bool) -> Snapshot:
        """The pages, with the pictures drawn so far (and, `lay_out`, all the others)."""
        reports = self.analysis.cards
        renderer = FaceRenderer(self.compiled.checked, self.options)
        problems = list(self.analysis.problems)
        names: list[str | None] | None = None
        try:
            names = self.pictures.draw(renderer.cards, [r.ir for r in reports], lay_out)
        except TemplateProblem as problem:
            problems.append(problem.diagnostic)
        drawn = names or [None] * len(reports)
        framed = [index for index, name in enumerate(drawn) if not name]
        faces: list[str | None] = [None] * len(reports)
        try:
            in_frames = render_faces(renderer, [reports[index] for index in framed])
            for index, face in zip(framed, in_frames, strict=True):
                faces[index] = face
            problems += faces_left_out([reports[index] for index in framed], in_frames)
        except TemplateProblem as problem:
            if names is not None:  # else the pictures failed with this very error
                problems.append(problem.diagnostic)
        problems += refusal_diagnostics(renderer.images.refused, renderer.cards)
        share = Share(self.executable, [*self.checked, *problems])
        pages, later = self._pages(generation, drawn, faces, renderer.frame_css(), share)
        pending = None
        if framed and names is not None and not lay_out:
            pending = functools.partial(self.snapshot, lay_out=True)
        redrawn = self.pictures.redrawn
        return Snapshot(
            generation,
            pages,
            share.diagnostics,
            False,
            redrawn,
            pending,
            later,
            self.left_out.files,
            len(reports),
        )

    def _pages(
        self,
        generation: int,
        names: Sequence[str | None],
        faces: list[str | None],
        frame_css: str,
        share: Share,
    ) -> tuple[dict[str, str], dict[str, Callable[[], str]]]:
        """The pack page, and how to make each card's page (when it is asked for: most are
        never looked at before the next save)."""
        compiled, analysis = self.compiled, self.analysis
        reports = analysis.cards
        if not self._panels:
            results = _test_results(compiled, reports)
            self._panels = {r.anchor: _panel(compiled, r, results[r.anchor]) for r in reports}
        anchors = [report.anchor for report in reports]
        left_out = self.left_out
        slugs = _unique([slug(report.ir) for report in reports] + left_out.slugs())
        slugs, left_slugs = slugs[: len(reports)], slugs[len(reports) :]
        left = left_out.cards(share.diagnostics, left_slugs)
        live = Live(
            script=SCRIPT,
            policy=LIVE_POLICY,
            generation=generation,
            pictures={a: f"/faces/{n}" for a, n in zip(anchors, names, strict=True) if n},
            pages={a: f"/card/{s}" for a, s in zip(anchors, slugs, strict=True)},
            panels=self._panels,
            notice=left_out.section(share.diagnostics, left) if left_out.files else None,
        )
        css = frame_css + _SERVE_CSS
        pages = {"/": render_page(compiled, analysis, faces, css, share, live)}
        card_live = dataclasses.replace(
            live, home="/", notice=left_out.note() if left_out.files else None
        )

        def card_page(index: int) -> str:
            report = reports[index]
            alone = Analysis([report], analysis.given, analysis.stats, analysis.polarity, [])
            own = Share(share.executable, [d for d in share.diagnostics if _within(d, report)])
            return render_page(compiled, alone, [faces[index]], css, own, card_live)

        later: dict[str, Callable[[], str]] = {
            f"/card/{name}": functools.partial(card_page, i) for i, name in enumerate(slugs)
        }
        for card in left:  # a card left out keeps its page: its file's errors
            page = functools.partial(left_out.page, compiled.checked.name, card, generation)
            later[card["page"]] = page
        return pages, later


@dataclass(frozen=True)
class _LeftOut:
    """The card files left out for their errors, with the IR of the cards each holds."""

    files: tuple[str, ...]
    cards_by_file: dict[str, list[Card]]
    sources: dict[str, str]

    def slugs(self) -> list[str]:
        """The page name of each card left out, in file order."""
        return [slug(ir) for file in self.files for ir in self.cards_by_file.get(file, [])]

    def cards(
        self, diagnostics: Sequence[Diagnostic], slugs: Sequence[str]
    ) -> list[dict[str, Any]]:
        """Each card left out, with its page and the diagnostics of its file."""
        named = iter(slugs)
        cards = []
        for file in self.files:
            problems = [d for d in diagnostics if d.span.file == file]
            for ir in self.cards_by_file.get(file, []):
                first, last = ir["at"][0], ir["at"][2]
                cards.append(
                    {
                        "file": file,
                        "kind": ir["kind"],
                        "title": ir["title"],
                        "variant": ir.get("variant"),
                        "where": f"{file}:{first}",
                        "page": f"/card/{next(named)}",
                        "own": [d for d in problems if first <= d.span.line <= last],
                        "file_diagnostics": problems,
                    }
                )
        return cards

    def section(self, diagnostics: Sequence[Diagnostic], cards: Sequence[dict[str, Any]]) -> Markup:
        """The pack page's account of the files left out: each card with its diagnostics, and
        under its file those of no card (all of them, when no card of it could be read)."""
        files = []
        for file in self.files:
            own = [card for card in cards if card["file"] == file]
            in_cards = {id(d) for card in own for d in card["own"]}
            rest = [d for d in diagnostics if d.span.file == file and id(d) not in in_cards]
            files.append(
                {
                    "name": file,
                    "cards": [{**card, "diagnostics": self._shown(card["own"])} for card in own],
                    "rest": self._shown(rest),
                }
            )
        errors = sum(1 for d in diagnostics if d.span.file in self.files and d.is_error)
        return Markup(
            _templates()
            .get_template("left_out.html")
            .render(files=files, errors=counted(errors, "error"))
        )

    def note(self) -> Markup:
        """A card page's line about the files left out of the pack page."""
        return Markup(_templates().get_template("left_out_note.html").render(files=self.files))

    def page(self, pack: str, card: dict[str, Any], generation: int) -> str:
        """The page of a card left out: its file's diagnostics, until it checks again."""
        diagnostics = card["file_diagnostics"]
        errors = sum(1 for d in diagnostics if d.severity == "error")
        heading = f"{card['title']} is left out"
        summary = f"{card['file']} does not check ({counted(errors, 'error')})"
        return _broken_page(
            pack, heading, summary, "the card comes back", diagnostics, self.sources, generation
        )

    def _shown(self, diagnostics: Sequence[Diagnostic]) -> list[dict[str, str]]:
        return [_shown(d, self.sources) for d in diagnostics]


def _within(diagnostic: Diagnostic, report: CardReport) -> bool:
    """Whether a diagnostic is about this card (at one of its lines)."""
    span, at = diagnostic.span, report.ir["at"]
    return span.file == report.card.file and at[0] <= span.line <= at[2]


def _unique(slugs: Sequence[str]) -> list[str]:
    """The slugs, a number added to each one already taken (two kinds may share a title)."""
    seen: set[str] = set()
    out = []
    for name in slugs:
        unique, number = name, 2
        while unique in seen:
            unique, number = f"{name}-{number}", number + 1
        seen.add(unique)
        out.append(unique)
    return out


def _test_results(
    compiled: CompiledPack, reports: Sequence[CardReport]
) -> dict[str, list[TestResult]]:
    """Every test of every card, run as `pillbox test` runs it, by the card's anchor."""
    anchor_of = {id(report.card): report.anchor for report in reports}
    results: dict[str, list[TestResult]] = {report.anchor: [] for report in reports}
    for card in compiled.cards:
        anchor = anchor_of.get(id(card))
        if anchor is not None:
            results[anchor] = [run_test(compiled.new_game, card, test) for test in card.tests]
    return results


def _panel(compiled: CompiledPack, report: CardReport, results: list[TestResult]) -> Markup:
    """A card's rules text and test results, beside its face."""
    ruleset = compiled.checked.ruleset
    tests = [
        {
            "name": result.test.name,
            "passed": result.passed,
            "where": f"{result.card.file}:{result.line or result.test.line}:{result.column}",
            "failure": result.failure,
        }
        for result in results
    ]
    return Markup(
        _templates()
        .get_template("panel.html")
        .render(
            rules=card_listing(ruleset, card_text(ruleset, report.ir)),
            tests=tests,
            passed=sum(1 for result in results if result.passed),
        )
    )


def _broken(
    pack: str, diagnostics: Sequence[Diagnostic], sources: dict[str, str], generation: int
) -> Snapshot:
    """The snapshot of a pack no card of which loads: every page its diagnostics."""
    errors = sum(1 for d in diagnostics if d.severity == "error")
    page = _broken_page(
        pack,
        "The pack does not check",
        counted(errors, "error"),
        "the cards come back",
        diagnostics,
        sources,
        generation,
        home=None,
    )
    return Snapshot(generation, {"/": page}, list(diagnostics), broken=True)


def _broken_page(
    pack: str,
    heading: str,
    summary: str,
    back: str,
    diagnostics: Sequence[Diagnostic],
    sources: dict[str, str],
    generation: int,
    home: str | None = "/",
) -> str:
    """A page of diagnostics, each with its source line: what stops the pack, or a card."""
    context: dict[str, Any] = {
        "pack": pack,
        "version": __version__,
        "generation": generation,
        "script": SCRIPT,
        "policy": Markup(LIVE_POLICY),
        "css": Markup(_report_css() + _SERVE_CSS),
        "home": home,
        "heading": heading,
        "summary": summary,
        "back": back,
        "diagnostics": [_shown(d, sources) for d in diagnostics],
    }
    page: str = _templates().get_template("broken.html").render(**context)
    return page


def _shown(diagnostic: Diagnostic, sources: dict[str, str]) -> dict[str, str]:
    """A diagnostic as the serve templates show it: where, what, its source line and help."""
    span = diagnostic.span
    return {
        "severity": diagnostic.severity,
        "code": diagnostic.code,
        "where": f"{span.file}:{span.line}:{span.column}",
        "message": diagnostic.message,
        # the source line and help; the line above says where and what
        "text": render_text(diagnostic, sources, plain).partition("\n")[2],
    }


def _templates() -> Any:
    return template_environment("compiler.serve")


def _report_css() -> str:
    return resources.files("compiler.report").joinpath("templates", "report.css").read_text()


_SERVE_CSS = """
.s-panel { margin: 6px 0 12px; }
.s-rules { white-space: pre-wrap; font: 13px/1.45 ui-monospace, monospace; background: #f6f2ea;
  border-radius: 6px; padding: 8px 10px; margin: 4px 0 10px; }
.s-test { font-size: 13px; }
.s-passed .r-code { color: #1d6b34; }
.s-failed .r-code { color: #9b1c12; }
.s-source { white-space: pre-wrap; font: 12px/1.4 ui-monospace, monospace; margin: 6px 0 0; }
.s-broken { border-left: 4px solid #b3261e; padding-left: 12px; margin-top: 18px; }
.r-eyebrow a { color: inherit; }
.r-card-link { color: inherit; text-decoration-thickness: 1px; text-underline-offset: 3px; }
"""
