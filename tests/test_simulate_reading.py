"""A sweep's record is counted from the steps the engine tells its reader of, with no event made:
its figures are those the whole log of the same game shows, read as a log was read before."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from compiler.build import CompiledPack
from runtime.datagame import whole_game_of
from runtime.events import PHASE_OVER, Event, FigureListener
from runtime.policies import policy_named, seat_policies
from runtime.simulation.reading import OUTSIDE_CARDS, CardTally
from runtime.simulation.record import GameRecord, Sweep, play_game
from runtime.simulation.totals import total
from runtime.whole import WholeGame, game_seed
from tests.conftest import ROOT
from tests.helpers import compiled

GAMES = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 4}
"""Each bundled game, at a count of seats it is played by."""


def _from_log(events: Sequence[Event], phases: Sequence[str], starts: dict[str, Any]) -> dict:
    """A game's figures read from its whole log: the stat changes' `changed`, the rounds, the
    draws' titles, the seats' deaths, the phases' ends (the reading a sweep made before its
    reader was told of the steps themselves)."""
    values = {name: dict(stats) for name, stats in starts.items()}
    shown = sorted({stat for stats in values.values() for stat in stats})
    living = list(values)  # in seat order
    rounds: dict[str, int] = {}
    stat_rounds: dict[str, list[list[int]]] = {stat: [] for stat in shown}
    death_rounds: list[int] = []
    seated: list[int] = []
    cards: dict[str, list[Any]] = {}  # title -> [drawn, changes, deaths]
    part = this_round = 0

    def tally(card: str | None) -> list[Any]:
        return cards.setdefault(card or OUTSIDE_CARDS, [0, {}, 0])

    def round_over() -> None:
        seated.append(len(living))
        for stat in shown:
            stat_rounds[stat].append([values[name][stat] for name in living])

    for event in events:
        data = event.data
        if event.kind == "stat" and "changed" in data:
            changes = tally(event.card)[1]
            for stat, delta in data["changed"].items():
                if data["actor"] in values and stat in values[data["actor"]]:
                    values[data["actor"]][stat] += delta
                changes[stat] = changes.get(stat, 0) + delta
        elif event.kind == "round":
            if this_round:
                round_over()
            this_round = data["round"]
            phase = phases[min(part, len(phases) - 1)]
            rounds[phase] = rounds.get(phase, 0) + 1
        elif event.kind == "draw" and "title" in data:
            tally(data["title"])[0] += 1
        elif event.kind == "death" and data.get("player") in values:
            death_rounds.append(this_round)
            tally(event.card)[2] += 1
            living = [name for name in living if name != data["player"]]
        elif event.kind == PHASE_OVER:
            part += 1
    if this_round:
        round_over()
    else:
        stat_rounds = {}
    return {
        "rounds": rounds,
        "stat_sums": {stat: [sum(v) for v in ends] for stat, ends in stat_rounds.items()},
        "seated": seated,
        "stat_ends": {stat: ends[-1] for stat, ends in stat_rounds.items() if ends},
        "death_rounds": death_rounds,
        "cards": list(cards.items()),
    }


def _from_record(record: GameRecord) -> dict:
    return {
        "rounds": record.rounds,
        "stat_sums": record.stat_sums,
        "seated": record.seated,
        "stat_ends": record.stat_ends,
        "death_rounds": record.death_rounds,
        "cards": [(t, [c.drawn, c.changes, c.deaths]) for t, c in record.cards.items()],
    }


@pytest.fixture(scope="module", params=sorted(GAMES))
def played(request: pytest.FixtureRequest) -> tuple[CompiledPack, WholeGame, int]:
    pack = compiled(ROOT / "content" / request.param)
    return pack, whole_game_of(pack.rules, pack.whole), GAMES[request.param]


def test_a_records_figures_are_those_its_whole_log_shows(
    played: tuple[CompiledPack, WholeGame, int],
) -> None:
    """Key for key and in order (a card's first doing places it in the figures)."""
    pack, whole, seats = played
    sweep = Sweep(7, seats, ("random",) * seats, whole.phases[-1], whole.phases)
    for index in range(3):
        record = play_game(whole, pack.rules, pack.cards, sweep, index)
        assert record.error is None, record.error
        game = whole.new_game(pack.rules, pack.cards, seats, game_seed(7, index))
        seat_policies(game, [policy_named("random")] * seats)
        starts = {p.name: dict(p.stats.values) for p in game.state.players}
        whole.play(game, sweep.until)
        assert _from_record(record) == _from_log(game.log.events, whole.phases, starts)
        assert sum(record.rounds.values()) == game.state.round > 0


def test_a_figure_listener_is_told_the_steps_the_log_shows_whether_logged_or_not(
    played: tuple[CompiledPack, WholeGame, int],
) -> None:
    """The same steps, in the same order, in a game that keeps its log and in one that makes
    no event at all."""
    pack, whole, seats = played
    told = []
    for logging in (True, False):
        game = whole.new_game(pack.rules, pack.cards, seats, game_seed(3, 1))
        game.logging = logging
        seat_policies(game, [policy_named("random")] * seats)
        game.figures = steps = _Steps()
        whole.play(game, whole.phases[-1])
        assert (game.log.events != []) == logging
        told.append(steps.steps)
    assert told[0] == told[1] and told[0]


class _Steps(FigureListener):
    """Every step told, in order."""

    def __init__(self) -> None:
        self.steps: list[tuple[Any, ...]] = []

    def stat_changed(self, actor: str, card: str | None, changed: dict[str, int]) -> None:
        self.steps.append(("stat", actor, card, dict(changed)))

    def round_begun(self, number: int | None) -> None:
        self.steps.append(("round", number))

    def drawn(self, title: str) -> None:
        self.steps.append(("draw", title))

    def died(self, actor: str, card: str | None) -> None:
        self.steps.append(("death", actor, card))

    def phase_over(self) -> None:
        self.steps.append(("phase over",))


def test_totals_add_up_each_rounds_sums_and_each_cards_doings() -> None:
    """A record's stats come as a sum a round with the seats living then, and its last round's
    values; a card drawn in no game is in none, however much it did."""
    first = GameRecord(0, 0, stat_sums={"nerve": [9, 4]}, seated=[3, 2])
    first.stat_ends = {"nerve": [1, 3]}
    first.cards = {"Mug": CardTally(2, {"nerve": -1}, 1), OUTSIDE_CARDS: CardTally(0, {"x": 2})}
    second = GameRecord(1, 1, stat_sums={"nerve": [6]}, seated=[2], stat_ends={"nerve": [3, 3]})
    second.cards = {"Mug": CardTally(1, {"nerve": -2, "x": 1}, 0)}
    totals = total([first, second])
    assert totals.stat_rounds == {"nerve": {1: [15, 5], 2: [4, 2]}}
    assert totals.stat_ends == {"nerve": Counter({3: 3, 1: 1})}
    mug, outside = totals.cards["Mug"], totals.cards[OUTSIDE_CARDS]
    assert (mug.drawn, mug.games, dict(mug.changes), mug.deaths) == (3, 2, {"nerve": -3, "x": 1}, 1)
    assert (outside.drawn, outside.games, dict(outside.changes)) == (0, 0, {"x": 2})
    assert totals.deaths == Counter({0: 2}) and totals.played == 2


def test_a_change_that_spills_over_tells_both_stats_it_changed() -> None:
    """Terror past its maximum is lost as health: the change is told as both, as its event
    says; a change within the bounds as its own stat alone, and one at a bound as nothing."""
    pack = compiled(ROOT / "content" / "coma-ward")
    whole = whole_game_of(pack.rules, pack.whole)
    told = []
    for logging in (True, False):
        game = whole.new_game(pack.rules, pack.cards, 2, 1)
        game.logging = logging
        game.figures = steps = _Steps()
        player = game.state.players[0]
        player.stats.values.update(terror=4, health=5)
        for stat, delta in (("terror", 3), ("health", 2), ("health", 1)):
            game.change(stat, delta, player)
        told.append(steps.steps)
        logged = [e.data["changed"] for e in game.log.events if "changed" in e.data]
        assert logged == ([{"terror": 1, "health": -2}, {"health": 2}, {}] if logging else [])
    assert told[0] == told[1]
    assert told[0] == [
        ("stat", "player 1", None, {"terror": 1, "health": -2}),
        ("stat", "player 1", None, {"health": 2}),
        ("stat", "player 1", None, {}),
    ]
