"""What `pillbox simulate` does, apart from reading the command line.

It checks and compiles the pack, finds the whole-game rules of its game (`runtime.whole`),
checks the seats, policies and phase asked for, plays the sweep in the pool and prints the
figures (text, or `--json`), and writes the `--report` page. A game the runtime fails on is an
error (E0460) that names its index and seed, so it can be replayed; the others are counted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.build import CompiledPack
from compiler.check import UsageError
from compiler.commands import EXIT_CLEAN, EXIT_CONTENT, Emit, load_compiled
from compiler.render import Style, plain, render_text
from compiler.report.report import check_html_output
from compiler.simulate.pool import Playing, Progress, default_workers, run_sweep
from dsl.spans import Diagnostic, Span
from runtime.policies import PolicyError, policy_named
from runtime.simulation.compare import compare
from runtime.simulation.figures import Figures, figures
from runtime.simulation.record import Sweep
from runtime.simulation.totals import Failure, Totals
from runtime.whole import NotWhole, WholeGame, whole_game

SHOWN_FAILURES = 5
"""Failed games named one by one; the rest are counted."""


@dataclass(frozen=True)
class SimulateRequest:
    """What `pillbox simulate` was asked."""

    games: int
    seed: int
    players: int | None = None
    policy: str | None = None  # every seat's
    seats: str | None = None  # "P1,P2,...": one per seat
    workers: int | None = None  # None: every core
    until: str | None = None  # None: the game's last phase
    as_json: bool = False
    report: Path | None = None
    compare: Path | None = None  # a variant of the pack, played with the same seats and seed


def simulate(
    path: Path,
    ruleset: str | None,
    request: SimulateRequest,
    emit: Emit,
    style: Style = plain,
    progress: Progress | None = None,
) -> int:
    """Play a sweep of whole games of a pack (and of the pack it is compared with) and report
    its figures; give the exit code."""
    from compiler.terminal import echo

    seat_names(request)
    if request.report is not None:
        check_html_output(request.report, "--report")
    report_to = echo(style, err=True) if request.as_json else emit
    played = [_play(path, ruleset, request, report_to, style, progress)]
    if request.compare is not None and played[0] is not None:
        played.append(_play(request.compare, ruleset, request, report_to, style, progress))
    if any(p is None for p in played):
        return EXIT_CONTENT
    swept = [p for p in played if p is not None]
    compiled, sweep, totals = swept[0].compiled, swept[0].sweep, swept[0].totals
    summary = figures(sweep, totals)
    summary["pack"] = compiled.checked.name
    if len(swept) > 1:
        other = swept[1]
        summary["compared with"] = {
            **figures(other.sweep, other.totals),
            "pack": other.compiled.checked.name,
            "difference": compare(totals, other.totals, sweep.players),
        }
    if request.as_json:
        emit(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        for line in figure_lines(summary):
            emit(line)
        if len(swept) > 1:
            for line in difference_lines(summary["compared with"]):
                emit(line)
    failed = 0
    for one, source in zip(swept, (path, request.compare), strict=False):
        failed += len(one.totals.failures)
        for failure in one.totals.failures[:SHOWN_FAILURES]:
            diagnostic = game_failed(one.compiled, one.sweep, failure, source or path)
            report_to(render_text(diagnostic, one.compiled.sources(), style))
        if len(one.totals.failures) > SHOWN_FAILURES:
            report_to(f"... and {len(one.totals.failures) - SHOWN_FAILURES} more games failed")
    if request.report is not None:
        from compiler.simulate.page import write_page

        write_page(request.report, compiled, summary)
        report_to(f"wrote {request.report}")
    return EXIT_CONTENT if failed else EXIT_CLEAN


@dataclass(frozen=True)
class Swept:
    """A pack's sweep played: the pack, the sweep, and its totals."""

    compiled: CompiledPack
    sweep: Sweep
    totals: Totals


def _play(
    path: Path,
    ruleset: str | None,
    request: SimulateRequest,
    report_to: Emit,
    style: Style,
    progress: Progress | None,
) -> Swept | None:
    """Check and compile a pack and play the sweep asked for on it; None, its errors
    printed, if it cannot be played."""
    compiled = load_compiled(path, ruleset, report_to, style)
    if compiled is None:
        return None
    try:
        whole = whole_game(compiled.rules.game)
    except NotWhole as error:
        report_to(render_text(_not_whole(compiled, error), compiled.sources(), style))
        return None
    sweep = make_sweep(whole, request)
    playing = Playing(whole, compiled.rules, compiled.cards)
    workers = request.workers or default_workers()
    try:
        totals = run_sweep(playing, (path, ruleset), sweep, request.games, workers, progress)
    except BrokenProcessPool as error:
        report_to(render_text(_pool_broke(compiled, error), compiled.sources(), style))
        return None
    return Swept(compiled, sweep, totals)


def make_sweep(whole: WholeGame, request: SimulateRequest) -> Sweep:
    """The sweep the command line asks for, checked against the game's seats and phases; a
    UsageError (exit 2) says what does not fit."""
    named = seat_names(request)
    low, high = whole.players
    players = request.players if request.players is not None else (len(named) or low)
    if not low <= players <= high:
        raise UsageError(f"--players {players}: the game is played by {low} to {high} players")
    if named and len(named) != players:
        raise UsageError(
            f"--seats names {len(named)} policies for {players} players: give one a seat"
        )
    policies = tuple(named) if named else (request.policy or "random",) * players
    until = request.until if request.until is not None else whole.phases[-1]
    if until not in whole.phases:
        raise UsageError(f"--until {until}: the game plays to the end of {', '.join(whole.phases)}")
    return Sweep(request.seed, players, policies, until)


def seat_names(request: SimulateRequest) -> list[str]:
    """The policies `--seats` names, one a seat (none without it), each a known policy, as
    is `--policy`'s: a UsageError otherwise, before any pack is read."""
    if request.policy is not None and request.seats is not None:
        raise UsageError("give --policy (every seat) or --seats (one per seat), not both")
    named = [n.strip() for n in request.seats.split(",")] if request.seats is not None else []
    for name in [*named, *([request.policy] if request.policy else [])]:
        try:
            policy_named(name)
        except PolicyError as error:
            raise UsageError(str(error)) from None
    return named


def game_failed(compiled: CompiledPack, sweep: Sweep, failure: Failure, path: Path) -> Diagnostic:
    """E0460: one game of the sweep failed in the runtime, at the card line it failed on."""
    if failure.at is not None:
        file, line, column = failure.at
        where = Span(file, line, column, line, column + 1)
    else:
        where = Span.whole_file(compiled.checked.ruleset.file)
    policies = set(sweep.policies)
    seats = (
        f"--policy {sweep.policies[0]}"
        if len(policies) == 1
        else "--seats " + ",".join(sweep.policies)
    )
    return Diagnostic(
        "E0460",
        "error",
        f"game {failure.index} of the sweep (seed {failure.seed}) failed: {failure.error}",
        where,
        f"replay it: pillbox play {path} --game --seed {failure.seed} "
        f"--players {sweep.players} {seats} --until {sweep.until}",
    )


def _not_whole(compiled: CompiledPack, error: NotWhole) -> Diagnostic:
    """E0461: the pack's game module plays single cards only."""
    return Diagnostic(
        "E0461",
        "error",
        f"cannot simulate {compiled.checked.name}: {error}",
        Span.whole_file(compiled.checked.ruleset.file),
        "simulate plays games whose runtime module has whole-game rules "
        "(`WHOLE` in runtime/games/<name>_game.py, see runtime/whole.py)",
    )


def _pool_broke(compiled: CompiledPack, error: BrokenProcessPool) -> Diagnostic:
    """E0462: a worker process died (killed, or out of memory) before the sweep was done."""
    return Diagnostic(
        "E0462",
        "error",
        f"a worker process of the sweep died before it finished: {error}",
        Span.whole_file(compiled.checked.ruleset.file),
        "the system may have run out of memory: run again with fewer --workers or --games",
    )


# -- the figures as text ---------------------------------------------------------------------


def figure_lines(summary: Figures) -> list[str]:
    """The figures of a sweep, as lines of text for a terminal."""
    played = summary["played"]
    policies = _policies(summary["policies"])
    lines = [
        f"{summary['pack']}: {summary['games']} games of {summary['players']} players "
        f"({policies}), seed {summary['seed']}, to the end of the {summary['until']}",
    ]
    for phase, parts in summary["phases"].items():
        lines.append(f"{phase}: rounds {_spread(parts['rounds'])}; turns {_spread(parts['turns'])}")
    lines.append("results: " + _shares(summary["results"]))
    if summary["stopped"]:
        lines.append("cut short: " + _shares(summary["stopped"]))
    for label, entry in summary["labels"].items():
        lines.append(f"{label} ({entry['games']} games): {_shares(entry['values'])}")
    for name, spread in summary["tallies"].items():
        lines.append(f"{name}: {_spread(spread)}")
    deaths = summary["deaths"]
    lines.append(f"deaths a game: {_spread(deaths['per game'])}")
    if deaths["round"]["count"]:
        lines.append(f"round of a death: {_spread(deaths['round'])}")
    for stat, entry in summary["stats"].items():
        rounds = entry["by round"]
        shown = [r for r in rounds if r["round"] in _milestones(len(rounds))]
        path = ", ".join(f"r{r['round']} {_number(r['mean'])}" for r in shown)
        lines.append(
            f"{stat} of the living, by round: {path}; at the end {_spread(entry['at end'])}"
        )
    seats = summary["seats"]
    if seats["games"]:
        rates = ", ".join(
            f"seat {s['seat']} ({s['policy']}) {_percent(s['win rate'])} ({s['wins']})"
            for s in seats["by seat"]
        )
        lines.append(f"wins ({seats['games']} games): {rates}; balance {seats['balance']:.3f}")
    lines += _card_lines(summary["cards"], played)
    if summary["failed"]:
        lines.append(f"failed: {len(summary['failed'])} of {summary['games']} games")
    return lines


def _card_lines(cards: dict[str, Any], played: int) -> list[str]:
    lines = [f"cards ({played} games): drawn, a game; change a draw; share of deaths"]
    width = max((len(title) for title in cards), default=0)
    for title, entry in cards.items():
        changes = ", ".join(
            f"{stat} {value:+.2f}" for stat, value in entry["change per draw"].items() if value
        )
        per_game = entry["drawn"] / played if played else 0.0
        deaths = _percent(entry["death share"]) if entry["death share"] else "-"
        lines.append(
            f"  {title:<{width}}  {entry['drawn']:>6} {per_game:>5.2f}  "
            f"{changes or '-'}; deaths {deaths} ({entry['deaths']})"
        )
    return lines


def _policies(policies: Sequence[str]) -> str:
    return f"{policies[0]} every seat" if len(set(policies)) == 1 else ", ".join(policies)


def _milestones(rounds: int) -> set[int]:
    """Up to six rounds to show of a stat's path: the first, the last, some between."""
    return {1, rounds, *(round(rounds * k / 5) for k in range(1, 5))} - {0}


def _spread(spread: Figures) -> str:
    if not spread["count"]:
        return "none"
    return (
        f"mean {_number(spread['mean'])}, median {_number(spread['median'])}, "
        f"90th percentile {_number(spread['p90'])} ({spread['count']})"
    )


def _shares(entries: dict[str, Any]) -> str:
    return (
        ", ".join(
            f"{value} {_percent(entry['share'])} ({entry['count']})"
            for value, entry in entries.items()
        )
        or "none"
    )


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.1f} %"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def difference_lines(compared: Figures) -> list[str]:
    """The differences of a comparison (the other pack less this one), each with its 95 %
    interval; a star marks those whose interval leaves out 0."""
    difference = compared["difference"]
    lines = [
        f"compared with {compared['pack']} ({compared['played']} games): the difference, "
        "its 95 % interval; * where it leaves out 0"
    ]
    for phase, parts in difference["phases"].items():
        for what, entry in parts.items():
            lines.append(_difference(f"{phase} {what}", entry))
    for group in ("results", "stopped"):
        for value, entry in difference[group].items():
            lines.append(_difference(f"{group}: {value}", entry))
    for label, values in difference["labels"].items():
        for value, entry in values.items():
            lines.append(_difference(f"{label}: {value}", entry))
    for name, entry in difference["tallies"].items():
        lines.append(_difference(name, entry))
    for what, entry in difference["deaths"].items():
        lines.append(_difference(f"deaths: {what}", entry))
    for stat, entry in difference["stats at end"].items():
        lines.append(_difference(f"{stat} at the end", entry))
    for seat, entry in enumerate(difference["win rate by seat"], start=1):
        if entry["difference"] is not None:
            lines.append(_difference(f"win rate of seat {seat}", entry))
    for title, entry in difference["cards: games drawn in"].items():
        if _shows(entry):
            lines.append(_difference(f"games {title} is drawn in", entry))
    return lines


def _shows(entry: Figures) -> bool:
    """Whether a difference's interval leaves out 0."""
    return entry["difference"] is not None and (entry["low"] > 0 or entry["high"] < 0)


def _difference(name: str, entry: Figures) -> str:
    if entry["difference"] is None:
        return f"  {name}: -"
    mark = " *" if _shows(entry) else ""
    return (
        f"  {name}: {_number(entry['base'])} → {_number(entry['other'])}, "
        f"{entry['difference']:+.3f} [{entry['low']:+.3f}, {entry['high']:+.3f}]{mark}"
    )
