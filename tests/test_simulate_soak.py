"""The soak of `pillbox simulate`: the peak memory of a 100,000-game sweep is within 10 % of a
10,000-game one's, in the parent and in its workers (`make fuzz`; minutes, so it runs only with
PILLBOX_SOAK=1), whether its games are played or all fail. The short proof in `make test` is
tests/test_simulate_memory.py.

Each sweep runs in a process of its own, which reports its own peak resident memory and its
largest worker's (getrusage). The two command lines are the same length (the games written
with leading zeros): the C heap's layout shifts with the bytes a process starts with, and with
it where loading the pack peaks, by as much as 8 MB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.simulate.compiled import PURE_ENV
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    os.environ.get("PILLBOX_SOAK") != "1", reason="a soak of minutes: PILLBOX_SOAK=1 (make fuzz)"
)

PACK = ROOT / "content" / "cool-name"
"""The bundled game quickest to play whole: 100,000 games in a few minutes on two workers."""

SWEEP = """
import atexit, json, resource, sys
import runtime.simulation.record
from compiler.cli import main

report, failing = sys.argv[1], sys.argv[2] == "failing"

def fail(game, policies):
    raise ValueError("a card's effect went wrong")

if failing:  # every game fails in its (forked) worker, as a broken pack's would
    runtime.simulation.record.seat_policies = fail

def peaks():
    with open(report, "w") as out:
        json.dump({
            "parent": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        }, out)

atexit.register(peaks)
sys.argv = ["pillbox", *sys.argv[3:]]
main()
"""
"""A sweep run in this process, its peaks (KB) written at its exit to the file first named;
the second says whether its games all fail."""


def _peaks(games: int, folder: Path, failing: bool, *options: str) -> dict[str, int]:
    """The peak memory (KB) of the parent and the largest worker of a sweep of `games`."""
    report = folder / f"peaks-{games}.json"
    command = [sys.executable, "-c", SWEEP, str(report), "failing" if failing else "playing"]
    command += ["simulate", str(PACK), "--games", f"{games:07d}", "--workers", "2"]
    command += ["--seed", "29", *options]
    # the workers forked, so that they fail as patched (a compiled runtime's are spawned)
    environ = {**os.environ, "PILLBOX_CACHE_DIR": str(folder / "cache"), PURE_ENV: "1"}
    done = subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True)
    assert done.returncode == (1 if failing else 0), done.stderr[-2000:]
    peaks: dict[str, int] = json.loads(report.read_text())
    return peaks


@pytest.mark.parametrize(
    ("failing", "options"),
    [
        (False, ("--report", "sweep.html")),  # the text and the page
        (True, ("--json",)),  # every game named in the JSON, until only the first 100 were
    ],
    ids=["played", "failing"],
)
def test_a_sweep_of_100000_games_takes_no_more_memory_than_one_of_10000(
    tmp_path: Path, failing: bool, options: tuple[str, ...]
) -> None:
    options = tuple(str(tmp_path / o) if o.endswith(".html") else o for o in options)
    _peaks(10, tmp_path, failing, *options)  # the check cache filled, as for the two measured
    small = _peaks(10_000, tmp_path, failing, *options)
    large = _peaks(100_000, tmp_path, failing, *options)
    for part in ("parent", "worker"):
        assert large[part] <= 1.1 * small[part], f"{part}: 10,000 {small}, 100,000 {large}"
