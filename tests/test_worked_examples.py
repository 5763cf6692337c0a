"""The Coma Ward rulebook's worked examples, replayed with forced dice, and combat's rules.

Each example asserts the dice rolled, the successes and the state after, and pins the log lines
a designer would read. The cards here are our own test cards (or the specimen pack's).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from runtime.cards import CardDef, CardInstance
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.coma_ward_combat import CombatError, attack, loadout, loadouts, steal
from runtime.state import Player
from runtime.testing import run_test

SPECIMENS = Path(__file__).parent / "specimens" / "coma-ward"

PACK_YAML = """\
pack: worked-examples
title: Cards for the rulebook's worked examples
version: 0.1.0
ruleset: coma-ward
"""

CARDS = """\
item "Broom" {
    type weapon
    hands 2
    attacks with strength
    attack +4
    damage 2
}

item "Kitchen Knife" {
    type weapon
    hands 1
    attacks with strength
    attack +1
    damage 1
}

item "Frying Pan" {
    type weapon
    hands 1
    attacks with strength
    attack +2
    damage 2
}

item "Letter Opener" {
    type weapon
    hands 1
    attacks with dexterity
    attack +1
    damage 1
}

item "Sneakers" {
    type clothing
    while carried { dexterity +1 }
}

item "Chocolate Bar" {
    type food
    use {
        discard this
        gain health 1
    }
}

neurosis "Petrified" {
    adrenaline { dexterity +2 }
}

hallucination "A Face at the Window" {
    situation "Pale fingers tap on the glass from outside, four floors up."
    option "Scream" { gain terror 3 }
    option "Look away" { end turn }
    test "scared to death" {
        given terror 4, health 2
        choose "Scream"
        expect terror == 5
        expect health == 0
    }
}

hallucination "A Runaway Gurney" {
    situation "A gurney rolls down the corridor toward you, faster and faster."
    option "Jump aside" {
        check dexterity {
            0..1 { gain terror 1 }
            2+ { lose terror 1 }
        }
    }
}
"""


def _compile(path: Path) -> CompiledPack:
    loaded = load_checked(path)
    assert loaded.pack is not None, loaded.diagnostics
    return compile_pack(loaded.pack)


@pytest.fixture
def specimens() -> CompiledPack:
    """The specimen pack: the vial, the clues and the phenomenon chart."""
    return _compile(SPECIMENS)


@pytest.fixture
def cards(tmp_path: Path) -> CompiledPack:
    """Our test cards: weapons, clothing, a neurosis and two hallucinations."""
    (tmp_path / "pack.yaml").write_text(PACK_YAML, encoding="utf-8")
    (tmp_path / "cards.card").write_text(CARDS, encoding="utf-8")
    return _compile(tmp_path)


def new_game(
    pack: CompiledPack,
    dice: Sequence[int],
    answers: Sequence[str] = (),
    names: Sequence[str] = ("Bruce", "Jane"),
) -> tuple[Game, ForcedDice, ScriptedDecisions]:
    """A game with these dice and answers, and one player of each name, as in the rulebook."""
    forced, scripted = ForcedDice(dice), ScriptedDecisions(answers)
    game = pack.new_game(seed=0, dice=forced, decisions=scripted, players=len(names))
    for player, name in zip(game.state.players, names, strict=True):
        player.name = name
    return game, forced, scripted


def card(pack: CompiledPack, title: str, variant: int | None = None) -> CardDef:
    """The card of the pack with this title (and variant)."""
    for definition in pack.cards:
        if definition.title == title and definition.variant == variant:
            return definition
    raise AssertionError(f"no card {title!r} variant {variant}")


def give(game: Game, player: Player, *titles: str) -> list[CardInstance]:
    """Put fresh copies of these cards in the player's hands."""
    given = [game.new_instance(_find(game, title)) for title in titles]
    player.items.extend(given)
    return given


def _find(game: Game, title: str) -> CardDef:
    found = game.find(title)
    assert found is not None, title
    return found


def lines(game: Game) -> list[str]:
    """The log as text, without indentation."""
    return [event.text for event in game.log.events]


def used_up(dice: ForcedDice, answers: ScriptedDecisions) -> bool:
    """Every forced die was rolled and every scripted answer asked for."""
    return not dice.unused and not answers.unused


# -- 1. Angelica's focus check ("Making a Check") -------------------------------------------------


def test_angelicas_focus_check_passes_with_three_successes(specimens: CompiledPack) -> None:
    # 1 4 5 6: the 5 and 6 succeed; the 4 goes again with the 1: 4 6. The 6 is the third success;
    # re-rolling is always taken (docs/readings.md#coma-ward-pool-check), so the new 4 goes
    # once more, alone: a 3.
    hum = card(specimens, "Music from the Nursery", variant=1)
    game, dice, answers = new_game(specimens, [1, 4, 5, 6, 4, 6, 3], ["Hum along"], ["Angelica"])
    assert game.stat("focus") == 4  # terror 1 at the start: focus 4, no items
    game.play(hum)
    check = next(e for e in game.log.events if e.kind == "check")
    assert check.text == (
        "check focus (4 dice): 1 4 5 6 → 2 successes; "
        "suspense: re-roll 4 and 1 → 4 6 → 3 successes; "
        "suspense: re-roll 4 → 3 → 3 successes"
    )
    assert check.data["dice"] == 4 and check.data["successes"] == 3
    assert game.player.stats.get("terror") == 0  # the 3+ outcome: lose terror 1
    assert "“The tune steadies your hands.”" in lines(game)
    assert used_up(dice, answers)


# -- 2 and 3. Bruce's Broom and Jane's Sneakers ("Attacking or Stealing Items") -------------------


def test_bruce_attacks_with_the_broom_on_seven_dice(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 6, 5, 1, 2, 3, 3, 1, 2, 3, 5, 2], ["Broom"])
    bruce, jane = game.state.players
    give(game, bruce, "Broom")
    assert game.stat("strength", bruce) == 3
    result = attack(game, bruce, jane, defence="dodge")
    assert (result.attacker_dice, result.attacker_successes) == (7, 3)
    assert (result.defender_dice, result.defender_successes) == (5, 1)
    assert result.winner == "attacker" and result.damage == 2 and result.damaged == "Jane"
    assert jane.stats.get("health") == 3
    assert lines(game)[1:] == [
        "Bruce attacks Jane: Broom",
        "Bruce rolls strength 3, Broom +4 = 7 dice",
        "check attack (7 dice): 5 6 5 1 2 3 3 → 3 successes",
        "Jane rolls dexterity 3, dodge +2 = 5 dice",
        "Jane dodges (5 dice): 1 2 3 5 2 → 1 success",
        "Bruce wins 3 to 1: Jane takes 2 damage",
        "Jane: health 5 → 3 (-2)",
    ]
    assert lines(game)[0] == "Bruce attacks with: Broom"  # the weapon was decided, not given
    assert used_up(dice, answers)


def test_jane_dodges_with_sneakers_on_six_dice(cards: CompiledPack) -> None:
    # Jane wins, so she may move one space away from Bruce (rulebook 237): she does.
    game, dice, answers = new_game(
        cards, [1, 1, 2, 2, 3, 5, 6, 5, 5, 6, 1, 2, 3], ["dodge", "walk to f2-west"]
    )
    bruce, jane = game.state.players
    (broom,) = give(game, bruce, "Broom")
    give(game, jane, "Sneakers")
    assert game.stat("dexterity", jane) == 4  # 3 on the mat, +1 while she carries the Sneakers
    result = attack(game, bruce, jane, weapons=[broom])
    assert (result.attacker_dice, result.attacker_successes) == (7, 2)
    assert (result.defender_dice, result.defender_successes) == (6, 3)
    assert result.winner == "defender" and not result.tie and result.damage == 0
    assert jane.stats.get("health") == 5
    assert lines(game)[-6:] == [
        "Jane defends against Bruce: dodge",
        "Jane rolls dexterity 4, dodge +2 = 6 dice",
        "Jane dodges (6 dice): 5 5 6 1 2 3 → 3 successes",
        "Jane wins 2 to 3: no harm done; Jane may move one space away from Bruce",
        "Jane may move one space away from Bruce: walk to f2-west",
        "Jane steps away: nurses-station → f2-west",
    ]
    assert jane.location == "f2-west" and bruce.location == "nurses-station"
    assert used_up(dice, answers)


# -- 4. Scared to death ("Making a Check": you CAN get scared to death) --------------------------


def test_scared_to_death_as_a_card_test(cards: CompiledPack) -> None:
    face = card(cards, "A Face at the Window")
    (test,) = face.tests
    result = run_test(cards.new_game, face, test)
    assert result.passed, result.failure


def test_scared_to_death_step_by_step(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [], ["Scream"], ["Angelica"])
    game.set_stat("terror", 4)
    game.set_stat("health", 2)
    game.play(card(cards, "A Face at the Window"))
    assert game.player.stats.get("terror") == 5
    assert game.player.stats.get("health") == 0
    assert game.player.dead
    assert lines(game)[-6:] == [
        "terror 4 → 5 (+1)",
        "2 terror past 5 is lost as health",
        "health 2 → 0 (-2)",
        "health 0: the character dies",
        "Angelica dies",
        "the run ends: the current player is dead",
    ]
    assert used_up(dice, answers)


# -- 5. Fiona's adrenaline ("Neurosis and Adrenaline") ---------------------------------------------


def test_fionas_adrenaline_adds_two_dexterity_dice_at_terror_four(cards: CompiledPack) -> None:
    # Terror 4: Petrified's adrenaline gives +2 dexterity, so the check rolls 3 + 2 = 5 dice.
    # Two successes pass, she loses 1 terror, and at terror 3 the adrenaline is gone.
    game, dice, answers = new_game(cards, [5, 5, 1, 2, 3], ["Jump aside"], ["Fiona"])
    fiona = game.player
    game.play(card(cards, "Petrified"))
    assert game.stat("dexterity") == 3  # terror 1: no adrenaline
    game.set_stat("terror", 4)
    assert game.stat("dexterity") == 5
    game.play(card(cards, "A Runaway Gurney"))
    assert "check dexterity (5 dice): 5 5 1 2 3 → 2 successes" in lines(game)
    assert fiona.stats.get("terror") == 3
    assert game.stat("dexterity") == 3
    assert used_up(dice, answers)


def test_fionas_adrenaline_counts_in_dodges_and_dexterity_attacks(cards: CompiledPack) -> None:
    # Every die a 1: each fight is a 0-0 tie, so only the dice counts matter.
    game, dice, answers = new_game(cards, [1] * (6 + 5 + 3 + 7 + 4 + 5), [], ["Fiona", "Jane"])
    fiona, jane = game.state.players
    game.play(card(cards, "Petrified"))
    (opener,) = give(game, fiona, "Letter Opener")
    game.set_stat("terror", 4)
    first = attack(game, fiona, jane, weapons=[opener], defence="dodge")
    assert first.attacker_dice == 6  # dexterity 3, adrenaline +2, Letter Opener +1
    jane_attacks = attack(game, jane, fiona, defence="dodge")
    assert jane_attacks.defender_dice == 7  # dexterity 3, adrenaline +2, dodge +2
    fiona.stats.change("terror", -1)
    second = attack(game, fiona, jane, weapons=[opener], defence="dodge")
    assert second.attacker_dice == 4  # terror 3: no adrenaline
    assert "Fiona rolls dexterity 5, Letter Opener +1 = 6 dice" in lines(game)
    assert "Fiona rolls dexterity 5, dodge +2 = 7 dice" in lines(game)
    assert "Fiona rolls dexterity 3, Letter Opener +1 = 4 dice" in lines(game)
    assert used_up(dice, answers)


# -- 6. The vial's roll table ("Food and Medicine Item Cards") -------------------------------------


@pytest.mark.parametrize(
    ("face", "health", "terror"),
    [(1, 2, 2), (2, 2, 2), (3, 3, 3), (4, 3, 3), (5, 4, 1), (6, 4, 1)],
)
def test_the_vial_for_every_face(
    specimens: CompiledPack, face: int, health: int, terror: int
) -> None:
    game, dice, answers = new_game(specimens, [face], names=["Angelica"])
    game.set_stat("health", 3)
    game.set_stat("terror", 2)
    (vial,) = give(game, game.player, "Unlabeled Vial")
    game.use(vial)
    assert f"roll d6: {face} → {face}" in lines(game)
    assert game.player.stats.get("health") == health
    assert game.player.stats.get("terror") == terror
    assert vial not in game.player.items
    assert game.state.discards["item"] == [vial]
    assert used_up(dice, answers)


# -- 7. Clues by the count found ("Clue Item Cards") ----------------------------------------------


def _stack(game: Game, *titles: str) -> None:
    """Put fresh copies on top of the item deck, the first title on top."""
    deck = game.state.decks["item"]
    deck.extend(game.new_instance(_find(game, title)) for title in reversed(titles))


def _draw_clue(game: Game, letter: str) -> None:
    """Draw `Clue <letter>` from the item deck, over a Granola Bar the draw must not reach."""
    _stack(game, f"Clue {letter}", "Granola Bar")
    game.draw("item", 2)  # a clue ends the draw: the Granola Bar stays in the deck


FIRST_SECOND = {"A": ([("attack", 1)], 0), "B": ([], -1), "C": ([], 0)}
"""What each clue does as the first or second found: bonuses gained, terror changed."""


@pytest.mark.parametrize("position", [1, 2, 3])
@pytest.mark.parametrize("letter", ["A", "B", "C"])
def test_a_clue_by_its_place_in_the_order(
    specimens: CompiledPack, letter: str, position: int
) -> None:
    game, dice, answers = new_game(specimens, [], names=["Angelica"])
    player = game.player
    game.set_stat("terror", 3)
    for earlier in [other for other in "ABC" if other != letter][: position - 1]:
        _draw_clue(game, earlier)
    bonuses, terror = list(player.bonuses), player.stats.get("terror")
    _draw_clue(game, letter)
    assert game.state.decks["item"][-1].title == "Granola Bar"  # the clue ended the draw
    assert [c.title for c in game.state.found][-1] == f"Clue {letter}"
    assert f"clue found: Clue {letter} (clue {position})" in lines(game)
    assert player.items == []  # clues are not carried
    if position < 3:
        gained, change = FIRST_SECOND[letter]
        assert player.bonuses == bonuses + gained
        assert player.stats.get("terror") == terror + change
        assert "phenomenon_revealed" not in game.state.flags
    else:
        assert player.bonuses == bonuses and player.stats.get("terror") == terror
        assert "phenomenon_revealed" in game.state.flags
        assert "phenomenon" in game.state.in_play
        assert player.turn_over  # the prologue ends with the current player's turn
    assert used_up(dice, answers)


@pytest.mark.parametrize("letter", ["A", "B", "C"])
def test_a_clue_after_the_phenomenon_is_discarded_for_another_item(
    specimens: CompiledPack, letter: str
) -> None:
    game, dice, answers = new_game(specimens, [], names=["Angelica"])
    for earlier in "ABC":
        _draw_clue(game, earlier)
    bonuses, terror = list(game.player.bonuses), game.player.stats.get("terror")
    _stack(game, f"Clue {letter}", "Granola Bar")
    game.draw("item")
    assert [c.title for c in game.state.found] == ["Clue A", "Clue B", "Clue C"]
    assert [c.title for c in game.state.discards["item"]] == [f"Clue {letter}"]
    assert [c.title for c in game.player.items] == ["Granola Bar"]
    assert game.player.bonuses == bonuses and game.player.stats.get("terror") == terror
    assert lines(game)[-4:] == [
        f'draw item: clue "Clue {letter}"',
        f'clue "Clue {letter}": when drawn',
        f'discard clue "Clue {letter}"',
        'draw item: item "Granola Bar"',
    ]
    assert used_up(dice, answers)


# -- 8. The phenomenon chart ("Phenomenon Chart") --------------------------------------------------


@pytest.mark.parametrize(
    ("order", "number", "title"),
    [
        ("ABC", 1, "The Long Night"),
        ("ACB", 2, "Borrowed Faces"),
        ("BAC", 3, "The Quiet Ward"),
        ("BCA", 4, "Splitting"),
        ("CAB", 5, "Visiting Hours"),
    ],
)
def test_the_phenomenon_chart(specimens: CompiledPack, order: str, number: int, title: str) -> None:
    game, dice, answers = new_game(specimens, [], names=["Angelica"])
    for letter in order:
        game.play(card(specimens, f"Clue {letter}"))
    revealed = game.state.in_play["phenomenon"]
    assert revealed.title == title
    assert revealed.definition.properties["number"] == number
    assert f"clue order {' '.join(order)}: phenomenon {number}, “{title}”" in lines(game)
    assert "phenomenon_revealed" in game.state.flags
    assert used_up(dice, answers)


def test_an_order_missing_from_the_chart_reveals_nothing(specimens: CompiledPack) -> None:
    game, dice, answers = new_game(specimens, [], names=["Angelica"])
    for letter in "CBA":
        game.play(card(specimens, f"Clue {letter}"))
    assert "phenomenon" not in game.state.in_play
    assert "clue order C B A: no phenomenon on the chart" in lines(game)
    assert "phenomenon_revealed" in game.state.flags  # the prologue is over all the same
    assert used_up(dice, answers)


def test_the_third_clue_reveals_the_phenomenon_even_if_its_card_does_not_say_so(
    tmp_path: Path,
) -> None:
    """The rulebook's prologue ends with the third clue, whatever the clue cards print."""
    pack = tmp_path / "quiet-clues"
    pack.mkdir()
    (pack / "pack.yaml").write_text(PACK_YAML, encoding="utf-8")
    (pack / "cards.card").write_text(
        "\n".join(f'clue "Clue {letter}" {{ letter {letter} }}' for letter in "ABC")
        + '\nphenomenon "Lights Out" { number 1; clue order B C A; mode cooperative }\n',
        encoding="utf-8",
    )
    quiet = _compile(pack)
    game, dice, answers = new_game(quiet, [], names=["Angelica"])
    for letter in "BC":
        game.play(card(quiet, f"Clue {letter}"))
    assert "phenomenon_revealed" not in game.state.flags
    game.play(card(quiet, "Clue A"))
    assert game.state.in_play["phenomenon"].title == "Lights Out"
    assert "clue order B C A: phenomenon 1, “Lights Out”" in lines(game)
    assert lines(game).count("the phenomenon is already revealed") == 0
    assert used_up(dice, answers)


# -- Combat ---------------------------------------------------------------------------------------


def test_a_tie_goes_to_the_defender_and_nothing_happens(cards: CompiledPack) -> None:
    # Bruce: 3 dice unarmed, 5 5 1. Jane dodges on 5 dice: 6 5 1 2 3. Two all.
    game, dice, answers = new_game(cards, [5, 5, 1, 6, 5, 1, 2, 3], ["dodge"])
    bruce, jane = game.state.players
    give(game, jane, "Chocolate Bar")
    result = steal(game, bruce, jane)
    assert result.tie and result.winner == "defender"
    assert (result.attacker_successes, result.defender_successes) == (2, 2)
    assert result.damage == 0 and result.stolen is None
    assert [i.title for i in jane.items] == ["Chocolate Bar"] and bruce.items == []
    assert lines(game)[-1] == "tie 2 to 2: Jane wins; nothing happens"
    assert used_up(dice, answers)


def test_a_counter_attack_tie_hurts_nobody(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 1, 1, 6, 1, 1], [])
    bruce, jane = game.state.players
    result = attack(game, bruce, jane, defence="counter-attack")
    assert result.tie and result.damage == 0
    assert bruce.stats.get("health") == 5 and jane.stats.get("health") == 5
    assert used_up(dice, answers)


def test_a_counter_attack_hurts_the_attacker_even_on_a_steal(cards: CompiledPack) -> None:
    # Bruce steals unarmed (3 dice: one success); Jane counter-attacks with the Frying Pan:
    # strength 3 + 2 = 5 dice, two successes. Bruce loses the Pan's 2 health, takes nothing.
    game, dice, answers = new_game(
        cards, [5, 1, 2, 6, 5, 1, 2, 3], ["counter-attack", "Frying Pan"]
    )
    bruce, jane = game.state.players
    give(game, jane, "Frying Pan", "Chocolate Bar")
    result = steal(game, bruce, jane)
    assert result.winner == "defender" and result.defence == "counter-attack"
    assert (result.attacker_dice, result.defender_dice) == (3, 5)
    assert result.damage == 2 and result.damaged == "Bruce" and result.stolen is None
    assert bruce.stats.get("health") == 3 and len(jane.items) == 2
    assert lines(game)[0] == "Bruce tries to steal from Jane: unarmed"
    assert "Jane rolls strength 3, Frying Pan +2 = 5 dice" in lines(game)
    assert "Jane counter-attacks (5 dice): 6 5 1 2 3 → 2 successes" in lines(game)
    assert "Jane wins 1 to 2: Bruce takes 2 damage" in lines(game)
    assert used_up(dice, answers)


def test_an_unarmed_attack_checks_strength_and_deals_one(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [6, 6, 1, 1, 2, 3, 1, 2], ["dodge"])
    bruce, jane = game.state.players
    result = attack(game, bruce, jane)  # no weapons carried: nothing to decide but the defence
    assert result.attacker_dice == 3 and result.damage == 1
    assert jane.stats.get("health") == 4
    assert lines(game)[:2] == ["Bruce attacks Jane: unarmed", "Bruce rolls strength 3 = 3 dice"]
    assert used_up(dice, answers)


def test_two_one_handed_weapons_add_both_bonuses_and_damages(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1], [])
    bruce, jane = game.state.players
    knife, pan = give(game, bruce, "Kitchen Knife", "Frying Pan")
    result = attack(game, bruce, jane, weapons=[knife, pan], defence="dodge")
    assert result.attacker_dice == 6  # strength 3 + Knife 1 + Pan 2
    assert result.damage == 3 and jane.stats.get("health") == 2
    assert "Bruce rolls strength 3, Kitchen Knife and Frying Pan +3 = 6 dice" in lines(game)
    assert used_up(dice, answers)


def test_the_weapons_offered_fit_two_hands_and_one_stat(cards: CompiledPack) -> None:
    game, _, _ = new_game(cards, [])
    bruce = game.player
    give(game, bruce, "Kitchen Knife", "Frying Pan", "Broom", "Letter Opener", "Sneakers")
    assert [option.label for option in loadouts(bruce)] == [
        "unarmed",
        "Kitchen Knife",
        "Frying Pan",
        "Broom",
        "Letter Opener",
        "Kitchen Knife and Frying Pan",
    ]


@pytest.mark.parametrize(
    ("titles", "words"),
    [
        (("Kitchen Knife", "Frying Pan", "Kitchen Knife"), "take 3 hands"),
        (("Broom", "Kitchen Knife"), "take 3 hands"),
        (("Kitchen Knife", "Letter Opener"), "different stats (dexterity, strength)"),
        (("Sneakers",), "Sneakers is not a weapon"),
    ],
)
def test_loadouts_the_rules_refuse(
    cards: CompiledPack, titles: tuple[str, ...], words: str
) -> None:
    game, _, _ = new_game(cards, [])
    bruce, jane = game.state.players
    weapons = give(game, bruce, *titles)
    with pytest.raises(CombatError, match=re.escape(words)):
        attack(game, bruce, jane, weapons=weapons, defence="dodge")
    assert lines(game) == []  # refused before anything is rolled or logged


def test_a_weapon_not_carried_or_named_twice_is_refused(cards: CompiledPack) -> None:
    game, _, _ = new_game(cards, [])
    bruce, jane = game.state.players
    (knife,) = give(game, jane, "Kitchen Knife")
    with pytest.raises(CombatError, match="Bruce does not carry Kitchen Knife"):
        loadout(bruce, [knife])
    with pytest.raises(CombatError, match="named twice"):
        loadout(jane, [knife, knife])


def test_a_steal_takes_the_item_the_attacker_picks(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 5, 6] + [1] * 6, ["dodge", "Sneakers"])
    bruce, jane = game.state.players
    give(game, jane, "Chocolate Bar", "Sneakers")
    assert game.stat("dexterity", jane) == 4
    result = steal(game, bruce, jane)
    assert result.winner == "attacker" and result.damage == 0
    assert result.stolen is not None and result.stolen.title == "Sneakers"
    assert [i.title for i in jane.items] == ["Chocolate Bar"]
    assert [i.title for i in bruce.items] == ["Sneakers"]
    assert game.stat("dexterity", jane) == 3 and game.stat("dexterity", bruce) == 4
    assert lines(game)[-2:] == [
        "Bruce takes from Jane: Sneakers",
        "Bruce wins 3 to 0: takes Sneakers from Jane",
    ]
    assert jane.stats.get("health") == 5
    assert used_up(dice, answers)


def test_a_steal_from_empty_hands_takes_nothing(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 5, 6, 1, 1, 1, 1, 1], [])
    bruce, jane = game.state.players
    result = steal(game, bruce, jane, defence="dodge")
    assert result.winner == "attacker" and result.stolen is None
    assert lines(game)[-1] == "Bruce wins 3 to 0: Jane has nothing to take"
    assert used_up(dice, answers)


def test_bonus_next_attack_is_used_up_by_the_attack(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [1, 1, 1, 1, 1, 1, 1, 1, 1], [])
    bruce, jane = game.state.players
    bruce.bonuses.append(("attack", 1))
    bruce.bonuses.append(("dodge", 2))
    result = attack(game, bruce, jane, defence="dodge")
    assert result.attacker_dice == 4 and bruce.bonuses == [("dodge", 2)]
    assert "Bruce rolls strength 3, bonus +1 = 4 dice" in lines(game)
    assert used_up(dice, answers)


def test_a_counter_attack_takes_the_defenders_attack_bonus(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [1, 1, 1, 1, 1, 1, 1, 1, 1], [])
    bruce, jane = game.state.players
    jane.bonuses.append(("attack", 1))
    jane.bonuses.append(("counter-attack", 2))
    result = attack(game, bruce, jane, defence="counter-attack")
    assert result.defender_dice == 6 and jane.bonuses == []
    assert used_up(dice, answers)


def test_a_dodge_takes_the_dodge_bonus(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [1, 1, 1] + [1] * 6, [])
    bruce, jane = game.state.players
    jane.bonuses.append(("dodge", 1))
    result = attack(game, bruce, jane, defence="dodge")
    assert result.defender_dice == 6 and jane.bonuses == []
    assert "Jane rolls dexterity 3, dodge +2, bonus +1 = 6 dice" in lines(game)
    assert used_up(dice, answers)


def test_combat_can_kill_and_the_dead_do_not_fight(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [5, 5, 6] + [1] * 7, [])
    bruce, jane = game.state.players
    knife, pan = give(game, bruce, "Kitchen Knife", "Frying Pan")
    jane.stats.set("health", 2)
    result = attack(game, bruce, jane, weapons=[knife, pan], defence="dodge")
    assert result.damage == 3 and jane.dead and jane.stats.get("health") == 0
    assert lines(game)[-2:] == ["Jane: health 0: the character dies", "Jane dies"]
    with pytest.raises(CombatError, match="Jane is dead"):
        attack(game, bruce, jane, defence="dodge")
    assert used_up(dice, answers)


def test_fighters_must_share_a_space(cards: CompiledPack) -> None:
    game, _, _ = new_game(cards, [])
    bruce, jane = game.state.players
    jane.location = "hallway"
    with pytest.raises(CombatError, match="must share a space"):
        attack(game, bruce, jane, defence="dodge")
    with pytest.raises(CombatError, match="attacks, steals or uses medicine"):
        attack(game, bruce, bruce, "trip", defence="dodge")


def test_weapons_named_for_a_counter_attack_do_not_hurt_after_a_dodge(cards: CompiledPack) -> None:
    game, dice, answers = new_game(cards, [1, 1, 1, 5, 1, 1, 1, 1], [])
    bruce, jane = game.state.players
    (pan,) = give(game, jane, "Frying Pan")
    result = attack(game, bruce, jane, defence="dodge", defender_weapons=[pan])
    assert result.winner == "defender" and result.damage == 0
    assert bruce.stats.get("health") == 5
    assert used_up(dice, answers)
