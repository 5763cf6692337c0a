"""The Coma Ward game as a whole: its map, setup, a turn and the prologue to its end."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.ruleset import RulesetError, load_ruleset
from runtime.datagame import main_action, table_module, whole_game_of
from runtime.decisions import (
    Decision,
    DecisionMaker,
    Defaults,
    PresetThenAsk,
    RandomDecisions,
)
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.coma_ward_game import (
    OFF_CHART,
    ROUND_LIMIT,
    end_prologue,
    narrator,
    play_prologue,
    setup,
)
from runtime.whole import NotWhole
from tests.conftest import ROOT
from tests.helpers import card, coma_ward_whole, compiled, seat_turn, whole_game

PACK = ROOT / "content" / "coma-ward"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _broken_ruleset(tmp_path: Path, old: str, new: str) -> RulesetError:
    """The error loading the pack's ruleset with one piece of text replaced."""
    text = (PACK / "ruleset.yaml").read_text()
    assert old in text
    text = text.replace(old, new).replace("ruleset: coma-ward", "ruleset: house")
    (tmp_path / "rules.yaml").write_text(text)
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    return caught.value


def test_the_map_is_the_rulesets_floors_slots_stairs_and_elevator(pack: CompiledPack) -> None:
    board = pack.rules.world.board
    assert board.levels["nurses-station"] == "floor-2"
    assert board.slots["f2-room-2"] == "room" and len(board.slots) == 12
    # The stairs climb a floor a move; the elevator is no walking path at all.
    assert board.distance("f2-stairs", "f3-stairs") == 1
    assert board.distance("f1-stairs", "roof") == 3
    (lift,) = board.lifts_at("f2-elevator")
    assert lift.places == ("f1-elevator", "f2-elevator", "f3-elevator")
    assert lift.sides == 6 and lift.fails == {1}
    # A hallway space is the hallway a card names; a room slot is not.
    assert board.is_in("f3-middle", "hallway") and board.is_in("hallway", "hallway")
    assert not board.is_in("f3-room-1", "hallway")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "f1-room-1: {level: floor-1, slot: room,",
            "f1-room-1: {level: floor-1, slot: rooms,",
            "slot 'f1-room-1' is laid from 'rooms', which is not a deck",
        ),
        (
            "f1-room-1: {level: floor-1, slot: room, adjacent: [f1-west]}",
            "f1-room-1: {level: floor-1, slot: room, adjacent: [f1-room-2]}",
            "slot 'f1-room-1' is next to another slot",
        ),
        (
            "places: [f1-elevator, f2-elevator, f3-elevator], sides: 6, fails: [1]",
            "places: [f1-elevator, f2-elevator, f3-lift], sides: 6, fails: [1]",
            "lift 'elevator' stops at 'f3-lift', which is not a place",
        ),
        (
            "sides: 6, fails: [1]}",
            "sides: 6, fails: [1, 7]}",
            "lift 'elevator' fails on a face its d6 does not have",
        ),
        (
            "f1-west: {level: floor-1, area: hallway}",
            "f1-west: {level: floor-1, area: f1-stairs}",
            "place 'f1-west' is a space of 'f1-stairs'",
        ),
    ],
)
def test_a_broken_map_is_reported_at_its_yaml_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    error = _broken_ruleset(tmp_path, old, new)
    lines = (tmp_path / "rules.yaml").read_text().splitlines()
    line = next(number for number, text in enumerate(lines, 1) if new in text)
    found = [d for d in error.diagnostics if message in d.message]
    assert found and found[0].span.line == line, error.diagnostics


def test_a_card_naming_the_hallway_means_any_of_its_spaces(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    assert game.player.location == "nurses-station"
    assert not game.at_place("nurses-station", "hallway")  # the station is a place of its own
    assert game.at_place("f3-east", "hallway") and game.at_place("hallway", "f3-east")
    assert not game.at_place("f3-east", "stairs") and not game.at_place(None, "hallway")
    # "Move to the hallway" from a room is a step out to the nearest hallway space.
    game.player.location = "f1-room-4"
    game.move("hallway")
    assert game.player.location == "f1-east"
    game.move("stairs")
    assert game.player.location == "f1-stairs"
    game.move("roof")
    assert game.player.location == "roof"


def test_a_cards_location_condition_holds_on_a_space_of_the_area(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    walker = game.new_instance(card(pack, "Corridor Walker"))
    game.player.owned.append(walker)
    game.fire("turn_ends", [walker])
    assert walker.tokens.get("pill", 0) == 0  # at the nurses' station
    game.player.location = "f2-west"
    game.fire("turn_ends", [walker])
    assert walker.tokens["pill"] == 1


def _game(pack: CompiledPack, players: int = 2, seed: int = 0, *answers: str) -> Game:
    """A whole game set up, with scripted answers (defaults once they run out)."""
    game = whole_game(pack, players, seed)
    game.decisions = PresetThenAsk([], Defaults())
    setup(game)
    game.decisions = PresetThenAsk(answers, Defaults())
    return game


def _top(game: Game, pack: CompiledPack, deck: str, *titles: str) -> None:
    """Put these cards on top of a deck, the first named drawn first."""
    game.state.decks[deck] += [game.new_instance(card(pack, t)) for t in reversed(titles)]


class _Seen:
    """A decision maker that remembers what it was asked."""

    def __init__(self, then: DecisionMaker) -> None:
        self.then = then
        self.asked: list[Decision] = []

    def decide(self, decision: Decision) -> int:
        self.asked.append(decision)
        return self.then.decide(decision)


def _texts(game: Game) -> list[str]:
    return [event.text for event in game.log.events]


def test_setup_is_the_rulebooks_for_two_to_six(pack: CompiledPack) -> None:
    game = _game(pack, 4, 3)
    for player in game.state.players:
        assert player.location == "nurses-station"
        assert player.stats.get("health") == 5 and player.stats.get("terror") == 1
        kinds = sorted(c.kind for c in player.owned)
        assert kinds == ["neurosis", "quirk"]
        assert not any(c.flipped for c in player.owned)  # the three-ability side up
    strips = [c.title for p in game.state.players for c in p.owned if c.kind == "neurosis"]
    assert len(set(strips)) == 4
    items = game.state.decks["item"]
    clues = sum(1 for c in items if c.kind == "clue")
    assert clues == 4 and all(c.kind != "clue" for c in items[: -(15 + clues)])  # near the top
    assert narrator(game, game.state.players[3]) is game.state.players[0]
    for wrong in (1, 7):
        with pytest.raises(ValueError, match="2 to 6 players"):
            module = table_module(pack.rules, pack.whole)
            setup(Game(pack.rules, pack.cards, module, seed=0, players=wrong))


def test_a_turn_walks_onto_a_slot_and_reveals_its_room(pack: CompiledPack) -> None:
    # Dexterity 3: two steps, the second onto an unrevealed slot, which ends the move; revealing
    # is the main action: the room's effects, then the focus check (Focus 4: 5 5 6 1 passes).
    game = _game(pack, 2, 0, "move", "walk to f2-west", "walk to f2-room-1")
    _top(game, pack, "room", "Staff Lounge")
    _top(game, pack, "item", "Hospital Jelly")
    game.dice = ForcedDice([5, 5, 6, 1])
    seat_turn(game, game.state.players[0])
    player = game.state.players[0]
    assert player.location == "f2-room-1"
    assert game.state.in_play["f2-room-1"].title == "Staff Lounge"
    assert [i.title for i in player.items] == ["Hospital Jelly"]
    assert "f2-room-1 has no room tile yet: the move ends" in _texts(game)
    assert player.stats.get("terror") == 0  # the lounge's first visit: -2, floored at 0


def test_the_elevator_fails_on_a_one_and_the_move_is_lost(pack: CompiledPack) -> None:
    ride = ("move", "walk to f2-east", "walk to f2-elevator", "elevator to f3-elevator")
    for face, arrives in ((1, "f2-elevator"), (2, "f3-elevator")):
        game = _game(pack, 2, 0, *ride)
        game.dice = ForcedDice([face])
        seat_turn(game, game.state.players[0])
        assert game.state.players[0].location == arrives
        assert ("the elevator rolls 1: it does not move" in _texts(game)) == (face == 1)


def test_rummage_once_then_the_faqs_fallback(pack: CompiledPack) -> None:
    game = _game(pack, 2, 0)
    player = game.state.players[0]
    room = game.new_instance(card(pack, "Records Archive"))
    game.state.in_play["f1-room-1"] = room
    player.location = "f1-room-1"
    _top(game, pack, "item", "Hospital Jelly", "Hospital Jelly")
    game.decisions = PresetThenAsk(["rummage"], Defaults())
    game.dice = ForcedDice([5, 6, 5, 2])
    main_action(pack.whole, game, player)
    assert "searched:f1-room-1" in game.state.flags
    assert "a rummage token on f1-room-1" in _texts(game)
    # Searched and alone, with nothing on the floor: no main action is left but the FAQ's.
    game.dice = ForcedDice([5, 6, 5, 2])
    main_action(pack.whole, game, player)
    assert "no main action is possible: rummage the searched room again" in _texts(game)
    assert [i.title for i in player.items] == ["Hospital Jelly", "Hospital Jelly"]


def test_trade_then_no_attack_on_the_partner_but_a_steal_on_another(pack: CompiledPack) -> None:
    game = _game(pack, 3, 0)
    first, second, third = game.state.players
    jelly = game.new_instance(card(pack, "Hospital Jelly"))
    second.items.append(jelly)
    trading = ["trade", "player 2", "done", "Hospital Jelly", "yes"]
    seen = _Seen(PresetThenAsk([*trading, "main action", "steal from player 3"], Defaults()))
    game.decisions = seen
    third.items.append(game.new_instance(card(pack, "Hospital Jelly")))
    # The steal: strength 3 unarmed against a dodge of dexterity 3 + 2.
    game.dice = ForcedDice([5, 5, 5, 1, 1, 1, 1, 1])
    seat_turn(game, first)
    assert jelly in first.items
    texts = _texts(game)
    assert "player 2 gives player 1 Hospital Jelly" in texts
    (main,) = [d for d in seen.asked if d.kind == "main"]
    assert main.choices == ("attack player 3", "steal from player 3")  # not the partner
    assert len(first.items) == 2 and not third.items


def test_the_third_clue_ends_the_prologue_and_quirks_are_revealed(pack: CompiledPack) -> None:
    game = _game(pack, 2, 0)
    first, second = game.state.players
    for clue in ("Clue A: A Wristband", "Clue B: A Consent Form"):
        game.state.found.append(game.new_instance(card(pack, clue)))
    quirk = next(c for c in first.owned if c.kind == "quirk")
    quirk.tokens["pill"] = 1
    unrewarded = next(c for c in second.owned if c.kind == "quirk")
    room = game.new_instance(card(pack, "Records Archive"))
    game.state.in_play["f1-room-1"] = room
    game.state.flags.add("searched:f1-room-1")  # the FAQ's rummage: a focus check all the same
    first.location = "f1-room-1"
    _top(game, pack, "item", "Clue C: A Small Key")
    game.dice = ForcedDice([5, 5, 5, 2, 5, 5, 5])  # the search, then High Water's dexterity
    main_action(pack.whole, game, first)
    assert "phenomenon_revealed" in game.state.flags and first.turn_over
    end_prologue(game)
    assert game.state.in_play["phenomenon"].definition.properties["clue_order"] == ("A", "B", "C")
    assert quirk in first.owned and unrewarded not in second.owned
    assert OFF_CHART not in game.state.flags


def test_an_order_off_the_chart_gets_a_phenomenon_at_random_and_is_flagged(
    pack: CompiledPack,
) -> None:
    game = _game(pack, 2, 0)
    game.state.flags.add("phenomenon_revealed")
    end_prologue(game)
    assert OFF_CHART in game.state.flags
    assert game.state.in_play["phenomenon"].kind == "phenomenon"


def test_seeded_four_player_prologues_play_to_their_end(pack: CompiledPack) -> None:
    ended = 0
    for seed in range(16):
        game = whole_game(pack, 4, seed)
        game.decisions = Defaults() if seed % 2 else RandomDecisions(seed)
        play_prologue(game)
        revealed = "phenomenon_revealed" in game.state.flags
        everyone_dead = all(p.dead for p in game.state.players)
        assert revealed or everyone_dead or game.state.round == ROUND_LIMIT
        ended += revealed
        if revealed:  # the turn that found the third clue was the prologue's last
            clue = max(i for i, e in enumerate(game.log.events) if e.kind == "clue")
            after = [e.text for e in game.log.events[clue:]]
            assert not any(text.endswith("'s turn begins") for text in after)
            assert any(text.endswith("is the phenomenon narrator") for text in after)
    assert ended >= 8


def test_a_turn_whose_main_action_is_an_attack(pack: CompiledPack) -> None:
    # Unarmed: strength 3 dice against a dodge of dexterity 3 + 2; the attacker's three
    # successes beat none, and an unarmed blow deals 1.
    game = _game(pack, 2, 0, "main action", "attack player 2")
    first, second = game.state.players
    game.dice = ForcedDice([5, 6, 5, 1, 2, 3, 1, 2])
    seat_turn(game, first)
    assert second.stats.get("health") == 4 and first.stats.get("health") == 5
    assert isinstance(game.dice, ForcedDice) and game.dice.unused == []


def test_the_whole_game_rules_are_found_by_the_games_name(pack: CompiledPack) -> None:
    whole = coma_ward_whole()
    assert whole.players == (2, 6) and whole.phases[0] == "prologue"
    told = []
    for seed in range(6):
        game = whole.new_game(pack.rules, pack.cards, 4, seed)
        whole.play(game, "prologue")
        told.append(whole.outcome(game))
    # A game either reveals a phenomenon or says why it stopped short of one.
    assert all((o.stopped is None) == (o.labels["phenomenon"] != "none") for o in told)
    assert any(o.stopped is None for o in told)
    with pytest.raises(NotWhole, match="single cards only"):
        whole_game_of(replace(pack.rules, game="base"), None)


def test_a_cards_waiting_bonus_is_given_anew_on_a_later_turn_not_twice(pack: CompiledPack) -> None:
    from runtime.games.coma_ward_pool import take_bonuses
    from runtime.games.coma_ward_rules import bonus_next

    game = pack.new_game(players=2, seed=1)
    fuse = game.new_instance(card(pack, "Short Fuse"))
    other = game.new_instance(card(pack, "Walking Wounded"))
    player = game.player
    bonus_next(game, fuse, check_name="attack", modifier=1)
    bonus_next(game, fuse, check_name="attack", modifier=1)  # the same turn: both stand
    game.state.round += 1  # a later turn, the attack never made
    bonus_next(game, fuse, check_name="attack", modifier=1)
    bonus_next(game, other, check_name="attack", modifier=1)  # another card's adds, as the FAQ says
    assert sum(d for name, d in player.bonuses if name == "attack") == 3
    assert take_bonuses(game, player, "attack") == 3 and not player.bonuses
    game.state.round += 1
    bonus_next(game, fuse, check_name="attack", modifier=1)  # after the check: a fresh bonus
    assert player.bonuses == [("attack", 1)]
