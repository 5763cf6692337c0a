"""`pillbox tune`: targets read from a sweep's figures, knobs found and edited in place, and a
search that finds the one number that sets a win rate, known from the exact odds.

The coin pack (tests/tune/coin): each turn the seat draws a fate; a Good Omen wins, a Bad Omen
loses, and the Good Omen's `copies K` makes the win rate exactly K / (K + 1)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest

from compiler.bands import Reading, TargetError, parse_target, read
from compiler.kept import keep_in_this_process, keeping
from compiler.simulate.command import SimulateRequest
from compiler.tune.evaluate import Lab, Trial
from compiler.tune.knobs import Edit, Knob, edited, find_designer_knobs, find_knobs
from compiler.tune.search import Budget, _ranked
from compiler.tune.seats import RUNGS, foreseen_games, strongest_in_time
from dsl.spans import Span
from runtime.simulation.intervals import share_interval
from tests.helpers import ROOT_PACKS, run

COIN = Path(__file__).parent / "tune" / "coin"
ASKED = ("--target", "won 85..95%", "--vary", "Good Omen", "--policy", "random")


@pytest.fixture
def coin(tmp_path: Path) -> Path:
    return Path(shutil.copytree(COIN, tmp_path / "coin"))


HIGH_WATER = {"High Water": {"won": {"count": 3}, "lost": {"count": 1}}}


def test_a_target_reads_a_share_a_share_by_value_or_a_figure_by_path() -> None:
    summary = {
        "played": 10,
        "results": {"won": {"count": 4}, "lost": {"count": 6}},
        "labels": {
            "omen": {"results": {"High Water": {"won": {"count": 3}, "lost": {"count": 1}}}}
        },
        "phases": {"game": {"rounds": {"mean": 7.5}}},
    }
    won = read(parse_target("won 30..50%"), summary, None)
    assert won.value == 0.4 and won.low < 0.4 < won.high and not won.met
    scoped = read(parse_target("High Water: won 40..80%"), summary, "omen")
    assert scoped.value == 0.75 and scoped.games == 4
    rounds = read(parse_target("phases.game.rounds.mean 6..8"), summary, None)
    assert rounds.value == 7.5 and rounds.met and rounds.distance == 0
    for bad, says in [
        ("won", "write [VALUE:] FIGURE LOW..HIGH"),
        ("won 60..40%", "down to"),
        ("drew 40..60%", "the games end 'lost', 'won', not 'drew'"),
        ("Low Tide: won 40..60%", "no game had omen 'Low Tide'"),
        ("phases.game.turns.mean 1..2", "no 'phases.game.turns.mean'"),
    ]:
        with pytest.raises(TargetError, match=re.escape(says)):
            read(parse_target(bad), summary, "omen")


def test_a_target_reads_a_seat_s_wins_the_first_seat_s_advantage_and_one_sided_bands() -> None:
    # 100 games ended: seat 1 won 40, seat 2 won 20, seat 3 won 20, no one won 20.
    by_seat = [{"seat": n, "wins": w} for n, w in [(1, 40), (2, 20), (3, 20)]]
    summary = {"seats": {"games": 100, "by seat": by_seat}, "phases": {"g": {"rounds": 9.0}}}
    seat = read(parse_target("seat 2 won 10..30%"), summary, None)
    assert seat.value == 0.2 and seat.met and seat.games == 100
    ahead = read(parse_target("first seat advantage <= 5 points"), summary, None)
    # 0.40 - (0.20 + 0.20) / 2 = 0.20; var = (0.4 + 0.25 * 0.4 - 0.04) / 100: half 0.133
    assert ahead.value == pytest.approx(0.2)
    assert ahead.high - ahead.value == pytest.approx(1.96 * (0.46 / 100) ** 0.5, abs=1e-4)
    assert ahead.left and not ahead.met and ahead.shown().startswith("+20.0 points")
    assert read(parse_target("first seat advantage >= -30 points"), summary, None).met
    assert read(parse_target("phases.g.rounds <= 10"), summary, None).met
    assert not read(parse_target("phases.g.rounds >= 10"), summary, None).met
    for bad, says in [
        ("seat 4 won 1..2%", "seats 1 to 3, not 4"),
        ("Low Tide: seat 1 won 1..2%", "read over every game"),
        ("won <= ", "FIGURE <= HIGH"),
    ]:
        with pytest.raises(TargetError, match=re.escape(says)):
            read(parse_target(bad), summary, "omen")
    lone = {"seats": {"games": 5, "by seat": [{"seat": 1, "wins": 3}]}}
    with pytest.raises(TargetError, match="no one to be ahead of"):
        read(parse_target("first seat advantage <= 5 points"), lone, None)


NERVE = """derived:
  nerve:
    from: time
    table: {0: 1, 1: 13}   # designer values
    designer_values: true
  grit: {from: time, table: {0: 0, 1: 2}}
"""


def test_a_designer_value_of_the_pack_s_ruleset_is_a_knob_and_each_edit_is_the_one_played(
    coin: Path,
) -> None:
    ruleset = coin / "ruleset.yaml"
    ruleset.write_text(ruleset.read_text() + NERVE)
    texts = {"ruleset.yaml": ruleset.read_text()}
    knobs = find_designer_knobs(texts, ["designer values"])
    assert [(k.card, k.value) for k in knobs] == [("nerve at time 0", 1), ("nerve at time 1", 13)]
    assert find_designer_knobs(texts, ["nerve"]) == knobs
    assert find_designer_knobs(texts, ["grit"]) == []  # not marked a designer's to change
    assert (
        "table: {0: 1, 1: 12}   # designer values"
        in edited(texts, [Edit(knobs[1], 12)])["ruleset.yaml"]
    )
    request = SimulateRequest(20, 1, policy="random")
    with Lab(coin, None, [parse_target("won 0..100%")], request) as lab:
        assert "ruleset.yaml" in lab.texts and "pack.yaml" not in lab.texts
        # One digit changed each time: the same size, so only the file's time tells them apart.
        for value in (12, 11, 10):
            compiled = lab.compiled([Edit(knobs[1], value)])
            assert not isinstance(compiled, str)
            (nerve,) = [rule for rule in compiled.rules.derived if rule.name == "nerve"]
            assert nerve.table[1] == value


def test_knobs_are_a_card_s_numbers_but_its_tests_and_an_edit_changes_only_its_characters() -> None:
    texts = {"cards/fates.card": (COIN / "cards" / "fates.card").read_text()}
    knobs = find_knobs(texts, ["Good Omen"])
    assert [(k.span.line, k.value) for k in knobs] == [(2, 3)]  # not `fortune == 1` of its test
    assert find_knobs(texts, ["fate"]) == knobs  # a kind names all its cards
    changed = edited(texts, [Edit(knobs[0], 12)])["cards/fates.card"]
    assert changed == texts["cards/fates.card"].replace("copies 3", "copies 12", 1)


def test_tune_finds_the_copies_that_meet_the_band_and_applies_it(coin: Path) -> None:
    code, output = run("tune", str(coin), *ASKED, "--json")
    answer = json.loads(output[output.index("{") :])
    assert code == 0 and answer["met"], output
    ((edit),) = answer["edits"]
    copies = edit["to"]
    assert edit["from"] == 3 and 0.85 <= copies / (copies + 1) <= 0.95  # the exact win rate
    assert "-    copies 3\n+    copies " in answer["diff"]
    assert answer["search"]["dropped early"] > 0 and not answer["tests failing with the edit"]

    code, output = run("tune", str(coin), *ASKED, "--apply")
    assert code == 0 and "applied" in output, output
    assert f"copies {copies}\n" in (coin / "cards" / "fates.card").read_text()
    assert run("test", str(coin))[0] == 0


def test_a_test_that_pins_the_number_keeps_the_edit_from_being_applied(coin: Path) -> None:
    # A Bad Omen brings ruin 2, and ruin 2 loses: its test pins the 2. The edit that meets the
    # band (ruin 1: one Bad Omen no longer loses) breaks that test, so it is shown, not applied.
    rules = coin / "ruleset.yaml"
    rules.write_text(rules.read_text().replace('lost: "ruin >= 1"', 'lost: "ruin >= 2"'))
    card = coin / "cards" / "fates.card"
    pinned = (
        card.read_text()
        .replace("        advance ruin\n", "        advance ruin 2\n")
        .replace("expect ruin == 1", "expect ruin == 2")
    )
    card.write_text(pinned)
    assert run("test", str(coin))[0] == 0
    code, output = run(
        "tune",
        str(coin),
        "--target",
        "won 90..100%",
        "--vary",
        "Bad Omen",
        "--apply",
        "--policy",
        "random",
    )
    assert code == 0 and "+        advance ruin 1" in output, output
    assert "pin the old numbers" in output and '"luck breaks"' in output
    assert "applied:" not in output and card.read_text() == pinned


def test_a_target_no_edit_reaches_is_said_and_exits_1(coin: Path) -> None:
    code, output = run(
        "tune",
        str(coin),
        "--target",
        "won 0..5%",
        "--vary",
        "fate",
        "--games",
        "40",
        "--first-games",
        "20",
    )
    # With no --policy, the strongest rung that fits the time: a game of coins is quick.
    assert code == 1 and "not met" in output
    assert output.startswith("seats mcts:16: ") and "(over" not in output


def test_the_default_seats_are_the_strongest_rung_whose_search_fits_the_minutes() -> None:
    seconds = {"mcts:16": 0.5, "greedy": 0.05, "random": 0.001}
    told: list[str] = []

    class Timed:
        def seconds_a_game(self, policy: str, games: int) -> float:
            return seconds[policy]

    budget = Budget(50, 400, 2)
    games = foreseen_games(3, budget)  # 3 knobs, 4 moves each, 4 halving stages, 2 edits
    assert games == 3 * 4 * 50 * 4 * 2 + 400 * 13
    lab = cast(Lab, Timed())
    assert strongest_in_time(lab, [], budget, 15, 2, told.append) in RUNGS
    assert strongest_in_time(lab, [cast(Knob, None)] * 3, budget, 15, 2, told.append) == "greedy"
    assert any("seats mcts:16: 0.500 s a game" in line and "(over 15)" in line for line in told)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--vary", "Good Omen"], "name at least one --target"),
        (["--target", "won 1..2"], "--vary"),
        (["--target", "won", "--vary", "Good Omen"], "write [VALUE:] FIGURE LOW..HIGH"),
        (["--target", "won 1..2%", "--vary", "Nobody"], "no card of that title or kind"),
        (["--target", "won 1..2%", "--vary", "Good Omen", "--policy", "psychic"], "psychic"),
    ],
)
def test_a_bad_command_line_is_a_usage_error(coin: Path, arguments: list[str], says: str) -> None:
    code, output = run("tune", str(coin), *arguments)
    assert code == 2 and says in output, output


def _share(target: str, won: int, games: int) -> Reading:
    """A win rate of `won` in `games` read against the target, with its 95 % interval."""
    low, high = share_interval(won, games, 1.96)
    return Reading(parse_target(target), won / games, low, high, games)


def test_a_short_sweep_is_judged_by_where_a_full_one_would_meet_the_band() -> None:
    # On 50 games a share mid-band has a wider interval than one near the band's edge, so
    # "how far the interval reaches out" ranked 74 % above 70 % for a band of 60..75 %.
    near_edge, inside = _share("won 60..75%", 37, 50), _share("won 60..75%", 35, 50)
    assert near_edge.distance < inside.distance
    assert inside.aim(400) == 0 < near_edge.aim(400)


class _ShortLuck(Lab):
    """A lab whose first 50 games run ten points luckier than its full sweep of 400."""

    def __init__(self, figures: dict[tuple[tuple[int, ...], int], int]) -> None:
        self.figures = figures

    def trial(self, edits: Sequence[Edit], games: int, fresh: bool = False) -> Trial:
        won = self.figures[(tuple(edit.value for edit in edits), games)]
        return Trial(tuple(edits), games, (_share("won 60..75%", won, games),))


def test_short_trials_are_moved_by_how_far_their_parent_s_short_games_ran_from_its_full_ones() -> (
    None
):
    toughness = Knob("Hound", "foes.card", Span("foes.card", 3, 15, 3, 16), 4, False, "toughness 4")
    body = Knob("Hound", "foes.card", Span("foes.card", 2, 10, 2, 11), 5, False, "body 5")
    parent = [Edit(toughness, 6)]
    harder, softer = [*parent, Edit(body, 7)], [*parent, Edit(body, 4)]
    lab = _ShortLuck({})
    lab.figures[((6,), 400)] = 296  # the parent: 74 % on the full sweep,
    lab.figures[((6,), 50)] = 32  # and 64 % on its first 50 games
    lab.figures[((6, 7), 50)] = 30  # 60 % short: foretells 70 %, inside where 400 games fit
    lab.figures[((6, 4), 50)] = 32  # 64 % short: foretells 74 %, too near the band's edge
    ranked = _ranked(lab, [lab.trial(softer, 50), lab.trial(harder, 50)], parent, 50, 400)
    assert [trial.edits for trial in ranked] == [tuple(harder), tuple(softer)]


BUNDLED_KNOBS = {
    "coma-ward": "Wool Cardigan",
    "lobotomy": "Slumped Orderly",
    "comanauts": "Static Wraith",
    "cool-name": "Barrow Hound",
}
"""A card of each bundled game whose numbers a tune may turn: few, so the test stays short."""


@pytest.mark.parametrize("game", sorted(BUNDLED_KNOBS))
def test_tune_searches_every_bundled_game_that_plays_whole(game: str) -> None:
    asked = ("--target", "won 99..100%", "--vary", BUNDLED_KNOBS[game], "--policy", "random")
    small = ("--games", "10", "--first-games", "5", "--max-edits", "1", "--json")
    code, output = run("tune", str(ROOT_PACKS / game), *asked, *small)
    assert code == 1, output  # no number of one card wins every game: said, with the nearest
    answer = json.loads(output[output.index("{") :])
    assert answer["search"]["rounds"] >= 1 and answer["search"]["candidates"] >= 2
    assert answer["knobs"] >= 1 and len(answer["edits"]) <= 1
    assert answer["targets"][0]["met"] is False


@pytest.mark.parametrize("was", [False, True])
def test_a_lab_keeps_checks_while_it_runs_and_leaves_keeping_as_it_found_it(was: bool) -> None:
    keep_in_this_process(False)
    keep_in_this_process(was)
    try:
        request = SimulateRequest(20, 1, policy="random")
        with Lab(COIN, None, [parse_target("won 0..100%")], request):
            assert keeping()  # a candidate compiles only the file it changed
        assert keeping() is was
    finally:
        keep_in_this_process()  # as the suite runs (tests/conftest.py)
