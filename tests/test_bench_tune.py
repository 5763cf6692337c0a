"""The tune bench runs a case and prints its figures against the goal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import tune

COIN = Path(__file__).parent / "tune" / "coin"


def test_the_tune_bench_prints_a_case_s_figures_and_its_goal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tune.run(
        "coin", str(COIN), ["--target", "won 80..95%", "--vary", "Good Omen", "--policy", "random"]
    )
    printed = capsys.readouterr().out
    assert printed.startswith("tune coin: met True with 1 edits (Good Omen 3 → ")
    assert "(goal < 15, ratio " in printed and "dropped early" in printed
