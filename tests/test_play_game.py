"""Whole games at the command line: decisions asked of the seat that answers them, `play
--game`, records and `replay`, the many-game test and hot-seat play."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.decisions import Decision
from runtime.game import Game
from runtime.games.coma_ward_combat import attack
from runtime.games.coma_ward_game import trade
from runtime.policies import Seat, seat_policies
from tests.helpers import make_pack
from tests.test_items import ITEMS
from tests.test_worked_examples import _compile, give, new_game


@pytest.fixture
def items(tmp_path: Path) -> CompiledPack:
    return _compile(make_pack(tmp_path / "items", cards=ITEMS))


class Scripted:
    """A seat's answers in order, by title; every question asked is written down with the
    seat that was asked it."""

    def __init__(self, asked: list[tuple[int, str]], *answers: str) -> None:
        self.asked = asked
        self.answers = list(answers)

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The next answer of this seat."""
        self.asked.append((seat.index, decision.kind))
        return decision.choices.index(self.answers.pop(0))


def test_a_defender_answers_its_own_questions_on_the_attackers_turn(
    items: CompiledPack,
) -> None:
    """The dodge or counter-attack, the defender's weapons and the clothing of whoever is hurt
    are each answered by that character's seat, not by the seat whose turn it is."""
    winning, losing = [5, 6, 5, 1, 2, 3, 3], [1, 2, 3, 5, 2]  # 3 successes of 7; 1 of 5
    game, _, _ = new_game(items, [*winning, *losing, 1, 2, 3, *winning])
    bruce, jane = game.state.players
    give(game, bruce, "Broom", "Scarf")
    give(game, jane, "Broom", "Padded Coat")
    asked: list[tuple[int, str]] = []
    seat_policies(
        game,
        [
            Scripted(asked, "Broom", "unarmed", "yes"),
            Scripted(asked, "dodge", "yes", "counter-attack", "Broom"),
        ],
    )
    first = attack(game, bruce, jane)  # Bruce's broom beats Jane's dodge; her coat saves 2
    second = attack(game, bruce, jane)  # unarmed, Bruce loses to her broom; his scarf saves 1
    assert (first.winner, first.damaged, first.damage) == ("attacker", "Jane", 1)
    assert (second.winner, second.damaged, second.damage) == ("defender", "Bruce", 2)
    assert asked == [
        (0, "weapons"),
        (1, "defence"),
        (1, "yes-no"),
        (0, "weapons"),
        (1, "defence"),
        (1, "weapons"),
        (0, "yes-no"),
    ]


def test_the_partner_of_a_trade_says_whether_they_will(items: CompiledPack) -> None:
    game, _, _ = new_game(items, [])
    bruce, jane = game.state.players
    give(game, bruce, "Scarf")
    asked: list[tuple[int, str]] = []
    seat_policies(game, [Scripted(asked, "Jane", "Scarf", "done"), Scripted(asked, "no")])
    assert trade(game, bruce) == set()
    assert [item.title for item in bruce.items] == ["Scarf"] and not jane.items
    assert asked == [(0, "trade"), (0, "item"), (0, "item"), (1, "yes-no")]
