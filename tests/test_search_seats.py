"""Seats that search (`greedy`, `mcts:N`): they play every game that plays whole, a playout
budget gives the same game from the same seed (on one worker or two), a time budget is taken,
and a bad budget is a usage error."""

from __future__ import annotations

import pytest

from runtime.datagame import whole_game_of
from runtime.policies import MctsPolicy, PolicyError, policy_named, seat_policies
from tests.helpers import ROOT_PACKS, compiled, run, sweep_figures

SEATS = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 2}

GAMES = {"coma-ward": 2, "lobotomy": 2, "comanauts": 3, "cool-name": 4}
"""Games a sweep plays in the tests, sized to a few seconds each (`make bench` plays more): two
at least, so that on two workers each plays a game of its own."""

SEEDS = {"lobotomy": 1}
"""A sweep's seed where the default (5) deals long games: Lobotomy's seed 5 takes several times
as long as seed 1 on the pure runtime, and the test plays it twice."""

BUDGET = "mcts:2"
"""Playouts enough that every searched question is searched (each answer played out once) and
a seat's stream is drawn from in the tree; more only multiplies the time (mcts:4 was 14 s for
one game of Lobotomy, twice)."""


@pytest.mark.parametrize("name", sorted(SEATS))
def test_mcts_gives_the_same_figures_on_one_and_two_workers(name: str) -> None:
    options = [
        "--games",
        str(GAMES[name]),
        "--players",
        str(SEATS[name]),
        "--seed",
        str(SEEDS.get(name, 5)),
    ]
    options += ["--policy", BUDGET]
    one, two = (sweep_figures(ROOT_PACKS / name, *options, "--workers", w) for w in "12")
    assert one == two
    assert one["played"] == GAMES[name] and one["policies"] == [BUDGET] * SEATS[name]


def test_the_same_seed_and_budget_play_the_same_game_move_for_move() -> None:
    pack = compiled(ROOT_PACKS / "comanauts")
    whole = whole_game_of(pack.rules, pack.whole)
    logs = []
    for _ in range(2):
        game = whole.new_game(pack.rules, pack.cards, 3, 11)
        maker = seat_policies(game, policy_named("mcts:4"))
        whole.play(game, whole.phases[-1])
        assert maker.lookahead is not None and maker.lookahead.playouts > 0
        assert maker.lookahead.diverged == 0  # every playout replayed its turn as it was
        logs.append(game.log.lines())
    assert logs[0] == logs[1]


def test_a_greedy_seat_plays_a_whole_game_and_replays_every_turn_exactly() -> None:
    pack = compiled(ROOT_PACKS / "cool-name")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 2, 3)
    maker = seat_policies(game, policy_named("greedy"))
    whole.play(game, whole.phases[-1])
    assert game.state.over is not None or game.state.stopped is not None
    assert maker.lookahead is not None
    assert maker.lookahead.playouts > 0 and maker.lookahead.diverged == 0


@pytest.mark.parametrize(
    ("name", "playouts", "seconds"),
    [("mcts", 16, None), ("mcts:200", 200, None), ("mcts:50ms", 16, 0.05)],
)
def test_an_mcts_budget_is_playouts_or_milliseconds(
    name: str, playouts: int, seconds: float | None
) -> None:
    policy = policy_named(name)
    assert isinstance(policy, MctsPolicy)
    assert (policy.playouts, policy.seconds) == (playouts, seconds)


@pytest.mark.parametrize("name", ["mcts:0", "mcts:fast", "mcts:-3", "mcts:5s"])
def test_a_bad_mcts_budget_is_refused_with_what_fits(name: str) -> None:
    with pytest.raises(PolicyError, match="playouts"):
        policy_named(name)
    code, output = run("simulate", str(ROOT_PACKS / "cool-name"), "--policy", name)
    assert code == 2 and "mcts:200" in output and "Traceback" not in output


def test_play_seats_a_searching_policy_with_its_budget() -> None:
    pack = str(ROOT_PACKS / "cool-name")
    code, output = run(
        "play", pack, "--game", "--players", "2", "--policy", "mcts:4", "--seed", "3"
    )
    assert code == 0, output
    assert "--policy mcts:4" in output  # the line that plays it again names the budget
    code, output = run("play", pack, "--game", "--players", "2", "--seats", "greedy,mcts:x")
    assert code == 2 and "mcts:200" in output and "Traceback" not in output
