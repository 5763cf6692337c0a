"""`pillbox simulate --ladder`: the same seeds under each rung of policies, side by side.

Each rung is a sweep of its own (`compiler.simulate.command.play_sweep`), every seat played by
the rung's policy, on the seed of the ladder; `runtime.simulation.ladder` reads them together.
The text names every rung and says in one line that random seats are a floor; `--json` gives
every figure with its count; `--report` writes a page whose charts show each rung's win rate
with its interval, over every game and for each value of the game's `breakdown:` label, and
the flags.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from markupsafe import Markup

from compiler import __version__
from compiler.build import CompiledPack
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.files import write_atomically
from compiler.playing import Emit
from compiler.render import Style, plain, render_text
from compiler.report.faces import FACE_POLICY
from compiler.report.report import check_html_output, template_environment
from compiler.simulate.command import (
    SHOWN_FAILURES,
    SimulateRequest,
    game_failed,
    known_policies,
    play_sweep,
)
from compiler.simulate.compiled import stale_note
from compiler.simulate.pool import Progress
from compiler.simulate.text import rate_text
from compiler.terminal import echo
from runtime.simulation.figures import Figures, figures
from runtime.simulation.ladder import DEFAULT_RUNGS, ladder

CHART_WIDTH = 520.0
BAR_ROW = 22.0  # the height of one rung's bar
NAMES = 110.0  # room for the rungs' names before the bars


def rungs_of(text: str | None) -> tuple[str, ...]:
    """The rungs `--rungs` names, each a known policy (a UsageError otherwise)."""
    names = tuple(n.strip() for n in text.split(",")) if text else DEFAULT_RUNGS
    if len(names) < 2 or len(set(names)) != len(names):
        raise UsageError("--rungs names two policies or more, each once (random first)")
    known_policies(names)
    return names


def simulate_ladder(
    path: Path,
    ruleset: str | None,
    request: SimulateRequest,
    rungs: tuple[str, ...],
    emit: Emit,
    style: Style = plain,
    progress: Progress | None = None,
) -> int:
    """Play the ladder's rungs on the same seeds and report them side by side; the exit code."""
    if request.policy is not None or request.seats is not None or request.compare is not None:
        raise UsageError(
            "--ladder plays every seat by each rung: leave out --policy, --seats and --compare"
        )
    if request.report is not None:
        check_html_output(request.report, "--report")
    if request.engine != "dask" and (note := stale_note()) is not None:
        echo(style, err=True)(note)
    report_to = echo(style, err=True) if request.as_json else emit
    played: list[tuple[str, Figures]] = []
    compiled: CompiledPack | None = None
    for rung in rungs:
        if not request.as_json:
            report_to(f"playing the rung {rung} ...")
        asked = replace(request, policy=rung)
        # the pack is checked and compiled once, for the first rung; the others play it
        swept = play_sweep(path, ruleset, asked, report_to, style, progress, compiled)
        if swept is None:
            return EXIT_CONTENT
        compiled = swept.compiled
        played.append((rung, figures(swept.sweep, swept.totals)))
        if swept.totals.failed:  # each names its seed and the command that plays it again
            for failure in swept.totals.failures[:SHOWN_FAILURES]:
                diagnostic = game_failed(compiled, swept.sweep, failure, path)
                report_to(render_text(diagnostic, compiled.sources(), style))
            return EXIT_CONTENT
    assert compiled is not None
    breakdown = compiled.whole.breakdown if compiled.whole is not None else None
    summary = ladder(played, breakdown)
    summary["pack"] = compiled.checked.name
    if request.as_json:
        emit(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        for line in ladder_lines(summary):
            emit(line)
    if request.report is not None:
        write_ladder_page(request.report, compiled, summary)
        report_to(f"wrote {request.report}")
    return EXIT_CLEAN


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f} pts"


def ladder_lines(summary: Figures) -> list[str]:
    """The ladder as lines of text for a terminal."""
    rungs = summary["rungs"]
    overall = summary["overall"]
    lines = [
        f"{summary['pack']}: a ladder of {summary['games']} games of {summary['players']} "
        f"players a rung, seed {summary['seed']}; rungs: {', '.join(rungs)}",
        summary["note"],
        "won (95 % interval, games):",
    ]
    for rung in rungs:
        entry = overall["by rung"][rung]
        advantage = _points(entry["first seat advantage"])
        lines.append(
            f"  {rung}: {rate_text(entry)}; rounds {_number(entry['rounds'], 1)}, deaths a game "
            f"{_number(entry['deaths per game'], 2)}, first seat advantage {advantage}"
        )
    lines.append(f"skill gap (best rung less {rungs[0]}): {_points(overall['skill gap'])}")
    lines += [f"  ! {flag}" for flag in overall["flags"]]
    if summary["breakdown"]:
        lines.append(f"by {summary['breakdown']}:")
    for value, entry in summary["values"].items():
        rates = "; ".join(f"{rung} {rate_text(entry['by rung'].get(rung, {}))}" for rung in rungs)
        lines.append(f"  {value}: {rates}; gap {_points(entry['skill gap'])}")
        lines += [f"    ! {flag}" for flag in entry["flags"]]
    return lines


def rate_chart(title: str, rungs: list[str], by_rung: Figures, flags: list[str]) -> dict[str, Any]:
    """One chart: a bar per rung of its win rate, a whisker for its 95 % interval."""
    span = CHART_WIDTH - NAMES - 90
    bars = []
    for row, rung in enumerate(rungs):
        entry = by_rung.get(rung) or {}
        if not entry.get("games"):
            continue
        low, high = entry["interval"]
        bars.append(
            {
                "y": row * BAR_ROW,
                "name": rung,
                "width": span * entry["win rate"],
                "low": NAMES + span * low,
                "high": NAMES + span * high,
                "text": rate_text(entry),
            }
        )
    height = BAR_ROW * max(len(rungs), 1)
    return {"title": title, "bars": bars, "height": height, "flags": flags, "span": span}


def render_ladder(compiled: CompiledPack, summary: Figures) -> str:
    """The ladder's page."""
    rungs = summary["rungs"]
    overall = summary["overall"]
    charts = [rate_chart("Every game", rungs, overall["by rung"], overall["flags"])]
    for value, entry in summary["values"].items():
        charts.append(
            rate_chart(f"{summary['breakdown']}: {value}", rungs, entry["by rung"], entry["flags"])
        )
    context = {
        "title": compiled.checked.title or compiled.checked.name,
        "version": __version__,
        "policy": Markup(FACE_POLICY),
        "summary": summary,
        "charts": charts,
        "names": NAMES,
        "width": CHART_WIDTH,
        "points": _points,
        "number": _number,
    }
    environment = template_environment("compiler.simulate")
    return environment.get_template("ladder.html").render(context)


def write_ladder_page(output: Path, compiled: CompiledPack, summary: Figures) -> None:
    """Write the page whole, or leave what was there."""
    try:
        write_atomically(output, render_ladder(compiled, summary).encode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None
