"""Coma Ward's rules that its rule list (docs/coma-ward.md, "Every rule of the rulebook") names
and no other test held: a turn's movement, its free actions, turn order, a failed search's
hallucination, picking up and dropping. Dice are forced and answers scripted."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.decisions import Decision, DecisionMaker, Defaults, PresetThenAsk, ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.coma_ward_combat import attack
from runtime.games.coma_ward_game import (
    drop_items,
    pick_up,
    prologue_over,
    setup,
    trade,
    use_items,
)
from runtime.games.coma_ward_map import walk
from runtime.games.coma_ward_rules import focus_search
from runtime.rounds import rounds_until
from tests.conftest import ROOT
from tests.helpers import card, compiled, make_pack, seat_turn, whole_game

PACK = ROOT / "content" / "coma-ward"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


class _Seen:
    """A decision maker that remembers what it was asked."""

    def __init__(self, then: DecisionMaker) -> None:
        self.then = then
        self.asked: list[Decision] = []

    def decide(self, decision: Decision) -> int:
        self.asked.append(decision)
        return self.then.decide(decision)


def _game(pack: CompiledPack, players: int = 2, *answers: str) -> tuple[Game, _Seen]:
    """A whole game set up, with scripted answers (defaults once they run out), remembered."""
    game = whole_game(pack, players, 0)
    game.decisions = PresetThenAsk([], Defaults())
    setup(game)
    seen = _Seen(PresetThenAsk(answers, Defaults()))
    game.decisions = seen
    return game, seen


def _give(game: Game, pack: CompiledPack, into: list[CardInstance], *titles: str) -> None:
    into.extend(game.new_instance(card(pack, title)) for title in titles)


def _texts(game: Game) -> list[str]:
    return [event.text for event in game.log.events]


def test_a_move_takes_at_most_dexterity_steps_through_a_space_with_a_player(
    pack: CompiledPack,
) -> None:
    # Health 2: Dexterity 2. The second player stands on f2-west, which the first walks
    # through; the third step is never offered.
    steps = ("walk to f2-west", "walk to f2-stairs")
    game, seen = _game(pack, 2, "move", *steps)
    first, second = game.state.players
    game.set_stat("health", 2, first)
    second.location = "f2-west"
    seat_turn(game, first)
    assert first.location == "f2-stairs"
    moves = [d for d in seen.asked if d.kind == "move"]
    assert [d.prompt for d in moves] == [
        "2 moves left from nurses-station",
        "1 move left from f2-west",
    ]


def test_a_player_who_does_not_move_has_not_entered_their_space(pack: CompiledPack) -> None:
    # The Pharmacy Cage's "when you end your move here" at Terror 4 costs a Health: a turn
    # that starts on the cage and stops at once does not end a move there.
    game, _ = _game(pack, 2, "stop")
    player = game.state.players[0]
    game.state.in_play["f2-room-2"] = game.new_instance(card(pack, "Pharmacy Cage"))
    player.location = "f2-room-2"
    game.set_stat("terror", 4, player)
    assert walk(game, player, 3, set()) is None
    assert player.stats.get("health") == 5 and player.location == "f2-room-2"


def test_play_passes_to_the_left_seat_by_seat(pack: CompiledPack) -> None:
    game, _ = _game(pack, 3)
    rounds_until(game, prologue_over, game.state.players[0], 1)
    begun = [text for text in _texts(game) if text.endswith("'s turn begins")]
    assert begun == [f"player {seat}'s turn begins" for seat in (1, 2, 3)]


def test_a_failed_search_draws_a_hallucination_the_left_player_reads(pack: CompiledPack) -> None:
    # Focus 4: 1 1 2 3 is no success; the hallucination is read by the player to the left.
    game, _ = _game(pack, 3)
    first = game.state.players[0]
    room = game.new_instance(card(pack, "Records Archive"))
    game.state.decks["hallucination"].append(
        game.new_instance(card(pack, "The Gurney That Follows"))
    )
    game.dice = ForcedDice([1, 1, 2, 3])
    assert focus_search(game, room) is False
    narrating = [e for e in game.log.events if e.kind == "narrator"]
    assert [e.data["narrator"] for e in narrating] == ["player 2"]
    assert first.location == "f2-stairs"  # the option picked resolved: "Climb aboard"
    assert not first.items


def test_a_trade_never_takes_the_receiver_past_the_carry_limit(pack: CompiledPack) -> None:
    # Strength 3: the second player carries three items, so nothing counted can be given.
    game, seen = _game(pack, 2, "player 2", "done", "done")
    first, second = game.state.players
    _give(game, pack, first.items, "Hospital Jelly")
    _give(game, pack, second.items, "Hospital Jelly", "Hospital Jelly", "Hospital Jelly")
    assert trade(game, first) == set()
    give = next(d for d in seen.asked if d.prompt == "give player 2")
    assert give.choices == ("done",)
    assert len(first.items) == 1 and len(second.items) == 3


def test_any_number_of_items_are_used_in_one_free_action(pack: CompiledPack) -> None:
    game, _ = _game(pack, 2, "Hospital Jelly", "Hospital Jelly")
    player = game.state.players[0]
    game.set_stat("health", 3, player)
    _give(game, pack, player.items, "Hospital Jelly", "Hospital Jelly")
    use_items(game, player)
    assert player.stats.get("health") == 5 and not player.items


def test_items_dropped_lie_face_up_on_the_space(pack: CompiledPack) -> None:
    game, _ = _game(pack, 2, "Hospital Jelly", "done")
    player = game.state.players[0]
    _give(game, pack, player.items, "Hospital Jelly", "Packet of Crackers")
    drop_items(game, player)
    assert [i.title for i in game.state.floor["nurses-station"]] == ["Hospital Jelly"]
    assert [i.title for i in player.items] == ["Packet of Crackers"]
    assert any(text.startswith("drop ") and "Hospital Jelly" in text for text in _texts(game))


def test_picking_up_takes_everything_then_drops_to_the_carry_limit(pack: CompiledPack) -> None:
    game, _ = _game(pack, 2, "Packet of Crackers")
    player = game.state.players[0]
    floor = game.state.floor.setdefault("nurses-station", [])
    _give(
        game,
        pack,
        floor,
        "Hospital Jelly",
        "Hospital Jelly",
        "Hospital Jelly",
        "Packet of Crackers",
    )
    pick_up(game, player)
    assert [i.title for i in player.items] == ["Hospital Jelly"] * 3
    assert [i.title for i in game.state.floor["nurses-station"]] == ["Packet of Crackers"]


def test_a_move_a_card_grants_never_enters_an_unrevealed_room(pack: CompiledPack) -> None:
    # `move to PLACE` is `game.move`: onto a slot with no tile it is refused, onto a room laid
    # it goes (rulebook line 209).
    game, _ = _game(pack, 2)
    player = game.state.players[0]
    game.move("f2-room-3")
    assert player.location == "nurses-station" and "f2-room-3" not in game.state.in_play
    assert _texts(game)[-1] == (
        "nurses-station → f2-room-3: a move a card grants never enters an unrevealed room"
    )
    game.state.in_play["f2-room-3"] = game.new_instance(card(pack, "Records Archive"))
    game.move("f2-room-3")
    assert player.location == "f2-room-3"


def _fight(pack: CompiledPack, dice: list[int], *answers: str) -> tuple[Game, _Seen]:
    """Two players on the nurses' station, f2-room-2 revealed beside it, f2-room-3 not."""
    game, seen = _game(pack, 2, *answers)
    game.state.in_play["f2-room-2"] = game.new_instance(card(pack, "Records Archive"))
    game.dice = ForcedDice(dice)
    return game, seen


def test_a_dodge_won_lets_the_defender_step_one_space_away(pack: CompiledPack) -> None:
    # Unarmed, 3 dice: one success; a dodge of Dexterity 3 + 2: two. The defender may step to
    # a space next to theirs, never into a room with no tile (rulebook 237, 268).
    game, seen = _fight(pack, [5, 1, 1, 5, 6, 1, 1, 1], "dodge", "walk to f2-room-2")
    first, second = game.state.players
    result = attack(game, first, second)
    assert result.winner == "defender" and not result.tie
    (step,) = [
        d for d in seen.asked if d.prompt == "player 2 may move one space away from player 1"
    ]
    assert step.choices == ("stay", "walk to f2-east", "walk to f2-room-2", "walk to f2-west")
    assert step.default == 0 and step.seat == second.seat
    assert second.location == "f2-room-2" and first.location == "nurses-station"
    assert second.stats.get("health") == 5


@pytest.mark.parametrize(
    ("dice", "defence"),
    [
        ([5, 1, 1, 5, 1, 1, 1, 1], "dodge"),  # a tie: nobody moves (239, 271)
        ([5, 1, 1, 5, 6, 1], "counter-attack"),  # a counter-attack won: no step away
    ],
)
def test_no_step_away_after_a_tie_or_a_counter_attack(
    pack: CompiledPack, dice: list[int], defence: str
) -> None:
    game, seen = _fight(pack, dice, defence)
    first, second = game.state.players
    attack(game, first, second)
    assert not [d for d in seen.asked if "one space away" in d.prompt]
    assert second.location == first.location == "nurses-station"


CORRIDOR = """\
hallucination "The Corridor Stretches" {
    situation "The hallway runs on further than it should."
    option "Run" { move 3 spaces away }
}

room "Linen Closet" { number 1 }
"""


@pytest.fixture(scope="module")
def corridor(tmp_path_factory: pytest.TempPathFactory) -> CompiledPack:
    """A pack of one hallucination whose option moves the player three spaces away."""
    return compiled(make_pack(tmp_path_factory.mktemp("corridor"), cards=CORRIDOR))


@pytest.mark.parametrize(("face", "arrives"), [(1, "f2-elevator"), (2, "f1-elevator")])
def test_move_x_spaces_away_is_exactly_x_moves_the_elevator_as_in_any_move(
    corridor: CompiledPack, face: int, arrives: str
) -> None:
    # By default each step leaves the player farthest from the start: the hallway east, the
    # elevator, then a ride down, which on a 1 does not move and spends the move (348-350).
    seen = _Seen(ScriptedDecisions(["Run"]))
    game = corridor.new_game(seed=0, dice=ForcedDice([face]), decisions=seen)
    game.play(card(corridor, "The Corridor Stretches"))
    assert game.player.location == arrives
    moves = [d for d in seen.asked if d.kind == "move"]
    assert [d.prompt for d in moves] == [
        "3 of 3 moves left from nurses-station",
        "2 of 3 moves left from f2-east",
        "1 of 3 moves left from f2-elevator",
    ]
    assert "the elevator rolls 1: it does not move" in _texts(game) or face != 1


def test_move_x_spaces_away_has_no_stop_and_never_enters_an_unrevealed_room(
    corridor: CompiledPack,
) -> None:
    answers = ["Run", "walk to f2-room-2", "walk to nurses-station", "walk to f2-west"]
    seen = _Seen(ScriptedDecisions(answers))
    game = corridor.new_game(seed=0, decisions=seen)
    game.state.in_play["f2-room-2"] = game.new_instance(card(corridor, "Linen Closet"))
    game.play(card(corridor, "The Corridor Stretches"))
    assert game.player.location == "f2-west"
    first = next(d for d in seen.asked if d.kind == "move")
    assert first.choices == ("walk to f2-east", "walk to f2-room-2", "walk to f2-west")


LOCKER = """\
hallucination "A Locker Left Open" {
    situation "Someone has been through these shelves before you."
    option "Search" { search the item deck }
}

item "Gauze" { type medicine; use { discard this; gain health 1 } }
item "Cold Toast" { type food; use { discard this; lose terror 1 } }
item "Mop Handle" { type weapon }
"""


def test_searching_a_deck_leaves_its_discards_out_and_shuffles_it(tmp_path: Path) -> None:
    # The FAQ (344-346): the player picks from the deck, not from its discard pile, and the
    # deck is shuffled afterwards without the discards.
    locker = compiled(make_pack(tmp_path, cards=LOCKER))
    seen = _Seen(ScriptedDecisions(["Search", "Mop Handle"]))
    game = locker.new_game(seed=0, decisions=seen)
    deck, discards = game.state.decks["item"], game.state.discards.setdefault("item", [])
    deck[:] = [game.new_instance(card(locker, t)) for t in ("Gauze", "Mop Handle", "Cold Toast")]
    discards[:] = [game.new_instance(card(locker, "Gauze"))]
    shuffles = game.shuffles
    game.play(card(locker, "A Locker Left Open"))
    offered = next(d for d in seen.asked if d.prompt == "search the item deck for")
    assert offered.choices == ("Cold Toast", "Mop Handle", "Gauze")  # the pile, top first
    assert [i.title for i in game.player.items] == ["Mop Handle"]
    assert sorted(c.title for c in deck) == ["Cold Toast", "Gauze"]
    assert [c.title for c in discards] == ["Gauze"] and game.shuffles == shuffles + 1
