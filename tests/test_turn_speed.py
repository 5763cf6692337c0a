"""Coma Ward's turn loop made cheaper, playing the same: steps made once a board, where to head
worked out only for a move, and no look at every card for tokens no track counts on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TypeVar

import pytest

from compiler.build import CompiledPack
from runtime.datagame import table_module
from runtime.decisions import Decision, Defaults, PresetThenAsk, RandomDecisions
from runtime.events import Event
from runtime.game import Game
from runtime.games import coma_ward_game
from runtime.games.coma_ward_game import (
    _goals,
    _prologue_over,
    anywhere_to_go,
    play_prologue,
    setup,
)
from runtime.games.coma_ward_map import _board_moves, nearest_goal, steps_from
from tests.conftest import ROOT
from tests.helpers import card, compiled, seat_turn, whole_game

PACK = ROOT / "content" / "coma-ward"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _game(pack: CompiledPack, seed: int = 0) -> Game:
    game = whole_game(pack, 2, seed)
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
    assert again is steps  # every step open: the board's own, whose choices are made once too
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


def test_whether_there_is_anywhere_to_go_is_whether_there_are_goals(pack: CompiledPack) -> None:
    game = _game(pack)
    player = game.state.players[0]
    room = next(c for c in pack.cards if c.kind == "room")
    item = next(c for c in pack.cards if c.kind == "item")
    assert anywhere_to_go(game, player) and _goals(game, player)  # slots to reveal
    game.state.decks["room"] = []
    assert not anywhere_to_go(game, player) and not _goals(game, player)
    game.state.floor["f1-west"] = [game.new_instance(item)]
    assert anywhere_to_go(game, player) and _goals(game, player) == {"f1-west"}
    game.state.floor.clear()
    game.state.in_play["f1-room-1"] = game.new_instance(room)
    game.state.flags.add("searched:f1-room-1")
    assert anywhere_to_go(game, player) and _goals(game, player) == {"f1-room-1"}  # again


def test_where_to_head_is_worked_out_only_for_a_move(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    worked_out: list[str] = []
    walks: list[int] = []
    goals, walk = coma_ward_game._goals, coma_ward_game.walk

    def counted_goals(game: Game, player: coma_ward_game.Player) -> set[str]:
        worked_out.append(player.name)
        return goals(game, player)

    def counted_walk(
        game: Game, player: coma_ward_game.Player, moves: int, aims: set[str]
    ) -> str | None:
        walks.append(moves)
        return walk(game, player, moves, aims)

    monkeypatch.setattr(coma_ward_game, "_goals", counted_goals)
    monkeypatch.setattr(coma_ward_game, "walk", counted_walk)
    game = whole_game(pack, 4, 3)
    game.logging = False
    game.decisions = Defaults()  # reads the rules' answers: where a move heads
    play_prologue(game)
    assert walks and len(worked_out) == len(walks)
    # The game's own random decisions never read a default: nowhere is worked out at all.
    worked_out.clear()
    walks.clear()
    game = whole_game(pack, 4, 3)
    game.logging = False
    play_prologue(game)
    assert walks and not worked_out


def test_only_a_maker_that_reads_defaults_is_told_where_to_head(pack: CompiledPack) -> None:
    from runtime.decisions import RandomDecisions, reads_defaults
    from runtime.policies import policy_named, seat_policies

    assert not reads_defaults(RandomDecisions(1)) and reads_defaults(Defaults())
    game = whole_game(pack, 2, 3)
    assert not reads_defaults(seat_policies(game, policy_named("random")))
    assert reads_defaults(seat_policies(game, [policy_named("random"), policy_named("bold")]))


def _free_offered(game: Game, *taking: str) -> list[tuple[str, ...]]:
    """The free actions the first seat is offered at each question of a turn in which it
    takes these (done at once with any item), then goes on to the main action."""
    asked: list[Decision] = []
    answers = PresetThenAsk([*taking, "main action"], Defaults())

    class Seen:
        def decide(self, decision: Decision) -> int:
            asked.append(decision)
            return 0 if decision.kind == "item" else answers.decide(decision)

    game.decisions = Seen()
    game.logging = False
    player = game.state.players[0]
    player.turn_over = False
    seat_turn(game, player)
    return [d.choices[1:] for d in asked if d.kind == "free"]


def test_the_free_actions_open_are_those_not_taken_the_player_can_take(pack: CompiledPack) -> None:
    game = _game(pack)
    player, other = game.state.players
    game.state.decks["room"] = []  # nowhere to reveal: a move goes nowhere
    assert _free_offered(game) == [("move", "trade")]  # both at the start
    other.location = "roof"
    player.items.append(game.new_instance(card(pack, "Lead Apron")))  # nothing to use
    assert _free_offered(game) == [("move", "drop")]
    player.items.append(game.new_instance(card(pack, "First Aid Tin")))
    assert _free_offered(game) == [("move", "use items", "drop")]
    other.location = player.location
    other.stats.dead = True  # the dead do not trade
    # Each taken once: the next question offers what is left, and none is asked with none.
    assert _free_offered(game, "move", "stop", "drop", "use items") == [
        ("move", "use items", "drop"),
        ("use items", "drop"),
        ("use items",),
    ]


def test_the_prologue_is_over_at_the_phenomenon_or_when_everyone_is_dead(
    pack: CompiledPack,
) -> None:
    game = _game(pack)
    first, second = game.state.players
    assert not _prologue_over(game)
    second.stats.dead = True
    assert not _prologue_over(game)
    first.stats.dead = True
    assert _prologue_over(game)
    first.stats.dead = second.stats.dead = False
    game.state.flags.add("phenomenon_revealed")
    assert _prologue_over(game)


def test_the_step_nearest_a_set_of_goals_is_remembered_and_is_the_nearest(
    pack: CompiledPack,
) -> None:
    game = _game(pack)
    board = pack.rules.world.board
    moves = _board_moves(board, "f2-east")
    goals = frozenset({"f2-room-1", "roof"})
    nearest = moves.nearest(board, board.mask(goals))
    assert nearest == nearest_goal(game, steps_from(game, "f2-east"), goals) == 3  # the station
    assert moves.towards[board.mask(goals)] == nearest
    assert moves.nearest(board, board.mask({"nowhere"})) is None


Value = TypeVar("Value")


class _Counted(Mapping[str, Value]):
    """A module's table that counts how often each name is looked up in it."""

    def __init__(self, table: Mapping[str, Value]) -> None:
        self.table = dict(table)
        self.asked: Counter[str] = Counter()

    def __getitem__(self, name: str) -> Value:
        self.asked[name] += 1
        return self.table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)


def test_a_turn_finds_the_checks_and_procedures_its_actions_name_once_a_module(
    pack: CompiledPack,
) -> None:
    # Looked up by name at every offer, they were a tenth of a compiled prologue's cost.
    module = table_module(pack.rules, pack.whole)
    can, procedures, targets = (
        _Counted(module.can),
        _Counted(module.procedures),
        _Counted(module.targets),
    )
    counted = replace(module, can=can, procedures=procedures, targets=targets)
    for seed in range(3):
        game = Game(pack.rules, pack.cards, counted, seed=seed, players=4)
        game.decisions = RandomDecisions(seed)
        game.logging = False
        play_prologue(game, round_limit=8)
        assert game.state.turns >= 20
    for table in (can, procedures, targets):
        assert table.asked and max(table.asked.values()) == 1, table.asked


def test_an_event_is_made_without_its_named_tuples_own_new(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A named tuple's __new__ is Python code: a frame of the interpreter for every event a
    # sweep's reader hears, even on the compiled runtime.
    def refuse(*args: object, **kwargs: object) -> Event:
        raise AssertionError("an event made through the named tuple's own __new__")

    game = _game(pack)
    heard: list[Event] = []
    game.listeners.append(heard.append)
    monkeypatch.setattr(Event, "__new__", refuse)
    game.event("clue", "a clue is found", place="f1-room-1")
    (event,) = heard
    assert type(event) is Event
    assert tuple(event) == ("clue", "a clue is found", {"place": "f1-room-1"}, None, 0)
    assert event.kind == "clue" and event.data == {"place": "f1-room-1"}
