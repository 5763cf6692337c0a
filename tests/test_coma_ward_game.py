"""The Coma Ward game as a whole: its map, setup, a turn and the prologue to its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.ruleset import RulesetError, load_ruleset
from tests.conftest import ROOT
from tests.helpers import card, compiled

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
