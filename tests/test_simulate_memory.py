"""A sweep's memory does not grow with its games: the totals, figures and JSON of 20,000 games
take no more than those of 2,000, even when many fail; batches go to the pool a few at a time.

The long proof, the real command at 10,000 and 100,000 games, is tests/test_simulate_soak.py
(`make fuzz`).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any, cast

import pytest

from compiler.simulate import pool
from compiler.simulate.command import SHOWN_FAILURES
from compiler.simulate.pool import as_they_come, batches
from compiler.simulate.text import figure_lines
from runtime.simulation.figures import figures
from runtime.simulation.reading import CardTally
from runtime.simulation.record import GameRecord, Sweep
from runtime.simulation.totals import KEPT_FAILURES, Totals, total
from tests.conftest import ROOT

SWEEP = Sweep(3, 2, ("random", "random"), "end", ("start", "end"))
FAILING = 7
"""One game in this many fails."""


def _records(indices: range) -> Iterator[GameRecord]:
    """Made-up records of games, as varied as a game's (every value of each figure comes up
    within the first thousand games), one failure in `FAILING`, made one at a time."""
    draw = random.Random(indices.start)
    for index in indices:
        if index % FAILING == 3:
            yield GameRecord(index, index, error=f"KeyError: 'card {index}'", error_at=None)
            continue
        rounds = draw.randint(1, 12)
        yield GameRecord(
            index,
            index,
            result=draw.choice(("won", "lost")),
            winners=(draw.randrange(2),),
            labels={"mode": draw.choice("abc")},
            tallies={"wounds": draw.randint(0, 9)},
            rounds={"start": draw.randint(1, 3), "end": rounds},
            turns={"start": 2, "end": 2 * rounds},
            death_rounds=[draw.randint(1, rounds)] * draw.randint(0, 2),
            stat_sums={"nerve": [draw.randint(0, 10) for _ in range(rounds)]},
            seated=[2] * rounds,
            stat_ends={"nerve": [draw.randint(0, 5)] * 2},
            cards={draw.choice("XYZ"): CardTally(1, {"nerve": -1}, 0)},
        )


def _sweep(games: int) -> Totals:
    """The games added up as the pool does: batch by batch, each batch's totals merged."""
    totals = Totals()
    for part in batches(games, 2):
        totals.merge(total(_records(part)))
    return totals


def _peak(games: int) -> int:
    """The most memory the totals, figures and JSON of a sweep of `games` held at once."""
    tracemalloc.start()
    try:
        summary = {**figures(SWEEP, _sweep(games)), "pack": "made-up"}
        json.dumps(summary, indent=2)
        figure_lines(summary)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_memory_of_a_sweep_does_not_grow_with_its_games() -> None:
    small, large = _peak(2_000), _peak(20_000)
    assert large <= 1.1 * small, f"2,000 games: {small} bytes; 20,000 games: {large} bytes"


def test_the_first_failures_are_kept_whatever_the_order_and_all_are_counted() -> None:
    parts = [total(_records(part)) for part in batches(5_000, 2)]
    random.Random(1).shuffle(parts)
    totals = Totals()
    for part in parts:
        totals.merge(part)
    failing = [i for i in range(5_000) if i % FAILING == 3]
    assert totals.failed == len(failing) == totals.games - totals.played
    assert [f.index for f in totals.failures] == failing[:KEPT_FAILURES]
    summary = {**figures(SWEEP, totals), "pack": "made-up"}
    assert [f["index"] for f in summary["failed"]] == failing[:KEPT_FAILURES]
    assert f"failed: {len(failing)} of 5000 games" in figure_lines(summary)
    assert KEPT_FAILURES >= SHOWN_FAILURES  # the command names the first few of those kept


def test_batches_go_to_the_pool_a_few_at_a_time() -> None:
    waiting: list[Future[range]] = []
    most = 0

    def submit(part: range) -> Future[range]:
        nonlocal most
        future: Future[range] = Future()
        future.set_result(part)
        waiting.append(future)
        most = max(most, len(waiting))
        return future

    replied = []
    for part, _ in as_they_come(submit, batches(100_000, 2), 4):
        replied.append(part)
        waiting.pop()
    assert most <= 4
    assert sorted(i for part in replied for i in part) == list(range(100_000))


def test_the_parent_lets_go_of_its_loading_before_the_workers_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    happened: list[str] = []

    class Pool:  # replies at once, each batch's totals its count of games
        def __init__(self, *_args: object, **_kwargs: object) -> None:
            happened.append("pool")

        def submit(self, _play: object, _sweep: Sweep, part: range) -> Future[Totals]:
            future: Future[Totals] = Future()
            future.set_result(Totals(games=len(part)))
            return future

        def shutdown(self, *_args: object, **_kwargs: object) -> None:
            pass

    monkeypatch.setattr(pool, "keep_loaded", lambda: happened.append("kept"))
    monkeypatch.setattr(pool, "ProcessPoolExecutor", Pool)
    playing = cast(Any, None)  # only the workers would read it
    totals = pool.run_sweep(playing, (ROOT, None), SWEEP, 10_000, 2)
    assert happened == ["kept", "pool"] and totals.games == 10_000


FREED = """
from compiler.simulate.pool import keep_loaded

def anon():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssAnon:"))

blocks = [bytes(4000) for _ in range(10_000)]  # 40 MB of the C heap, not of Python's arenas
pin = bytes(4000)  # above them: the heap's top cannot shrink past it
del blocks
before = anon()
keep_loaded()
print(before - anon())
"""


@pytest.mark.skipif(pool._MALLOC_TRIM is None, reason="a C library without malloc_trim")
def test_what_loading_freed_is_given_back_before_the_workers_fork() -> None:
    # in a process of its own: keep_loaded freezes what is alive out of the collector's sight
    done = subprocess.run(
        [sys.executable, "-c", FREED], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert int(done.stdout) > 30_000, "KB of the freed 40 MB given back before a fork"


def test_a_record_is_added_without_counters_update(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counter.update asks whether it was given a mapping (an abc isinstance) before it counts:
    # a third of adding a game's record, which a sweep does per game.
    records = list(_records(range(60)))
    expected = total(iter(records))

    def refuse(self: Counter[Any], iterable: object = None, /, **kwargs: object) -> None:
        if iterable is not None or kwargs:  # a new Counter() calls it with nothing to count
            raise AssertionError("a record added through Counter.update")

    monkeypatch.setattr(Counter, "update", refuse)
    added = Totals()
    for record in records:
        added.add(record)
    monkeypatch.undo()
    assert added == expected and added.death_rounds and added.wins and added.stat_ends
