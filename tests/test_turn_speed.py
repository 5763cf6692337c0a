"""Coma Ward's turn loop made cheaper, playing the same: steps made once a board, where to head
worked out only for a move, and no look at every card for tokens no track counts on."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.decisions import Defaults, PresetThenAsk
from runtime.game import Game
from runtime.games.coma_ward_game import new_game, setup
from runtime.games.coma_ward_map import steps_from
from tests.conftest import ROOT
from tests.helpers import compiled

PACK = ROOT / "content" / "coma-ward"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _game(pack: CompiledPack, seed: int = 0) -> Game:
    game = new_game(pack.rules, pack.cards, 2, seed)
    game.decisions = PresetThenAsk([], Defaults())
    setup(game)
    return game


def test_the_steps_from_a_place_are_made_once_for_every_game_on_the_board(
    pack: CompiledPack,
) -> None:
    first, second = _game(pack), _game(pack, 1)
    steps = steps_from(first, "f2-east")
    assert [step.label for step in steps] == [
        "walk to f2-elevator",
        "walk to f2-room-3",
        "walk to f2-room-4",
        "walk to nurses-station",
    ]
    again = steps_from(second, "f2-east")
    assert all(mine is theirs for mine, theirs in zip(steps, again, strict=True))
    rides = steps_from(first, "f2-elevator")
    assert [step.label for step in rides] == [
        "walk to f2-east",
        "elevator to f1-elevator",
        "elevator to f3-elevator",
    ]


def test_the_steps_made_once_still_follow_the_state_of_the_room_deck(pack: CompiledPack) -> None:
    game = _game(pack)
    game.state.decks["room"] = []  # no tile left: an empty slot cannot be entered
    game.state.in_play["f2-room-4"] = game.new_instance(
        next(c for c in pack.cards if c.kind == "room")
    )
    labels = [step.label for step in steps_from(game, "f2-east")]
    assert labels == ["walk to f2-elevator", "walk to f2-room-4", "walk to nurses-station"]
