"""Benchmark the balance gate: how long `pillbox test --balance` takes to judge every bundled
pack's bands, on two workers (goal: all of them in under five minutes, so that a content
repository's CI job can afford the gate), and whether each pack's bands hold.

It always exits 0: it reports, it does not gate. `python bench/balance.py` or `make bench`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.timing import load, verdict  # noqa: E402

GOAL_SECONDS = 300.0


def bundled_packs_with_bands() -> list[Path]:
    """The bundled packs whose pack.yaml states balance bands."""
    return [
        manifest.parent
        for manifest in sorted((ROOT / "content").glob("*/pack.yaml"))
        if any(line.startswith("balance:") for line in manifest.read_text("utf-8").splitlines())
    ]


def judge(pack: Path) -> tuple[float, int, str]:
    """Judge one pack's bands: seconds taken, the exit code, and the summary line."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "test", str(pack), "--balance", "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("balance: ")]
    return time.perf_counter() - started, done.returncode, (lines[-1] if lines else "no verdict")


def main() -> None:
    """Judge every bundled pack's bands and print each time and the total against the goal."""
    total = 0.0
    every_held = True
    for pack in bundled_packs_with_bands():
        seconds, code, summary = judge(pack)
        total += seconds
        every_held &= code == 0
        print(f"balance {pack.name}: {summary} (exit {code}) in {seconds:.1f} s")
    print(
        f"balance, every bundled pack: {total:.0f} s (goal < {GOAL_SECONDS:.0f} s, ratio "
        f"{total / GOAL_SECONDS:.2f}) {verdict(total < GOAL_SECONDS and every_held)}; "
        f"load {load()}"
    )


if __name__ == "__main__":
    main()
