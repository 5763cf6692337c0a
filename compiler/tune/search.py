"""The search for the smallest edit: greedy, a knob at a time, each round a successive halving.

Why this search. A designer wants few edits and small steps, and the knobs are a card's handful
of numbers, so the space is narrow and shallow: NTBEA's bandit model of parameter interactions
pays off over many parameters and long budgets, which a tune of two or three numbers never has.
Greedy coordinate search adds one edit a round, so the first answer found is one of the fewest
edits; successive halving plays every candidate of a round on a few games, keeps the better half
on twice as many, and so on, so a hopeless candidate costs a few games, not a full sweep. Every
candidate is played on the same seeds, which is what makes a few games enough to rank them: by
their difference from the edits they add to on the same few games, carried over to the full
sweep (the first games alone may run ten points luckier than the full sweep), and by how far
that is from where a full sweep's interval fits inside the band.

A round's candidates are the current edits plus one more move of a knob not yet edited, or
one more move of an edited one (a step further or back). The round's best is taken if it is
nearer the bands; the search stops when every target is met with its interval inside its band,
when no candidate comes nearer, or at the edit limit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.bands import Reading, aim, distance
from compiler.tune.evaluate import Lab, Trial, key
from compiler.tune.knobs import Edit, Knob, moves

Report = Callable[[str], None]

MORE_GAMES = 4
"""A candidate that meets its bands on the search's seeds but not on fresh ones is played on
twice the games, and again, up to this many times the budget, before it is given up."""


@dataclass
class Found:
    """Where the search got: the best trial, the first (no edits), and each single move's."""

    best: Trial
    start: Trial
    singles: list[Trial] = field(default_factory=list)
    rounds: int = 0
    dropped: int = 0  # candidates dropped after a short sweep
    candidates: int = 0
    interrupted: bool = False
    confirmation: Trial | None = None  # the best played again on fresh seeds

    @property
    def met(self) -> bool:
        """Every target met by the best, on the search's seeds and again on fresh ones."""
        return self.best.met and self.confirmation is not None and self.confirmation.met


@dataclass(frozen=True)
class Budget:
    """How many games a candidate may be played on, first and at most; how many edits."""

    first_games: int = 50
    most_games: int = 400
    most_edits: int = 3


def search(lab: Lab, knobs: Sequence[Knob], budget: Budget, report: Report) -> Found:
    """The fewest, smallest edits that meet the targets, or the nearest found."""
    start = lab.trial((), budget.most_games)
    found = Found(start, start)
    report(f"as written: {_shown(start)}")
    if not start.playable:
        return found
    current = start
    most_games = budget.most_games
    try:
        while True:
            if current.met:
                # Chosen for meeting the bands on these seeds, it is a little lucky by choice:
                # it must meet them again on games the search never saw.
                found.confirmation = lab.trial(current.edits, most_games, fresh=True)
                report(f"  on fresh seeds: {_shown(found.confirmation)}")
                if found.confirmation.met or most_games >= budget.most_games * MORE_GAMES:
                    break
                # Too near a band's edge to tell on this many games: play more, and go on.
                most_games *= 2
                budget = dataclasses.replace(budget, most_games=most_games)
                current = lab.trial(current.edits, most_games)
                found.best = current
                report(f"  on {most_games} games: {_shown(current)}")
                continue
            if len({e.knob for e in current.edits}) > budget.most_edits:
                break
            candidates = _candidates(current.edits, knobs, budget.most_edits)
            if not candidates:
                break
            found.rounds += 1
            found.candidates += len(candidates)
            best, short, dropped = _halve(lab, candidates, budget, current.edits)
            found.dropped += dropped
            if found.rounds == 1:
                found.singles = short
            report(
                f"round {found.rounds}: {len(candidates)} candidates, "
                f"best {_edits(best)}: {_shown(best)}"
            )
            nearer = _rank(best.readings, best, budget.most_games)[:2]
            if nearer >= _rank(current.readings, current, budget.most_games)[:2]:
                break
            current = found.best = best
    except KeyboardInterrupt:
        found.interrupted = True
    return found


def _candidates(edits: Sequence[Edit], knobs: Sequence[Knob], most_edits: int) -> list[list[Edit]]:
    """The current edits with one more move."""
    edited = {edit.knob: edit for edit in edits}
    made: dict[tuple[tuple[str, int, int, int], ...], list[Edit]] = {}
    for knob in knobs:
        if knob in edited:
            base = edited[knob]
            others = [e for e in edits if e.knob != knob]
            for step in (1, -1):
                value = base.value + step
                if value != knob.value and knob.allows(value):
                    made.setdefault(key([*others, Edit(knob, value)]), [*others, Edit(knob, value)])
        elif len(edited) < most_edits:
            for move in moves(knob):
                made.setdefault(key([*edits, move]), [*edits, move])
    return list(made.values())


def _halve(
    lab: Lab, candidates: Sequence[list[Edit]], budget: Budget, parent: Sequence[Edit]
) -> tuple[Trial, list[Trial], int]:
    """The best candidate after successive halving; every candidate's first short trial; how
    many were dropped before the full sweep. `parent`: the edits the candidates add to."""
    games = min(budget.first_games, budget.most_games)
    alive = [lab.trial(edits, games) for edits in candidates]
    first = list(alive)
    dropped = 0
    while games < budget.most_games and len(alive) > 1:
        alive = _ranked(lab, alive, parent, games, budget.most_games)
        keep = max(1, (len(alive) + 1) // 2)
        dropped += len(alive) - keep
        games = min(games * 2, budget.most_games)
        alive = [lab.trial(t.edits, games) for t in alive[:keep] if t.playable] or alive[:1]
    if alive[0].games < budget.most_games:
        alive = [lab.trial(t.edits, budget.most_games) for t in alive]
    alive.sort(key=lambda trial: _rank(trial.readings, trial, budget.most_games))
    return alive[0], first, dropped


def _ranked(
    lab: Lab, trials: list[Trial], parent: Sequence[Edit], games: int, most_games: int
) -> list[Trial]:
    """Short trials ranked by what they foretell of a full sweep. Played on the same seeds,
    a candidate and the edits it adds to differ by what the candidate changes, while the first
    games themselves may run luckier or unluckier than the full sweep (10 points, seen): so
    each short figure is moved by how far the parent's short figure is from its full one."""
    full, short = lab.trial(parent, most_games), lab.trial(parent, games)
    shifts = [0.0] * len(full.readings)
    if full.playable and short.playable:
        shifts = [f.value - s.value for f, s in zip(full.readings, short.readings, strict=True)]

    def foretold(trial: Trial) -> tuple[float, float, int, int]:
        if not trial.playable:
            return _rank((), trial, most_games)
        readings = tuple(
            dataclasses.replace(r, value=r.value + d, low=r.low + d, high=r.high + d)
            for r, d in zip(trial.readings, shifts, strict=True)
        )
        return _rank(readings, trial, most_games)

    return sorted(trials, key=foretold)


def _rank(
    readings: Sequence[Reading], trial: Trial, most_games: int
) -> tuple[float, float, int, int]:
    """Nearer where a full sweep meets the bands first (a short sweep's interval is no
    yardstick: see `Reading.aim`); then nearer the bands; then fewer edits; then smaller
    steps."""
    if not trial.playable:
        return (math.inf, math.inf, len(trial.edits), 0)
    return (
        aim(readings, most_games),
        distance(readings),
        len(trial.edits),
        sum(abs(edit.step) for edit in trial.edits),
    )


def _edits(trial: Trial) -> str:
    return "; ".join(edit.describe() for edit in trial.edits) or "no edit"


def _shown(trial: Trial) -> str:
    if not trial.playable:
        return f"cannot be played: {trial.problem}"
    return ", ".join(
        f"{r.target.text} → {r.shown()}{' (met)' if r.met else ''}" for r in trial.readings
    )
