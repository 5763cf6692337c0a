"""The search bench runs: a fork's cost with its goal, on the runtime asked for."""

from __future__ import annotations

import pytest

from bench import search


def test_the_search_bench_times_a_fork_against_its_goal(capsys: pytest.CaptureFixture[str]) -> None:
    assert search.main(["--pure", "--ladder", "0"]) == 0
    printed = capsys.readouterr().out
    assert "seats that search, on the pure runtime" in printed
    assert "fork of a 4-seat Coma Ward game in round 4 of its prologue" in printed
    assert "(goal < 50 µs, ratio " in printed
