"""What `pillbox simulate` does, apart from reading the command line.

It checks and compiles the pack, finds the whole-game rules of its game (`runtime.whole`),
checks the seats, policies and phase asked for, plays the sweep in the pool and prints the
figures (text, or `--json`), and writes the `--report` page. A game the runtime fails on is an
error (E0460) that names its index and seed, so it can be replayed; the others are counted.
With `--include-records DIR` the games people played are counted too, apart
(`compiler.simulate.records`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from compiler.build import CompiledPack
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.gameneeds import CODE as NO_END
from compiler.pack import MANIFEST, display_path, read_manifest
from compiler.playing import Emit, load_compiled
from compiler.render import Style, counted, plain, render_text
from compiler.report.report import check_html_output
from compiler.simulate.cluster import run_on_cluster
from compiler.simulate.compiled import stale_note
from compiler.simulate.page import write_page
from compiler.simulate.pool import Playing, Progress, default_workers, run_sweep
from compiler.simulate.records import NotCounted, count_records, record_files
from compiler.simulate.text import difference_lines, figure_lines, record_lines
from compiler.terminal import echo
from dsl.spans import Diagnostic, Span
from runtime.datagame import whole_game_of
from runtime.policies import PolicyError, policy_named
from runtime.simulation.compare import compare
from runtime.simulation.figures import figures
from runtime.simulation.ladder import both_sides
from runtime.simulation.record import Sweep
from runtime.simulation.totals import Failure, Totals
from runtime.whole import NotWhole, WholeGame

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
    engine: str = "pool"  # or "dask": a dask.distributed cluster
    scheduler: str | None = None  # the cluster's address (dask; None: a LocalCluster here)
    records: Path | None = None  # a folder of played games' records, counted apart


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
    seat_names(request)
    if request.scheduler is not None and request.engine != "dask":
        raise UsageError("--scheduler names a dask cluster: add --engine dask")
    if request.report is not None:
        check_html_output(request.report, "--report")
    if request.records is not None:
        record_files(request.records)  # a folder with records in it, before any game
    if request.engine != "dask" and (note := stale_note()) is not None:
        echo(style, err=True)(note)  # on stderr, so that --json stays data
    report_to = echo(style, err=True) if request.as_json else emit
    played = [play_sweep(path, ruleset, request, report_to, style, progress)]
    if request.compare is not None and played[0] is not None:
        played.append(play_sweep(request.compare, ruleset, request, report_to, style, progress))
    if any(p is None for p in played):
        return EXIT_CONTENT
    swept = [p for p in played if p is not None]
    compiled, sweep, totals = swept[0].compiled, swept[0].sweep, swept[0].totals
    summary = figures(sweep, totals)
    summary["pack"] = compiled.checked.name
    if len(swept) > 1:
        other = swept[1]
        theirs = figures(other.sweep, other.totals)
        summary["compared with"] = {
            **theirs,
            "pack": other.compiled.checked.name,
            "difference": compare(totals, other.totals, sweep.players),
        }
        breakdown = compiled.whole.breakdown if compiled.whole is not None else None
        if breakdown is not None:
            summary["compared with"]["win rate by value"] = both_sides(summary, theirs, breakdown)
    if request.records is not None:
        whole = whole_game_of(compiled.rules, compiled.whole)
        try:
            counted = count_records(request.records, path, compiled, whole, sweep)
        except NotCounted as error:
            report_to(render_text(error.diagnostic, error.sources, style))
            return EXIT_CONTENT
        summary["played records"] = {
            **figures(counted.sweep, counted.totals),
            "pack": compiled.checked.name,
            "folder": str(counted.folder),
        }
    if request.as_json:
        emit(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        for line in figure_lines(summary):
            emit(line)
        if len(swept) > 1:
            for line in difference_lines(summary["compared with"]):
                emit(line)
        if "played records" in summary:
            for line in record_lines(summary["played records"]):
                emit(line)
    failed = 0
    for one, source in zip(swept, (path, request.compare), strict=False):
        failed += one.totals.failed
        for failure in one.totals.failures[:SHOWN_FAILURES]:
            diagnostic = game_failed(one.compiled, one.sweep, failure, source or path)
            report_to(render_text(diagnostic, _sources(one.compiled), style))
        if one.totals.failed > SHOWN_FAILURES:
            report_to(f"... and {one.totals.failed - SHOWN_FAILURES} more games failed")
    if request.report is not None:
        write_page(request.report, compiled, summary)
        report_to(f"wrote {request.report}")
    return EXIT_CONTENT if failed else EXIT_CLEAN


@dataclass(frozen=True)
class Swept:
    """A pack's sweep played: the pack, the sweep, and its totals."""

    compiled: CompiledPack
    sweep: Sweep
    totals: Totals


def play_sweep(
    path: Path,
    ruleset: str | None,
    request: SimulateRequest,
    report_to: Emit,
    style: Style,
    progress: Progress | None,
    compiled: CompiledPack | None = None,
) -> Swept | None:
    """Check and compile a pack (unless it is given so) and play the sweep asked for on it;
    None, its errors printed, if it cannot be played."""
    if compiled is None:
        compiled = load_compiled(path, ruleset, report_to, style)
    if compiled is None:
        return None
    _warn_of_no_end(compiled, report_to, style)
    try:
        whole = whole_game_of(compiled.rules, compiled.whole)
    except NotWhole as error:
        report_to(render_text(_not_whole(compiled, error), _sources(compiled), style))
        return None
    sweep = make_sweep(whole, request)
    playing = Playing(whole, compiled.rules, compiled.cards)
    workers = request.workers or default_workers()
    try:
        if request.engine == "dask":
            folder = compiled.checked.root or path
            totals = run_on_cluster(
                folder, ruleset, sweep, request.games, request.scheduler, workers, progress
            )
        else:
            totals = run_sweep(
                playing,
                (path, ruleset),
                sweep,
                request.games,
                workers,
                progress,
                lambda games: echo(style, err=True)(_replayed(games, style)),
            )
    except BrokenProcessPool as error:
        report_to(render_text(_pool_broke(compiled, error), _sources(compiled), style))
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
    return Sweep(request.seed, players, policies, until, tuple(whole.phases))


def seat_names(request: SimulateRequest) -> list[str]:
    """The policies `--seats` names, one a seat (none without it), each a known policy, as
    is `--policy`'s: a UsageError otherwise, before any pack is read."""
    if request.policy is not None and request.seats is not None:
        raise UsageError("give --policy (every seat) or --seats (one per seat), not both")
    named = [n.strip() for n in request.seats.split(",")] if request.seats is not None else []
    known_policies([*named, *([request.policy] if request.policy else [])])
    return named


def known_policies(names: Sequence[str]) -> None:
    """Each name a policy `policy_named` knows (a budget that fits, for `mcts:N`); a
    UsageError that says what does not."""
    for name in names:
        try:
            policy_named(name)
        except PolicyError as error:
            raise UsageError(str(error)) from None


def game_failed(compiled: CompiledPack, sweep: Sweep, failure: Failure, path: Path) -> Diagnostic:
    """E0460: one game of the sweep failed in the runtime, at the card line it failed on."""
    if failure.at is not None:
        file, line, column = failure.at
        where = Span(file, line, column, line, column + 1)
    else:
        where = _the_ruleset_line(compiled)
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
    """E0461: the pack's game plays single cards only."""
    return Diagnostic(
        "E0461",
        "error",
        f"cannot simulate {compiled.checked.name}: {error}",
        _the_ruleset_line(compiled),
        "a game is played whole when its ruleset has a `game:` section (seats, setup, actions, "
        "end: docs/adding-a-game.md, section 2)",
    )


def _replayed(games: int, style: Style) -> str:
    """The note that a worker died and the games not yet added up are played again (on stderr,
    so that --json stays data): the same games, so the same figures."""
    return (
        style("note:", "note")
        + " a worker process died (killed, or out of memory?): playing the "
        + f"{counted(games, 'game')} not yet counted again in new workers"
    )


def _pool_broke(compiled: CompiledPack, error: BrokenProcessPool) -> Diagnostic:
    """E0462: a worker process died (killed, or out of memory) before the sweep was done."""
    return Diagnostic(
        "E0462",
        "error",
        f"a worker process of the sweep died before it finished: {error}",
        _the_pack(compiled),
        "the system may have run out of memory: run again with fewer --workers or --games",
    )


def _sources(compiled: CompiledPack) -> dict[str, str]:
    """The card files' texts and the pack.yaml's, to show the lines a diagnostic points at."""
    sources = compiled.sources()
    root = compiled.checked.root
    if root is not None:
        text, _ = read_manifest(root / MANIFEST)
        if text is not None:
            sources[display_path(root / MANIFEST)] = text
    return sources


def _the_ruleset_line(compiled: CompiledPack) -> Span:
    """Where a problem of the pack's game as a whole is told: the line of pack.yaml that names
    its ruleset (not into a bundled ruleset, which the designer did not write)."""
    return compiled.checked.ruleset_span or _the_pack(compiled)


def _warn_of_no_end(compiled: CompiledPack, report_to: Emit, style: Style) -> None:
    """What the pack lacks to reach a game's end (W0324), said before its games are played
    to the round limit; pack.yaml's `allow:` silences it as it does in `check`."""
    for warning in compiled.checked.warnings:
        if warning.code == NO_END:
            report_to(render_text(warning, _sources(compiled), style))


def _the_pack(compiled: CompiledPack) -> Span:
    """Where a problem of the sweep as a whole is told: the pack's pack.yaml (a bundled
    ruleset's first line says nothing of what failed)."""
    root = compiled.checked.root
    if root is None or not (root / MANIFEST).is_file():
        return Span.whole_file(compiled.checked.ruleset.file)
    return Span.whole_file(display_path(root / MANIFEST))
