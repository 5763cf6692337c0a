"""Coma Ward items: clothing that protects or raises the carry limit, charges, medicine attacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.games.coma_ward_combat import CombatError, attack
from runtime.games.coma_ward_rules import carry_limit, items_carried
from tests.helpers import make_pack, run
from tests.test_worked_examples import _compile, give, lines, new_game, used_up

ITEMS = """
item "Padded Coat" {
    type clothing
    protects 2
    while carried { carry limit +1 }
}
item "Scarf" {
    type clothing
    protects 1
}
item "Broom" {
    type weapon
    hands 2
    attack +4
    damage 3
}
item "Sedative Pen" {
    type medicine
    charges 3
    use { spend a use; lose terror 1 }
    use as an attack { gain terror 2 }
    test "three doses, then it is gone" {
        given terror 4
        use "Sedative Pen"
        use "Sedative Pen"
        expect terror == 2
        expect items carried == 0
        use "Sedative Pen"
        expect terror == 1
    }
}
item "Bandage" {
    type medicine
    use { discard this; gain health 1 }
}
hallucination "The Orderly" {
    situation "An orderly with no face swings a tray."
    option "Take it" { take 3 damage }
    option "Duck" { end turn }
    test "the coat takes most of the blow" {
        carry "Padded Coat"
        choose "Take it"
        choose yes
        expect health == 4
        expect carry limit == 3
    }
    test "the coat makes room" {
        carry "Padded Coat"
        choose "Duck"
        expect carry limit == 4
    }
    test "keeping the coat costs the whole blow" {
        carry "Padded Coat"
        choose "Take it"
        choose no
        expect health == 2
    }
}
"""


@pytest.fixture
def pack(tmp_path: Path) -> CompiledPack:
    return _compile(make_pack(tmp_path / "items", cards=ITEMS))


def test_the_card_tests_of_the_items_pass(tmp_path: Path) -> None:
    code, output = run("test", str(make_pack(tmp_path / "p", cards=ITEMS)))
    assert code == 0, output
    assert "4 passed" in output


def test_rules_text_of_the_new_vocabulary(tmp_path: Path) -> None:
    code, output = run("build", str(make_pack(tmp_path / "p", cards=ITEMS)), "--text")
    assert code == 0, output
    assert "Discard when hurt: −2 damage" in output
    assert "While carried: +1 to your carry limit." in output
    assert "3 uses" in output
    assert "Use: Spend a use of this item to reduce your Terror by 1." in output
    assert "Use as an attack; if you win, the loser: Increase your Terror by 2." in output
    assert "Take it: Take 3 damage." in output


def test_clothing_is_offered_piece_by_piece_until_the_damage_is_gone(pack: CompiledPack) -> None:
    game, dice, answers = new_game(pack, [], ["yes", "yes"], names=("Jane",))
    jane = game.player
    give(game, jane, "Scarf", "Padded Coat")
    orderly = next(c for c in pack.cards if c.title == "The Orderly")
    game.resolve(game.new_instance(orderly), orderly.options[0].run, "take it")
    assert jane.stats.get("health") == 5  # 3 damage: the scarf takes 1, the coat 2
    assert jane.items == []
    assert used_up(dice, answers)


def test_no_question_when_nothing_protects(pack: CompiledPack) -> None:
    game, _, _ = new_game(pack, [], [], names=("Jane",))
    orderly = next(c for c in pack.cards if c.title == "The Orderly")
    game.resolve(game.new_instance(orderly), orderly.options[0].run, "take it")
    assert game.player.stats.get("health") == 2


def test_a_medicine_kept_for_later_does_not_count_toward_the_limit(pack: CompiledPack) -> None:
    game, _, _ = new_game(pack, [], names=("Jane",))
    pen, _ = give(game, game.player, "Sedative Pen", "Bandage")
    assert items_carried(game, pen) == 1  # the bandage: a one-use medicine is carried
    assert carry_limit(game, pen) == 3


def test_clothing_in_combat_softens_the_winners_damage(pack: CompiledPack) -> None:
    # Bruce: strength 3 + broom 4 = 7 dice, three successes; Jane dodges on 5 dice, one.
    game, dice, answers = new_game(
        pack, [5, 6, 5, 1, 2, 3, 3, 1, 2, 3, 5, 2], ["Broom", "yes"], names=("Bruce", "Jane")
    )
    bruce, jane = game.state.players
    give(game, bruce, "Broom")
    give(game, jane, "Padded Coat")
    result = attack(game, bruce, jane, defence="dodge")
    assert result.winner == "attacker" and result.damage == 1
    assert jane.stats.get("health") == 4
    assert "discard Padded Coat to prevent 2 damage: yes" in lines(game)
    assert used_up(dice, answers)


def test_a_medicine_forced_on_the_loser_resolves_on_them(pack: CompiledPack) -> None:
    # Bruce attacks unarmed with the pen: strength 3 dice, two successes; Jane dodges, none.
    game, dice, answers = new_game(pack, [5, 6, 1, 1, 2, 3, 1, 2], names=("Bruce", "Jane"))
    bruce, jane = game.state.players
    [pen] = give(game, bruce, "Sedative Pen")
    result = attack(game, bruce, jane, "medicine", weapons=[], defence="dodge", medicine=pen)
    assert result.winner == "attacker"
    assert jane.stats.get("terror") == 3 and bruce.stats.get("terror") == 1
    assert game.player is bruce  # the turn is still Bruce's
    assert "Bruce wins 2 to 0: Jane is given Sedative Pen" in lines(game)
    assert used_up(dice, answers)


def test_a_medicine_attack_that_fails_keeps_the_medicine(pack: CompiledPack) -> None:
    game, _, _ = new_game(pack, [1, 1, 2, 5, 6, 1, 1, 2], names=("Bruce", "Jane"))
    bruce, jane = game.state.players
    [pen] = give(game, bruce, "Sedative Pen")
    result = attack(game, bruce, jane, "medicine", weapons=[], defence="dodge", medicine=pen)
    assert result.winner == "defender"
    assert jane.stats.get("terror") == 1 and pen in bruce.items


def test_only_a_medicine_with_an_attack_block_can_be_forced(pack: CompiledPack) -> None:
    game, _, _ = new_game(pack, [], names=("Bruce", "Jane"))
    bruce, jane = game.state.players
    [bandage] = give(game, bruce, "Bandage")
    with pytest.raises(CombatError, match="cannot be used as an attack"):
        attack(game, bruce, jane, "medicine", weapons=[], defence="dodge", medicine=bandage)
    with pytest.raises(CombatError, match="names its medicine"):
        attack(game, bruce, jane, "medicine", weapons=[], defence="dodge")


def test_odds_of_a_blow_split_on_the_clothing_question(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "p", cards=ITEMS)
    code, output = run("odds", str(pack), "The Orderly")
    assert code == 0, output
    assert "Take it" in output and "health -3" in output


def test_a_waiting_bonus_can_be_expected(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        cards="""item "Coffee" {
    type food
    use { discard this; bonus next focus +1 }
    test "perks up" {
        use "Coffee"
        expect bonus on next focus == 1
        expect bonus on next attack == 0
    }
}""",
    )
    code, output = run("test", str(pack))
    assert code == 0, output
    code, output = run("build", str(pack), "--text")
    assert "Use: Discard this item to add +1 to your next Focus check." in output


def test_a_failed_test_s_log_says_a_drawn_item_was_kept_in_front_not_carried(
    tmp_path: Path,
) -> None:
    pack = make_pack(
        tmp_path / "p",
        cards="""item "Tin" {
    type medicine
    charges 2
    use { spend a use; gain health 1 }
}
item "Shawl" {
    type clothing
    protects 1
}
hallucination "A Cupboard" {
    situation "A cupboard stands open."
    option "Look inside" { draw item 2 }
    test "a tin inside" {
        choose "Look inside"
        expect items carried == 2
    }
}""",
    )
    code, output = run("test", str(pack))
    assert code == 1, output
    assert "expected items carried == 2, but items carried is 0" in output
    assert "Tin is kept in front of the player, not carried: medicine with charges" in output
    assert "Shawl is clothing: it does not count toward the carry limit" in output
