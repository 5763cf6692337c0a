"""`pillbox test --balance`: each band of pack.yaml's `balance:` judged on fixed seeds.

Bands that share a sweep (the same policy, players and seed) are judged on one: games are
played a quarter of the budget first, then half, then all of it, and each band is decided as
soon as its interval lies wholly inside its band (held) or wholly outside (left); a band
still straddling its edge when its games run out is undecided, which is told but does not
fail. The same commit gives the same verdict: the seeds are the band's, not the clock's.

Looking at a sweep three times and stopping at the first clear answer would be wrong more
often than one look in twenty, so the 5 % a verdict may err is split among the looks a band's
budget allows (Bonferroni): with three looks each reads a 98.3 % interval, and the chance that
any of them calls a band wrong stays under 5 %. A band's interval is the last look's, at that
width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Literal

from compiler.bands import Reading, TargetError, parse_target, read
from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.pack import BalanceBand
from compiler.simulate.command import SimulateRequest, make_sweep
from compiler.simulate.engine import POOL, Engine
from compiler.simulate.pool import Playing
from runtime.datagame import whole_game_of
from runtime.policies import PolicyError, policy_named
from runtime.simulation.figures import figures
from runtime.simulation.totals import Totals
from runtime.whole import NotWhole

State = Literal["held", "left", "undecided", "error"]

FIRST_SHARE = 4
"""A sweep first plays this fraction of its games (a quarter), then doubles."""

SMALLEST_STAGE = 20

ERROR_RATE = 0.05
"""The chance a verdict of held or left may be wrong, over all the looks at its sweep."""


def look_width(looks: int) -> float:
    """Standard deviations of each look's interval, so that `looks` looks together err at
    most ERROR_RATE of the time (two-sided)."""
    return NormalDist().inv_cdf(1 - ERROR_RATE / (2 * max(looks, 1)))


@dataclass(frozen=True)
class Verdict:
    """A band and what its sweep said of it."""

    band: BalanceBand
    state: State
    reading: Reading | None = None
    games: int = 0
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        """The verdict as data."""
        span = self.band.span
        found = self.reading
        return {
            "band": self.band.band,
            "file": span.file,
            "line": span.line,
            "column": span.column,
            "state": self.state,
            "policy": self.band.policy,
            "players": self.band.players,
            "seed": self.band.seed,
            "games": self.games,
            "value": found.value if found else None,
            "low": found.low if found else None,
            "high": found.high if found else None,
            "problem": self.problem or None,
        }

    def shown(self) -> str:
        """The figure with its interval and what it was played on, or the problem."""
        if self.reading is None:
            return self.problem
        seats = f"{self.band.players} seats" if self.band.players else "fewest seats"
        return (
            f"{self.reading.shown()} ({self.games} games, {self.band.policy}, {seats}, "
            f"seed {self.band.seed})"
        )


Progress = Callable[[str], None]


def judge(
    compiled: CompiledPack,
    source: tuple[Path, str | None],
    workers: int,
    report: Progress,
    bands: Sequence[BalanceBand] | None = None,
    engine: Engine = POOL,
) -> list[Verdict]:
    """Every band of the pack (or those given: another version's, to compare), judged, its
    games played on `engine`."""
    bands = compiled.checked.balance if bands is None else bands
    try:
        whole = whole_game_of(compiled.rules, compiled.whole)
    except NotWhole as error:
        return [
            Verdict(band, "error", problem=f"the game does not play whole: {error}")
            for band in bands
        ]
    verdicts: dict[int, Verdict] = {}
    groups: dict[tuple[str, int | None, int], list[int]] = {}
    for index, band in enumerate(bands):
        try:
            policy_named(band.policy)
        except PolicyError as error:
            verdicts[index] = Verdict(band, "error", problem=str(error))
            continue
        groups.setdefault((band.policy, band.players, band.seed), []).append(index)
    breakdown = compiled.whole.breakdown if compiled.whole is not None else None
    playing = Playing(whole, compiled.rules, compiled.cards)
    for (policy, players, seed), indexes in groups.items():
        most = max(bands[i].games for i in indexes)
        request = SimulateRequest(most, seed, players, policy, workers=workers)
        try:
            sweep = make_sweep(whole, request)
        except UsageError as error:
            for i in indexes:
                verdicts[i] = Verdict(bands[i], "error", problem=str(error))
            continue
        open_bands = list(indexes)
        totals, played = Totals(), 0
        looks = {i: len(_looked_at(_stages(most), bands[i].games)) for i in indexes}
        for games in _stages(most):
            report(f"balance: {games} games, {policy}, seed {seed}")
            # Each stage adds the games the last one lacked: game i is the same game in both.
            totals.merge(engine.play(playing, source, sweep, games, workers, first=played))
            played = games
            summary = figures(sweep, totals)
            for i in list(open_bands):
                verdict = _judged(bands[i], summary, breakdown, games, look_width(looks[i]))
                if verdict.state != "undecided" or games >= bands[i].games:
                    verdicts[i] = verdict
                    open_bands.remove(i)
            if not open_bands:
                break
    return [verdicts[index] for index in range(len(bands))]


def _stages(most: int) -> list[int]:
    """A quarter of the games, then half, then all (fewer stages for a small budget)."""
    stages = [max(SMALLEST_STAGE, most // FIRST_SHARE), max(SMALLEST_STAGE, most // 2), most]
    return sorted({min(stage, most) for stage in stages})


def _looked_at(stages: Sequence[int], budget: int) -> list[int]:
    """The stages at which a band of this budget is looked at: those before its budget runs
    out, and the one that reaches it."""
    looked = [stage for stage in stages if stage < budget]
    return [*looked, next((stage for stage in stages if stage >= budget), stages[-1])]


def _judged(
    band: BalanceBand, summary: dict[str, Any], breakdown: str | None, games: int, z: float
) -> Verdict:
    try:
        reading = read(parse_target(band.band), summary, breakdown, z)
    except TargetError as error:
        return Verdict(band, "error", problem=str(error), games=games)
    state: State = "held" if reading.met else "left" if reading.left else "undecided"
    return Verdict(band, state, reading, games)


def failed(verdicts: Sequence[Verdict]) -> bool:
    """Whether a band was left with confidence, or could not be judged."""
    return any(v.state in ("left", "error") for v in verdicts)
