"""`pillbox simulate --report out.html`: the figures of a sweep as one self-contained page.

The same stack as `pillbox report`: a Jinja template of pillbox's own, every value escaped,
charts as inline SVG whose geometry is worked out here, no script and nothing fetched (the
report's Content Security Policy), and the file written whole or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from compiler import __version__
from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.files import write_atomically
from compiler.report.faces import FACE_POLICY
from compiler.report.report import template_environment
from compiler.simulate.text import difference_rows
from runtime.simulation.figures import Figures
from runtime.simulation.ladder import FLOOR

WIDTH = 520.0
HEIGHT = 150.0
LEFT = 40.0  # room for the axis's numbers
BOTTOM = 22.0  # room for the values under the columns
ROW = 20.0  # the height of a row of a chart of shares
LABEL = 190.0  # room for the values before the bars of shares


@dataclass(frozen=True)
class Chart:
    """One chart: its kind (`columns`, `line`, `shares`), size, and marks to draw."""

    kind: str
    title: str
    width: float
    height: float
    marks: tuple[dict[str, Any], ...]
    axis: tuple[dict[str, Any], ...] = ()
    points: str = ""  # a line chart's polyline


def columns(title: str, counts: Mapping[str, int], unit: str) -> Chart:
    """A column per whole number (rounds, say) of how many times it came up."""
    numbers = [int(n) for n in counts]
    low, high = (min(numbers), max(numbers)) if numbers else (0, 0)
    span = high - low + 1
    step = (WIDTH - LEFT) / max(span, 1)
    top = max(counts.values(), default=1)
    plot = HEIGHT - BOTTOM
    marks = []
    for number, count in counts.items():
        tall = plot * count / top
        marks.append(
            {
                "x": LEFT + (int(number) - low) * step,
                "y": plot - tall,
                "width": max(step - 1, 0.5),
                "height": tall,
                "title": f"{number} {unit}: {count}",
            }
        )
    axis = _ticks(low, high, step, plot)
    return Chart("columns", title, WIDTH, HEIGHT, tuple(marks), axis)


def _ticks(low: int, high: int, step: float, plot: float) -> tuple[dict[str, Any], ...]:
    """Up to six labelled values under the columns."""
    every = max(1, -(-(high - low + 1) // 6))
    return tuple(
        {"x": LEFT + (n - low) * step + step / 2, "y": plot + 14, "text": str(n)}
        for n in range(low, high + 1, every)
    )


def line(title: str, rows: Sequence[Mapping[str, Any]], high: float) -> Chart:
    """A line through the mean of each round (the rows of a stat's `by round`)."""
    shown = [r for r in rows if r["mean"] is not None]
    plot = HEIGHT - BOTTOM
    step = (WIDTH - LEFT) / max(len(rows) - 1, 1)
    top = max(high, max((r["mean"] for r in shown), default=1.0), 1.0)
    coordinates = [(LEFT + (r["round"] - 1) * step, plot - plot * r["mean"] / top) for r in shown]
    marks = tuple(
        {"x": x, "y": y, "title": f"round {r['round']}: {r['mean']:.2f} ({r['count']})"}
        for (x, y), r in zip(coordinates, shown, strict=True)
    )
    axis = (
        {"x": LEFT - 4, "y": 10.0, "text": f"{top:g}"},
        {"x": LEFT - 4, "y": plot, "text": "0"},
    )
    points = " ".join(f"{x:.2f},{y:.2f}" for x, y in coordinates)
    return Chart("line", title, WIDTH, HEIGHT, marks, axis, points)


def shares(title: str, entries: Mapping[str, Mapping[str, Any]]) -> Chart:
    """A bar per value of its share, with its count."""
    marks = []
    for row, (value, entry) in enumerate(entries.items()):
        share = entry["share"] or 0.0
        marks.append(
            {
                "y": row * ROW,
                "width": (WIDTH - LABEL - 60) * share,
                "label": value,
                "text": f"{share * 100:.1f} % ({entry['count']})",
            }
        )
    return Chart("shares", title, WIDTH, ROW * max(len(marks), 1), tuple(marks))


def charts(summary: Figures) -> list[Chart]:
    """Every chart of a sweep's figures, in the order of the page."""
    out: list[Chart] = []
    for phase, parts in summary["phases"].items():
        out.append(columns(f"Games by rounds: {phase}", parts["games by rounds"], "rounds"))
    out.append(shares("Results", summary["results"]))
    if summary["stopped"]:
        out.append(shares("Games cut short", summary["stopped"]))
    for label, entry in summary["labels"].items():
        out.append(shares(f"{label} ({entry['games']} games)", entry["values"]))
    if summary["deaths"]["by round"]:
        out.append(columns("Deaths by round", summary["deaths"]["by round"], "round"))
    for stat, entry in summary["stats"].items():
        high = entry["at end"]["p90"] or 1.0
        out.append(line(f"{stat} of the living seats, mean by round", entry["by round"], high))
    seats = summary["seats"]
    if seats["games"]:
        by_seat = {
            f"seat {s['seat']} ({s['policy']})": {"share": s["win rate"], "count": s["wins"]}
            for s in seats["by seat"]
        }
        out.append(shares(f"Wins by seat (balance {seats['balance']:.3f})", by_seat))
    return out


def render(compiled: CompiledPack, summary: Figures) -> str:
    """The whole page."""
    checked = compiled.checked
    context = {
        "title": checked.title or checked.name,
        "version": __version__,
        "policy": Markup(FACE_POLICY),
        "summary": summary,
        "charts": charts(summary),
        "label_width": LABEL,
        "cards": _cards(summary),
        "compared": summary.get("compared with"),
        "differences": _differences(summary),
        "floor": FLOOR if set(summary["policies"]) == {"random"} else None,
    }
    return template_environment("compiler.simulate").get_template("simulate.html").render(context)


def _cards(summary: Figures) -> list[dict[str, Any]]:
    played = summary["played"] or 1
    return [
        {
            "title": title,
            "drawn": entry["drawn"],
            "per_game": f"{entry['drawn'] / played:.2f}",
            "changes": ", ".join(
                f"{stat} {value:+.2f}" for stat, value in entry["change per draw"].items() if value
            ),
            "deaths": entry["deaths"],
            "death_share": entry["death share"] or 0.0,
        }
        for title, entry in summary["cards"].items()
    ]


def _differences(summary: Figures) -> list[dict[str, Any]]:
    """The rows of the comparison table, if the sweep was compared with another pack."""
    compared = summary.get("compared with")
    return difference_rows(compared) if compared else []


def write_page(output: Path, compiled: CompiledPack, summary: Figures) -> None:
    """Write the page whole, or leave what was there (a UsageError says why it could not)."""
    try:
        write_atomically(output, render(compiled, summary).encode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None
