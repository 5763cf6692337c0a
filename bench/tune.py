"""Benchmark `pillbox tune` on bundled packs: does it find an edit of at most two numbers that
meets a band, and how fast.

Each case is a bundled game, a target the issue that asked for tune does not name, and the
cards whose numbers may change. The figures, each case's: whether every target was met (with
its interval inside the band, confirmed on fresh seeds), the edits, the minutes it took (goal
under 15, on two workers), candidates evaluated a minute, and the share of candidates dropped
after a short sweep. It always exits 0: it reports, it does not gate. `python bench/tune.py`
or `make bench`; `--case NAME` runs one.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.timing import load, verdict  # noqa: E402

GOAL_MINUTES = 15.0

MINUTES = "10"
"""The time tune's default seats are chosen to fit: under the goal, so the search can end."""

CASES = {
    "cool-name": (
        "content/cool-name",
        ["--target", "won 60..75%", "--vary", "foe", "--max-edits", "2", "--minutes", MINUTES],
    ),
    "comanauts": (
        "content/comanauts",
        ["--target", "won 25..40%", "--vary", "enemy", "--max-edits", "2", "--minutes", MINUTES],
    ),
}
"""Each case: its pack and what tune is asked: a band a designer might ask of it, which the pack
as written misses, under the seats tune takes in its time. Cool Name's encounter a little harder
than its strongest seats in time (mcts:16 or greedy) find it (80.8 %); Comanauts' adventure a
little easier for the seats tune can afford there (random, 20 %: greedy costs half a second a
game). Asked 70..85 % of Comanauts under random seats, no two enemy numbers reach it; asked
30..45 %, the nearest is 32.2 % [27.9 %, 37.0 %]: tune says so, as it should."""


def run(name: str, pack: str, asked: list[str]) -> None:
    """Tune one case and print its figures."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "tune", pack, *asked, "--workers", "2", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    minutes = (time.perf_counter() - started) / 60
    if done.returncode not in (0, 1):
        print(f"tune {name}: failed ({done.returncode}): {done.stderr.strip()[-300:]}")
        return
    answer = json.loads(done.stdout)
    searched = answer["search"]
    edits = "; ".join(f"{e['card']} {e['from']} → {e['to']}" for e in answer["edits"]) or "none"
    per_minute = searched["candidates"] / minutes if minutes else 0.0
    dropped = searched["dropped early"] / searched["candidates"] if searched["candidates"] else 0
    ok = answer["met"] and len(answer["edits"]) <= 2 and minutes < GOAL_MINUTES
    print(
        f"tune {name}: met {answer['met']} with {len(answer['edits'])} edits ({edits}) in "
        f"{minutes:.1f} min (goal < {GOAL_MINUTES:.0f}, ratio {minutes / GOAL_MINUTES:.2f}) "
        f"{verdict(ok)}; {per_minute:.1f} candidates a minute, {dropped:.0%} dropped early, "
        f"{searched['games played']} games; load {load()}"
    )
    for row in answer["targets"]:
        print(f"  {row['target']}: {row['before']['shown']} → {row['after']['shown']}")


def main() -> None:
    """Run every case, or the one named."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", choices=sorted(CASES))
    arguments = parser.parse_args()
    for name, (pack, asked) in CASES.items():
        if arguments.case in (None, name):
            run(name, pack, asked)


if __name__ == "__main__":
    main()
