"""The runtime's rules of play: carrying, triggers, bonuses, decks, death."""

from __future__ import annotations

from pathlib import Path

from compiler.build import CompiledPack, compile_pack, load_checked
from runtime.cards import CardDef
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from tests.helpers import make_pack

CARDS = """
item "Towel" { type clothing }
item "Pan" { type weapon
    hands 1
    damage 1 }
item "Mop" { type weapon
    hands 2
    damage 1 }
item "Cane" { type weapon
    hands 1
    damage 1 }
item "Bandage" { type medicine
    use { discard this; gain health 2 } }
room "Linen Room" {
    number 4
    first time you end your move here { lose terror 1 }
    when you end your move here { say "Sheets everywhere." }
}
quirk "Counter" {
    condition "You end a turn."
    when your turn ends { place pill on this }
}
hallucination "Hiss" {
    situation "A hiss."
    option "Listen" { check focus { 0..1 { gain terror 1 }; 2+ { lose terror 1 } } }
    option "Leave" { end turn }
}
"""


def pack(tmp_path: Path) -> CompiledPack:
    """The cards above, compiled."""
    loaded = load_checked(make_pack(tmp_path, cards=CARDS))
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


def card(compiled: CompiledPack, title: str) -> CardDef:
    """A card by title."""
    return next(c for c in compiled.cards if c.title == title)


def game(compiled: CompiledPack, answers: list[str] = [], dice: list[int] = []) -> Game:  # noqa: B006
    """A game with scripted answers and forced dice."""
    return compiled.new_game(dice=ForcedDice(dice), decisions=ScriptedDecisions(answers))


def test_clothing_does_not_count_toward_the_carry_limit(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled, answers=["Pan"])
    g.set_stat("health", 1)  # strength 1: one item
    for title in ("Towel", "Pan", "Mop"):
        g.play(card(compiled, title))
    assert [i.title for i in g.player.items] == ["Towel", "Mop"]
    assert [c.title for c in g.state.floor["nurses-station"]] == ["Pan"]
    assert 'drop item "Pan"' in g.log.lines()


def test_first_time_runs_once_and_every_time_runs_every_time(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled, dice=[5, 5, 6])  # the focus check of revealing it: 3 dice, passed
    g.set_stat("terror", 3)
    g.play(card(compiled, "Linen Room"))
    assert len(g.player.items) == 1  # passing the check found an item
    g.move("hallway")
    g.move("Linen Room")
    assert g.stat("terror") == 2
    assert sum(1 for e in g.log.events if e.kind == "say") == 2


def test_turn_end_runs_the_players_quirk(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled)
    quirk = g.play(card(compiled, "Counter"))
    assert quirk.tokens == {"pill": 1}
    g.end_turn()  # the turn is already over: nothing runs twice
    assert quirk.tokens == {"pill": 1}


def test_a_bonus_waits_for_its_check_and_is_used_up(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled, answers=["Listen", "Listen"], dice=[1, 1, 1, 1, 5, 1, 2, 3])
    g.player.bonuses.append(("focus", 1))
    g.play(card(compiled, "Hiss"))  # focus 4 + 1 bonus die; 1 success: terror 2
    g.play(card(compiled, "Hiss"))  # focus 3 and no bonus left
    checks = [e.text for e in g.log.events if e.kind == "check"]
    assert checks[0].startswith("check focus (5 dice)")
    assert checks[1].startswith("check focus (3 dice)")
    assert g.player.bonuses == []


def test_an_empty_deck_takes_its_discards_back(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled, answers=["Leave", "Leave"])
    g.draw("hallucination")
    assert g.state.discards["hallucination"] and not g.state.decks["hallucination"]
    g.draw("hallucination")
    assert "the hallucination deck is empty: its discards are shuffled in" in g.log.lines()


def test_the_dead_leave_their_items_where_they_fell(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled)
    g.play(card(compiled, "Pan"))
    g.move("stairs")  # the map's stairs nearest the nurses' station
    g.change("health", -5)
    assert g.player.dead and g.player.items == []
    assert [c.title for c in g.state.floor["f2-stairs"]] == ["Pan"]
    assert g.snapshot()["floor"] == {"f2-stairs": ["Pan"]}


def test_using_a_card_discards_it_to_its_deck(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled)
    g.set_stat("health", 2)
    g.play(card(compiled, "Bandage"))
    assert g.stat("health") == 4
    assert [c.title for c in g.state.discards["item"]] == ["Bandage"]


def test_clues_are_shuffled_into_the_top_of_the_item_deck(tmp_path: Path) -> None:
    fillers = "".join(f'item "Filler {n}" {{ type food\n copies 5 }}\n' for n in range(8))
    clues = "".join(f'clue "Clue {letter}" {{ letter {letter} }}\n' for letter in "ABC")
    loaded = load_checked(make_pack(tmp_path, cards=fillers + clues))
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    compiled = compile_pack(loaded.pack)
    for seed in range(20):
        deck = compiled.new_game(seed=seed).state.decks["item"]
        assert len(deck) == 43
        top = deck[-18:]  # the top of the deck is the end of the list: 15 items and 3 clues
        assert sum(1 for card in top if card.kind == "clue") == 3
        assert deck[-19].kind != "clue"


def test_cards_can_call_for_a_dodge_or_an_attack(tmp_path: Path) -> None:
    shelf = """
hallucination "Falling Shelf" {
    situation "A shelf of jars tips toward you."
    option "Jump aside" {
        check dodge { 0..1 { lose health 1 }; 2+ { } }
    }
    option "Strike it away" {
        check attack -1 { 0 { lose health 2 }; 1+ { } }
    }
}
"""
    loaded = load_checked(make_pack(tmp_path, cards=CARDS + shelf))
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    compiled = compile_pack(loaded.pack)
    g = game(compiled, answers=["Jump aside"], dice=[1, 1, 1, 2, 3])  # dexterity 3 + 2
    g.play(card(compiled, "Falling Shelf"))
    assert g.stat("health") == 4
    g = game(compiled, answers=["Strike it away", "Pan"], dice=[6, 1])
    g.play(card(compiled, "Pan"))  # a one-handed strength weapon, no attack bonus
    g.play(card(compiled, "Falling Shelf"))  # strength 3 - 1
    assert g.stat("health") == 5
    assert "  player 1 attacks with: Pan" in g.log.lines()
    assert "  check attack (Pan) (2 dice): 6 1 → 1 success" in g.log.lines()


def test_a_place_searched_with_success_cannot_be_searched_again(tmp_path: Path) -> None:
    compiled = pack(tmp_path)
    g = game(compiled, dice=[5, 5, 6, 1])  # focus 4: 3 successes on the first search
    rummage = g.module.verbs["rummage"]
    this = g.new_instance(card(compiled, "Towel"))
    rummage(g, this)
    assert len(g.player.items) == 1 and "searched:nurses-station" in g.state.flags
    rummage(g, this)  # no dice are rolled: the place is spent
    assert "nurses-station has a rummage token: nothing is left to find" in g.log.lines()
