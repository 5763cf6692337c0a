"""`pillbox simulate --ladder`: the same seeds under each rung of policies, with intervals, the
skill gap, first-seat advantage and flags, as text, JSON and a page Chromium opens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.simulate import command
from runtime.policies import policy_named, seat_policies
from runtime.simulation.ladder import FEWEST_TO_FLAG, flags, ladder, rate, skill_gap
from tests.helpers import ROOT_PACKS, coma_ward_whole, compiled, run
from tests.test_report_browser import BROWSER, browse

COOL_NAME = ROOT_PACKS / "cool-name"
RUNGS = "random,greedy,mcts:2"


def _rung(won: int, lost: int, games: int, **more: Any) -> dict[str, Any]:
    return {**rate(won, games), "lost": lost, "round limit": 0, "cut short": 0, **more}


def test_a_rate_has_its_95_percent_interval() -> None:
    figures = rate(50, 100)
    assert figures["win rate"] == 0.5
    low, high = figures["interval"]
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60  # Wilson's, at 1.96
    assert rate(0, 0)["win rate"] is None


@pytest.mark.parametrize(
    ("rungs", "wanted"),
    [
        ({"random": (0, 20), "mcts": (0, 20)}, "lost under every rung: unwinnable?"),
        ({"random": (20, 0), "mcts": (20, 0)}, "won under every rung: no challenge?"),
        ({"random": (10, 10), "mcts": (10, 10)}, "0.0 points above random: do decisions matter?"),
    ],
)
def test_the_flags_say_what_a_designer_should_look_at(
    rungs: dict[str, tuple[int, int]], wanted: str
) -> None:
    by_rung = {name: _rung(won, lost, won + lost) for name, (won, lost) in rungs.items()}
    assert any(wanted in flag for flag in flags(list(rungs), by_rung, overall=False))


def test_a_breakdown_of_few_games_is_not_flagged() -> None:
    few = FEWEST_TO_FLAG - 1
    by_rung = {"random": _rung(0, few, few), "mcts": _rung(0, few, few)}
    assert flags(["random", "mcts"], by_rung, overall=False) == [
        f"too few games to flag (at least {FEWEST_TO_FLAG} a rung; {few} here)"
    ]


def test_the_skill_gap_is_the_best_rung_less_the_floor() -> None:
    by_rung = {"random": _rung(2, 8, 10), "greedy": _rung(7, 3, 10), "mcts": _rung(6, 4, 10)}
    assert skill_gap(["random", "greedy", "mcts"], by_rung) == 0.5


def _figures(won: int, games: int, seat_rates: list[float]) -> dict[str, Any]:
    """The figures of a sweep, the part the ladder reads."""
    return {
        "games": games,
        "played": games,
        "players": len(seat_rates),
        "seed": 1,
        "until": "end",
        "policies": ["p"] * len(seat_rates),
        "results": {"won": {"count": won}, "lost": {"count": games - won}},
        "stopped": {},
        "phases": {"end": {"rounds": {"mean": 7.0}}},
        "deaths": {"per game": {"mean": 0.5}},
        "seats": {
            "games": games,
            "by seat": [{"win rate": r} for r in seat_rates],
        },
        "labels": {
            "breakdown": {
                "values": {"A": {"count": games}},
                "results": {"A": {"won": {"count": won}, "lost": {"count": games - won}}},
            }
        },
    }


def test_a_ladder_reads_every_rung_side_by_side_and_per_value() -> None:
    summary = ladder(
        [("random", _figures(2, 20, [0.2, 0.1])), ("mcts", _figures(16, 20, [0.5, 0.3]))],
        "breakdown",
    )
    assert summary["rungs"] == ["random", "mcts"]
    assert summary["note"].startswith("random seats are a floor")
    mcts = summary["overall"]["by rung"]["mcts"]
    assert mcts["win rate"] == 0.8 and mcts["first seat advantage"] == 0.2
    assert summary["overall"]["skill gap"] == 0.7
    assert summary["values"]["A"]["by rung"]["random"]["won"] == 2


def test_the_ladder_names_every_rung_and_says_random_is_a_floor() -> None:
    options = ["--games", "6", "--players", "2", "--seed", "4", "--workers", "1"]
    code, text = run("simulate", str(COOL_NAME), *options, "--ladder", "--rungs", RUNGS)
    assert code == 0, text
    code, data = run("simulate", str(COOL_NAME), *options, "--ladder", "--rungs", RUNGS, "--json")
    assert code == 0, data
    summary = json.loads(data)
    assert summary["rungs"] == RUNGS.split(",")
    for rung in RUNGS.split(","):
        entry = summary["overall"]["by rung"][rung]
        assert entry["policies"] == [rung, rung]
        assert f"  {rung}: {entry['win rate'] * 100:.1f} % [" in text  # the text is the JSON's
    assert "random seats are a floor, not a forecast" in text
    assert "skill gap" in text


SEATS = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 2}
"""Seats of each game's ladder page. Six games a rung show what twelve did (a quarter of the
time for Lobotomy): the overall flags take no fewest games, and fire alike (Lobotomy lost under
every rung, Coma Ward's games cut short); each value's section has a game or two either way."""


@pytest.mark.parametrize("name", sorted(SEATS))
def test_every_games_ladder_page_opens_in_chromium_and_names_what_its_flags_fire_on(
    name: str, tmp_path: Path
) -> None:
    if BROWSER is None:
        pytest.skip("no headless Chromium on this machine")
    page = tmp_path / "ladder.html"
    code, data = run(
        "simulate", str(ROOT_PACKS / name), "--games", "6", "--players", str(SEATS[name]),
        "--seed", "6", "--ladder", "--rungs", "random,bold", "--json", "--report", str(page),
        "--workers", "1",
    )  # fmt: skip
    assert code == 0, data
    summary, _ = json.JSONDecoder().raw_decode(data[data.index("{") :])
    done = browse(page, tmp_path / "profile", "--dump-dom")
    assert done.returncode == 0
    dom = done.stdout.decode()
    values = summary["values"]
    assert dom.count('data-kind="ladder"') == 1 + len(values)  # every game, then each value
    for rung in ("random", "bold"):
        assert f">{rung}<" in dom
    flagged = {value: entry["flags"] for value, entry in values.items() if entry["flags"]}
    for value, said in {"": summary["overall"]["flags"], **flagged}.items():
        if value:
            assert f"{summary['breakdown']}: {value}</figcaption>" in dom
        for flag in said:
            assert f'<p class="s-flag">{flag}</p>' in dom


def test_a_coma_ward_ladder_gives_each_phenomenon_its_figures() -> None:
    code, data = run(
        "simulate", str(ROOT_PACKS / "coma-ward"), "--games", "3", "--players", "4",
        "--seed", "2", "--ladder", "--rungs", "random,bold", "--json", "--workers", "1",
    )  # fmt: skip
    assert code == 0, data
    summary = json.loads(data[data.index("{") :])
    assert summary["breakdown"] == "phenomenon"
    assert summary["values"]
    for entry in summary["values"].values():
        assert set(entry["by rung"]) <= {"random", "bold"}


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["--rungs", "random,greedy"], "add --ladder"),
        (["--ladder", "--rungs", "random"], "two policies or more"),
        (["--ladder", "--rungs", "random,nobody"], "unknown policy 'nobody'"),
        (["--ladder", "--policy", "greedy"], "leave out --policy"),
    ],
)
def test_a_ladder_asked_wrongly_is_a_usage_error(args: list[str], wanted: str) -> None:
    code, output = run("simulate", str(COOL_NAME), "--games", "2", *args)
    assert code == 2 and wanted in output and "Traceback" not in output


def test_a_game_that_revealed_no_phenomenon_had_no_order_on_the_chart() -> None:
    """The issue's game: everyone died in the prologue; no phenomenon, so no order to count."""
    pack = compiled(ROOT_PACKS / "coma-ward")
    whole = coma_ward_whole()
    game = whole.new_game(pack.rules, pack.cards, 4, 4)
    seat_policies(game, policy_named("random"))
    whole.play(game, whole.phases[0])  # the prologue, where everyone died
    labels = whole.outcome(game).labels
    assert labels["phenomenon"] == "none"
    assert "order on the chart" not in labels


def test_a_sweep_on_random_seats_alone_says_they_are_a_floor(tmp_path: Path) -> None:
    page = tmp_path / "sweep.html"
    options = ["--games", "2", "--players", "2", "--seed", "1", "--workers", "1"]
    code, output = run("simulate", str(COOL_NAME), *options, "--report", str(page))
    assert code == 0 and "random seats are a floor, not a forecast" in output
    assert "Random seats are a floor, not a forecast" in page.read_text(encoding="utf-8")
    code, output = run("simulate", str(COOL_NAME), *options, "--policy", "greedy")
    assert code == 0 and "a floor" not in output


def test_a_ladder_checks_and_compiles_its_pack_once(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[Path] = []
    load = getattr(command, "load_compiled")  # noqa: B009 - the name play_sweep calls

    def counted(path: Path, *args: Any) -> Any:
        loads.append(path)
        return load(path, *args)

    monkeypatch.setattr(command, "load_compiled", counted)
    options = ["--games", "2", "--players", "2", "--seed", "1", "--workers", "1"]
    code, output = run("simulate", str(COOL_NAME), *options, "--ladder", "--rungs", RUNGS)
    assert code == 0, output
    assert loads == [COOL_NAME]
