"""The card verbs, pools and dice made faster still play the same: the same numbers drawn, the
same log line written when it is read, and no time spent on what is never read."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from compiler.build import CompiledPack
from runtime.dice import SeededDice, draws_below, shuffle
from runtime.events import Event
from runtime.game import Game
from runtime.games import coma_ward_pool
from runtime.games.coma_ward_dice import PoolFaces, PoolResult
from runtime.games.coma_ward_game import setup
from runtime.games.coma_ward_phenomena import act_goals
from runtime.games.coma_ward_pool import faces_of, pool_rule, stat_check
from runtime.world import Board
from tests.conftest import ROOT
from tests.helpers import compiled, whole_game

PACK = ROOT / "content" / "coma-ward"


@pytest.mark.parametrize("seed", [0, 1, 12345, "decisions:7"])
def test_draws_below_gives_what_randrange_gives(seed: int | str) -> None:
    widths = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 20, 31, 32, 33, 100, 1000, 2**40 + 3]
    fast, slow = draws_below(random.Random(seed)), random.Random(seed)
    for width in widths * 50:
        assert fast(width) == slow.randrange(width)


@pytest.mark.parametrize("seed", [0, 3, "shuffle:11"])
def test_shuffle_gives_the_order_random_shuffle_gives(seed: int | str) -> None:
    fast, slow = random.Random(seed), random.Random(seed)
    for length in [0, 1, 2, 3, 7, 40, 41, 200]:
        mine, theirs = list(range(length)), list(range(length))
        shuffle(mine, fast)
        slow.shuffle(theirs)
        assert mine == theirs
    assert fast.random() == slow.random()  # and the generators are left in step


def test_draws_below_refuses_an_empty_range() -> None:
    below = draws_below(random.Random(1))
    for width in (0, -3):
        with pytest.raises(ValueError):
            below(width)


def test_seeded_dice_give_randints_faces() -> None:
    dice, slow = SeededDice(99), random.Random(99)
    for sides in [6, 6, 4, 8, 10, 12, 20, 100, 1, 3] * 100:
        assert dice.roll(sides) == slow.randint(1, sides)


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _game(pack: CompiledPack, log: bool) -> Game:
    game = whole_game(pack, 2, 5)
    game.logging = log
    setup(game)
    return game


def _checks(game: Game) -> list[str]:
    return [e.text for e in game.log.events if e.kind == "check"]


def test_a_pool_is_explained_only_for_a_log_that_is_read(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unread(result: PoolResult) -> str:
        raise AssertionError("explained for nobody")

    game = _game(pack, log=False)
    card = game.player.owned[0]
    with monkeypatch.context() as patched:
        patched.setattr(PoolResult, "explain", unread)
        stat_check(game, card, "focus")
    heard: list[Event] = []
    game.listeners.append(heard.append)
    stat_check(game, card, "focus")
    texts = [e.text for e in heard if e.kind == "check"]
    assert len(texts) == 1 and texts[0].startswith("check focus (")


def test_a_pool_logged_reads_as_it_always_has(pack: CompiledPack) -> None:
    game = _game(pack, log=True)
    stat_check(game, game.player.owned[0], "focus")
    (text,) = _checks(game)
    faces = next(e.data["rounds"] for e in game.log.events if e.kind == "check")
    assert text.startswith(f"check focus ({len(faces[0])} dice): {' '.join(map(str, faces[0]))}")


def test_faces_are_read_once_per_ruleset_entry(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Any] = []
    read = coma_ward_pool._faces

    def counting(faces: tuple[tuple[str, tuple[int, ...]], ...]) -> PoolFaces:
        made.append(faces)
        return read(faces)

    monkeypatch.setattr(coma_ward_pool, "_faces", counting)
    params: Mapping[str, Any] = pool_rule(_game(pack, log=False)).params
    coma_ward_pool._faces_of_params.clear()
    first = faces_of(params)
    assert faces_of(params) is first and faces_of(dict(params)) == first
    assert len(made) == 2  # the ruleset's entry once, and the copy of it once


def test_the_acts_aims_read_the_board_once(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _game(pack, log=False)
    card = game.find("Discharge Papers")
    assert card is not None and card.properties.get("heads_for") == "nurses-station"
    game.play(card)
    board = game.rules.world.board
    expected = {s for s in board.places if board.is_in(s, "nurses-station")}
    assert act_goals(game) == expected
    asked: list[str] = []
    is_in = Board.is_in

    def counting(self: Board, place: str, area: str) -> bool:
        asked.append(place)
        return is_in(self, place, area)

    monkeypatch.setattr(Board, "is_in", counting)
    assert act_goals(game) == expected and act_goals(game) is not act_goals(game)
    assert asked == []


def test_the_deck_lists_are_read_once_for_the_same_cards(pack: CompiledPack) -> None:
    from runtime.game import _deck_lists

    cards = tuple(pack.cards)
    first = _deck_lists(pack.rules, cards)
    assert _deck_lists(pack.rules, tuple(pack.cards)) is first  # a new tuple of the same cards
    fewer = _deck_lists(pack.rules, cards[1:])
    assert fewer is not first and sum(map(len, fewer.values())) < sum(map(len, first.values()))
    dealt = whole_game(pack, 2, 5).state.decks
    assert {deck: len(copies) for deck, copies in dealt.items()} == {
        deck: len(listed) for deck, listed in first.items()
    }
