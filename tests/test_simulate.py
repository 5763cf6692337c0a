"""`pillbox simulate`: records of whole games, their figures, the pool, and bad input."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from fractions import Fraction
from itertools import permutations
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.simulate import command, pool
from compiler.simulate.command import SimulateRequest, make_sweep
from compiler.simulate.pool import Playing, batches, run_sweep
from compiler.simulate.text import figure_lines
from runtime import rounds as round_rules
from runtime.datagame import whole_game_of
from runtime.events import Event
from runtime.game import Game
from runtime.policies import policy_named, seat_policies
from runtime.rules import GameRules
from runtime.simulation.compare import compare, mean_difference, share_difference
from runtime.simulation.figures import figures, spread
from runtime.simulation.intervals import share_interval
from runtime.simulation.record import Sweep, play_game
from runtime.simulation.totals import Totals, total
from runtime.state import Actor
from runtime.whole import NotWhole, WholeGame, game_seed
from runtime.world import Phase
from tests.conftest import ROOT, TESTS
from tests.helpers import coma_ward_whole, compiled, make_pack, run
from tests.test_print_hostile import gone, workers_started

PACK = ROOT / "content" / "coma-ward"
ITEMS_ONLY = TESTS / "data" / "items-only"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _playing(pack: CompiledPack) -> Playing:
    return Playing(coma_ward_whole(), pack.rules, pack.cards)


def test_a_record_reads_the_game_as_it_was_played(pack: CompiledPack) -> None:
    sweep = Sweep(5, 3, ("random", "bold", "cautious"), "prologue")
    record = play_game(coma_ward_whole(), pack.rules, pack.cards, sweep, 2)
    assert record.error is None and record.seed == game_seed(5, 2)
    # The same game played by hand ends where the record's stats say it does.
    game = coma_ward_whole().new_game(pack.rules, pack.cards, 3, record.seed)
    seat_policies(game, [policy_named(name) for name in sweep.policies])
    coma_ward_whole().play(game, "prologue")
    living = [p for p in game.state.players if not p.dead]
    for stat, sums in record.stat_sums.items():
        assert record.stat_ends[stat] == [p.stats.values[stat] for p in living]
        assert sums[-1] == sum(record.stat_ends[stat])
    assert record.rounds["prologue"] == game.state.round == len(record.stat_sums["health"])
    assert record.seated[-1] == len(living) and len(record.seated) == game.state.round
    assert len(record.death_rounds) == sum(p.dead for p in game.state.players)
    drawn = sum(1 for e in game.log.events if e.kind == "draw" and "title" in e.data)
    assert sum(t.drawn for t in record.cards.values()) == drawn
    assert record.labels["phenomenon"] == coma_ward_whole().outcome(game).labels["phenomenon"]


def test_figures_are_the_same_in_any_order_and_count_everything(pack: CompiledPack) -> None:
    sweep = Sweep(11, 4, ("random",) * 4, "prologue")
    playing = _playing(pack)
    records = [play_game(coma_ward_whole(), pack.rules, pack.cards, sweep, i) for i in range(5)]
    summary = figures(sweep, total(records))
    assert summary == figures(sweep, total(reversed(records)))
    halves = total(records[3:])
    halves.merge(total(records[:3]))
    assert figures(sweep, halves) == summary
    assert figures(sweep, run_sweep(playing, (PACK, None), sweep, 5, 1)) == summary
    assert summary["games"] == summary["played"] == 5
    assert summary["phases"]["prologue"]["rounds"]["count"] == 5
    assert sum(v["count"] for v in summary["labels"]["phenomenon"]["values"].values()) == 5
    assert sum(c["drawn"] for c in summary["cards"].values()) > 0
    assert [s["seat"] for s in summary["seats"]["by seat"]] == [1, 2, 3, 4]
    json.dumps(summary)  # plain data


def test_spreads_and_intervals() -> None:
    assert spread({3: 1, 1: 1, 2: 1, 10: 1}) == {
        "count": 4,
        "mean": 4.0,
        "median": 2.5,
        "p90": 10.0,
    }
    assert spread({1: 2, 7: 1}) == {"count": 3, "mean": 3.0, "median": 1.0, "p90": 7.0}
    assert spread({})["mean"] is None
    low, high = share_interval(50, 100, 2.576)
    assert low < 0.5 < high and round(high - 0.5, 3) == round(0.5 - low, 3)


def test_batches_cover_every_game_once() -> None:
    parts = list(batches(1001, 2))
    assert [i for part in parts for i in part] == list(range(1001))
    assert len(parts) >= 2 * 8 - 1


def test_a_sweep_played_on_in_stages_is_the_sweep_played_at_once() -> None:
    # Balance bands and tune's halving play a sweep on: each stage adds only the games it
    # lacks, and the figures are those of the whole sweep.
    pack = compiled(ROOT / "content" / "cool-name")
    whole = whole_game_of(pack.rules, pack.whole)
    sweep = make_sweep(whole, SimulateRequest(60, 4))
    playing = Playing(whole, pack.rules, pack.cards)
    source = (ROOT / "content" / "cool-name", None)
    staged = run_sweep(playing, source, sweep, 15, 1)
    staged.merge(run_sweep(playing, source, sweep, 60, 2, first=15))
    assert figures(sweep, staged) == figures(sweep, run_sweep(playing, source, sweep, 60, 1))
    assert [i for part in batches(60, 2, first=15) for i in part] == list(range(15, 60))


def _simulate(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch, request: SimulateRequest
) -> tuple[int, str]:
    """Run the command on the pack compiled once (compiling it is most of a small run)."""
    monkeypatch.setattr(command, "load_compiled", lambda *_args, **_kw: pack)
    lines: list[str] = []
    code = command.simulate(PACK, None, request, lines.append)
    return code, "\n".join(lines)


def test_the_json_of_a_seed_is_the_same_on_one_worker_or_two(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = SimulateRequest(10, 4, players=2, as_json=True)
    one_code, one = _simulate(pack, monkeypatch, replace(request, workers=1))
    two_code, two = _simulate(pack, monkeypatch, replace(request, workers=2))
    assert one_code == two_code == 0, one
    assert one == two
    summary = json.loads(one)
    assert summary["games"] == 10 and summary["players"] == 2 and summary["seed"] == 4


def test_the_text_names_every_figure(pack: CompiledPack, monkeypatch: pytest.MonkeyPatch) -> None:
    code, output = _simulate(pack, monkeypatch, SimulateRequest(4, 2, players=3, workers=1))
    assert code == 0, output
    assert output.startswith("coma-ward: 4 games of 3 players (random every seat), seed 2")
    for words in ("prologue: rounds mean", "phenomenon (4 games):", "deaths a game:", "cards ("):
        assert words in output


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (SimulateRequest(5, 1, policy="reckless"), "unknown policy 'reckless'"),
        (SimulateRequest(5, 1, players=7), "played by 2 to 6 players"),
        (SimulateRequest(5, 1, players=3, seats="bold,odds"), "names 2 policies for 3"),
        (SimulateRequest(5, 1, policy="bold", seats="bold,odds"), "not both"),
        (SimulateRequest(5, 1, until="epilogue"), "plays to the end of prologue"),
    ],
)
def test_bad_sweeps_are_usage_errors(request_: SimulateRequest, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        make_sweep(coma_ward_whole(), request_)


def test_seats_give_the_players_and_policies() -> None:
    sweep = make_sweep(coma_ward_whole(), SimulateRequest(5, 1, seats="bold, odds,random"))
    assert sweep.players == 3 and sweep.policies == ("bold", "odds", "random")
    assert sweep.until == coma_ward_whole().phases[-1]


def test_a_usage_error_exits_2_without_a_traceback() -> None:
    code, output = run("simulate", str(PACK), "--games", "2", "--policy", "reckless")
    assert code == 2 and "unknown policy 'reckless'" in output
    assert "Traceback" not in output


def test_a_game_the_runtime_fails_on_is_named_with_its_seed(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = round_rules.take_turn

    def failing(game: Game, actor: Actor, phase: Phase) -> None:
        if game.seed == game_seed(9, 1):
            raise KeyError("boom")
        turn(game, actor, phase)

    monkeypatch.setattr(round_rules, "take_turn", failing)
    code, output = _simulate(pack, monkeypatch, SimulateRequest(3, 9, workers=1))
    assert code == 1, output
    assert f"error[E0460]: game 1 of the sweep (seed {game_seed(9, 1)}) failed: KeyError" in output
    assert f"--game --seed {game_seed(9, 1)} --players 2 --policy random --until" in output
    assert "failed: 1 of 3 games" in output and "Traceback" not in output
    # a failure at no card line is told at the pack's ruleset line, not into a bundled ruleset
    assert "coma-ward/pack.yaml:5:10: error[E0460]" in output and "ruleset.yaml" not in output


def test_a_game_with_no_whole_game_rules_is_an_error(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(NotWhole):
        whole_game_of(replace(pack.rules, game="base"), None)

    def single_cards_only(rules: GameRules, _whole: object) -> WholeGame:
        raise NotWhole(rules.game)

    monkeypatch.setattr(command, "whole_game_of", single_cards_only)
    code, output = _simulate(pack, monkeypatch, SimulateRequest(2, 1))
    assert code == 1, output
    assert "error[E0461]" in output and "can play single cards only" in output


def test_a_pack_of_a_game_that_is_not_whole_is_told_at_its_ruleset_line(tmp_path: Path) -> None:
    folder = make_pack(
        tmp_path / "b",
        "pack: b\ntitle: B\nversion: 0.1.0\nruleset: base\n",
    )
    code, output = run("simulate", str(folder), "--games", "2", "--color", "never")
    assert code == 1, output
    assert "b/pack.yaml:4:10: error[E0461]: cannot simulate b" in output, output
    assert "4 | ruleset: base\n  |          ^^^^\n" in output
    assert "content/base" not in output


def test_a_worker_that_died_is_told_at_the_pack_not_a_bundled_ruleset(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def died(*_args: object, **_kw: object) -> None:
        raise BrokenProcessPool("a worker was killed")

    monkeypatch.setattr(command, "run_sweep", died)
    code, output = _simulate(pack, monkeypatch, SimulateRequest(2, 2))
    assert code == 1, output
    assert "pack.yaml:1:1: error[E0462]" in output and "ruleset.yaml" not in output


def test_a_broken_pack_is_reported_not_simulated(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "bad", cards='item "Torch" {\n    gain sanity 1\n}\n')
    code, output = run("simulate", str(folder), "--games", "2")
    assert code == 1 and "error[" in output and "Traceback" not in output


def test_whole_game_of_the_pack_is_found(pack: CompiledPack) -> None:
    assert (
        whole_game_of(pack.rules, pack.whole).phases
        == coma_ward_whole().phases
        == ("prologue", "end")
    )


def _exact_phenomenon_shares(pack: CompiledPack) -> tuple[dict[str, Fraction], Fraction]:
    """Each phenomenon's exact share, and that of orders off the chart, from the clues of the
    item deck: the shuffle puts them in every order alike, the first three found pick on the
    chart, and an order off it gets any phenomenon alike (the guest-writer note)."""
    (chart,) = pack.rules.charts
    letters = [
        str(c.properties[chart.symbol_property or ""])
        for c in pack.cards
        if c.kind == chart.symbol_kind
        for _ in range(c.copies)
    ]
    keyed = {tuple(c.properties[chart.key]): c.title for c in pack.cards if c.kind == chart.kind}
    orders = list(permutations(letters))
    found = Counter(keyed.get(order[:3]) for order in orders)
    off = Fraction(found.pop(None, 0), len(orders))
    phenomena = sorted(keyed.values())
    shares = {
        title: Fraction(found[title], len(orders)) + off / len(phenomena) for title in phenomena
    }
    return shares, off


ITEMS_SWEEP = Sweep(1, 2, ("random", "random"), "prologue")


@pytest.fixture(scope="module")
def items_only() -> tuple[CompiledPack, Totals]:
    """The items-only pack and the totals of 120 games of it."""
    pack = compiled(ITEMS_ONLY)
    playing = Playing(whole_game_of(pack.rules, pack.whole), pack.rules, pack.cards)
    return pack, run_sweep(playing, (ITEMS_ONLY, None), ITEMS_SWEEP, 120, 1)


def test_simulated_phenomenon_shares_agree_with_the_exact_calculation(
    items_only: tuple[CompiledPack, Totals],
) -> None:
    pack, totals = items_only
    exact, off = _exact_phenomenon_shares(pack)
    assert off == Fraction(1, 3) and set(exact.values()) == {Fraction(1, 4)}
    sweep = ITEMS_SWEEP
    labels = figures(sweep, totals)["labels"]
    revealed = labels["phenomenon"]["values"]
    games = labels["phenomenon"]["games"] - revealed.get("none", {"count": 0})["count"]
    assert games >= 112  # a death or two may end a game before its third clue
    z = 2.576  # 99 %
    for title, share in exact.items():
        low, high = share_interval(revealed[title]["count"], games, z)
        assert low <= share <= high, (title, revealed[title], float(share))
    chart = labels["order on the chart"]
    assert chart["games"] == games  # only the games that revealed a phenomenon had an order
    low, high = share_interval(chart["values"]["no"]["count"], games, z)
    assert low <= off <= high


def _variant(tmp_path: Path) -> Path:
    """The items-only pack with a fifth phenomenon on the chart: fewer orders off it."""
    folder = tmp_path / "variant"
    shutil.copytree(ITEMS_ONLY, folder)
    with (folder / "phenomena.card").open("a") as cards:
        cards.write(
            '\nphenomenon "Fifth" {\n    number 5\n    clue order C B A\n    mode secret\n}\n'
        )
    return folder


def test_compare_gives_each_difference_with_its_interval(
    items_only: tuple[CompiledPack, Totals], tmp_path: Path
) -> None:
    variant = _variant(tmp_path)
    pack = compiled(variant)
    playing = Playing(whole_game_of(pack.rules, pack.whole), pack.rules, pack.cards)
    swept = [items_only[1], run_sweep(playing, (variant, None), ITEMS_SWEEP, 120, 1)]
    same = compare(swept[0], swept[0], 2)
    assert same["phases"]["prologue"]["rounds"]["difference"] == 0
    assert all(e["difference"] == 0 for e in same["labels"]["phenomenon"].values())
    difference = compare(swept[0], swept[1], 2)
    off = difference["labels"]["order on the chart"]["no"]
    assert off["high"] < 0 < off["base"]  # a sixth of the orders fewer off the chart
    fifth = difference["labels"]["phenomenon"]["Fifth"]
    assert fifth["base"] == 0 and fifth["low"] > 0 and fifth["counts"][1] == 120
    assert share_difference((0, 0), (1, 2))["difference"] is None
    assert mean_difference({2: 1, 4: 1}, {5: 2})["difference"] == 2.0


def test_the_command_compares_with_a_variant(tmp_path: Path) -> None:
    sweep = [str(ITEMS_ONLY), "--games", "10", "--players", "2", "--seed", "3", "--workers", "1"]
    variant = str(_variant(tmp_path))
    code, output = run("simulate", *sweep, "--compare", variant, "--json")
    assert code == 0, output
    compared = json.loads(output)["compared with"]
    assert compared["games"] == 10 and "Fifth" in compared["labels"]["phenomenon"]["values"]
    assert "Fifth" in compared["difference"]["labels"]["phenomenon"]
    page = tmp_path / "page.html"
    code, output = run("simulate", *sweep, "--compare", variant, "--report", str(page))
    assert code == 0, output
    assert "compared with items-only (10 games)" in output
    assert "  phenomenon: Fifth: 0 → " in output
    # each phenomenon's win rate, both sides, before the shares of the deck's dilution
    won = output.index("won by phenomenon, this pack → items-only")
    assert won < output.index("compared with items-only")
    assert "  Fifth: - → " in output
    assert compared["win rate by value"]["label"] == "phenomenon"
    assert compared["win rate by value"]["values"]["Fifth"]["base"] is None
    text = page.read_text(encoding="utf-8")
    assert "<h2>Compared with items-only (10 games)</h2>" in text
    assert "<td>phenomenon: Fifth</td>" in text


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_the_workers_of_a_stopped_sweep_die_with_it() -> None:
    # SIGTERM unwinds as Ctrl-C does; a SIGKILL's workers die of PR_SET_PDEATHSIG, as print's.
    stop, code = signal.SIGTERM, 128 + signal.SIGTERM
    command = [sys.executable, "-m", "compiler", "simulate", str(ITEMS_ONLY), "--games"]
    process = subprocess.Popen(
        [*command, "1000000", "--players", "2", "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    workers: list[int] = []
    try:
        workers = workers_started(process, 2)
        process.send_signal(stop)
        assert process.wait(timeout=60) == code  # a loaded machine is slow to unwind
        assert all(gone(worker) for worker in workers)
    finally:
        process.kill()
        for worker in workers:
            with contextlib.suppress(OSError):
                os.kill(worker, signal.SIGKILL)
        process.communicate()


def test_the_results_of_each_label_value_are_printed() -> None:
    summary = {
        "pack": "p",
        "games": 2,
        "played": 2,
        "players": 2,
        "policies": ["bold", "odds"],
        "seed": 1,
        "until": "end",
        "phases": {},
        "results": {"won": {"count": 1, "share": 0.5}, "lost": {"count": 1, "share": 0.5}},
        "stopped": {},
        "labels": {
            "mode": {
                "games": 2,
                "values": {"secret": {"count": 2, "share": 1.0}},
                "results": {"secret": {"won": {"count": 1, "share": 0.5}}},
            }
        },
        "tallies": {},
        "deaths": {"per game": spread({0: 2}), "round": spread({})},
        "stats": {},
        "seats": {
            "games": 2,
            "by seat": [
                {"seat": 1, "policy": "bold", "wins": 1, "win rate": 0.5},
                {"seat": 2, "policy": "odds", "wins": 0, "win rate": 0.0},
            ],
            "balance": 0.5,
        },
        "cards": {},
        "failed": [],
    }
    lines = figure_lines(summary)
    assert "  mode secret: won 50.0 % (1)" in lines
    assert (
        "wins (2 games): seat 1 (bold) 50.0 % (1), seat 2 (odds) 0.0 % (0); balance 0.500" in lines
    )


def test_a_records_turns_per_phase_are_the_seated_turns_its_log_shows(pack: CompiledPack) -> None:
    """A sweep counts turns from the state, not from their events (which it no longer makes):
    the counts are those of the turns begun in each phase of the same game, logged."""
    whole = coma_ward_whole()
    sweep = Sweep(11, 3, ("random",) * 3, "end", whole.phases)
    for index in range(3):
        record = play_game(whole, pack.rules, pack.cards, sweep, index)
        game = whole.new_game(pack.rules, pack.cards, 3, game_seed(11, index))
        seat_policies(game, [policy_named("random")] * 3)
        whole.play(game, "end")
        seats = {player.name for player in game.state.players}
        logged: Counter[str] = Counter()
        part = 0
        for event in game.log.events:
            if event.kind == "phase over":
                part += 1
            elif event.kind == "turn" and event.data.get("actor") in seats:
                logged[whole.phases[min(part, len(whole.phases) - 1)]] += 1
        assert record.turns == dict(logged) and sum(logged.values()) > 0


def test_a_sweeps_listener_is_told_the_data_of_its_events_without_their_sentences(
    pack: CompiledPack,
) -> None:
    """A listener that names its kinds (a sweep's record) reads their data only: the game
    makes no sentence for it, and tells each stat change once, with what it changed; the log
    of the same game has the sentences, and the same changes."""
    whole = coma_ward_whole()
    games = []
    for log in (False, True):
        game = whole.new_game(pack.rules, pack.cards, 3, game_seed(5, 0))
        heard: list[Event] = []
        game.logging = log
        game.listeners.append(heard.append)
        game.listening = frozenset({"stat", "draw"})
        seat_policies(game, [policy_named("random")] * 3)
        whole.play(game, "end")
        games.append([e for e in heard if e.kind == "draw" or "changed" in e.data])
    quiet, logged = games
    assert quiet and all(event.text == "" for event in quiet)
    assert all(event.text for event in logged)
    assert [(e.kind, e.data, e.card) for e in quiet] == [(e.kind, e.data, e.card) for e in logged]


_PLAY_BATCH = pool._play_batch
"""The workers' own batch player, which `_play_or_die` stands in for."""

_DIE_AT: list[tuple[Path | None, int]] = []
"""Where a worker kills itself: at the batch holding this game, once (when the file is not
there yet, which it then makes) or, with no file, every time."""


def _play_or_die(sweep: Sweep, indices: range) -> Totals:
    """A worker's batch, unless it is the one to die at (SIGKILL: nothing to clean up)."""
    for marker, index in _DIE_AT:
        if index in indices and (marker is None or not marker.exists()):
            if marker is not None:
                marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return _PLAY_BATCH(sweep, indices)


@pytest.fixture
def dying(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Path | None, int]]]:
    """Workers that kill themselves where the list says (workers are forked: they see it)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("the workers see the list only when forked")
    monkeypatch.setattr(pool, "_play_batch", _play_or_die)
    monkeypatch.setattr(pool, "usable_build", lambda: None)  # forked, not spawned afresh
    _DIE_AT.clear()
    yield _DIE_AT
    _DIE_AT.clear()


def test_a_worker_killed_in_a_sweep_has_its_games_played_again_to_the_same_figures(
    tmp_path: Path, dying: list[tuple[Path | None, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    pack = compiled(ITEMS_ONLY)
    playing = Playing(whole_game_of(pack.rules, pack.whole), pack.rules, pack.cards)
    alone = run_sweep(playing, (ITEMS_ONLY, None), ITEMS_SWEEP, 48, 1)
    dying.append((tmp_path / "died", 30))
    replayed: list[int] = []
    totals = run_sweep(playing, (ITEMS_ONLY, None), ITEMS_SWEEP, 48, 2, None, replayed.append)
    assert (tmp_path / "died").exists() and len(replayed) == 1 and 0 < replayed[0] <= 48
    assert figures(ITEMS_SWEEP, totals) == figures(ITEMS_SWEEP, alone)
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_every_time_ends_the_sweep_with_e0462(
    monkeypatch: pytest.MonkeyPatch,
    dying: list[tuple[Path | None, int]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    dying.append((None, 1))
    request = SimulateRequest(8, 3, players=2, workers=2)
    code, output = _simulate(compiled(ITEMS_ONLY), monkeypatch, request)
    assert code == 1, output
    assert "error[E0462]" in output and f"each of the {pool.RESTARTS + 1} pools" in output
    notes = capsys.readouterr().err
    assert notes.count("note: a worker process died") == pool.RESTARTS, notes
    assert "Traceback" not in output + notes and multiprocessing.active_children() == []
