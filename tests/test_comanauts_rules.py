"""Comanauts' turn beyond the seed's page, with forced dice through whole turns: clarity, the
reserve, focus, the inner child die and the vital signs; and the rule table of
docs/comanauts.md, each rule of the rulebook's page traced to a test that exists."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.datagame import legal_actions, setup, whole_game_of
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.comanauts_adventure import turn_to
from runtime.games.comanauts_items import defeat, equipped, gain_item
from runtime.games.comanauts_mind import reserved
from runtime.games.comanauts_turn import place_threat, refresh_bag
from runtime.rounds import play_round
from tests.conftest import ROOT
from tests.helpers import card, compiled

PACK = ROOT / "content" / "comanauts"

END = "end the turn"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _adventure(pack: CompiledPack, dice: list[int], answers: list[str], seats: int = 1) -> Game:
    """Seats set up at the first page, on forced dice and scripted answers."""
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, seats, 5)
    game.dice = ForcedDice(dice)
    game.decisions = ScriptedDecisions(answers)
    setup(pack.whole, game)
    return game


def _vitals_on_top(game: Game, pack: CompiledPack, *titles: str) -> None:
    """The vital signs deck's next cards, the first named on top."""
    pile = game.state.decks["vitals"]
    for title in reversed(titles):
        pile.append(game.new_instance(card(pack, title)))


def test_white_dice_drawn_are_rolled_for_clarity_then_pay_its_ability(
    pack: CompiledPack,
) -> None:
    # Of the bag's 49 (blue 1-8 ... threat 37-44, white 45-48, the inner child 49) the four
    # white dice are drawn, the 45th each time, then the first blue die. Each white die is
    # rolled alone: 1 meets no token, 1 meets one, 1 falls short of two, 5 meets two.
    answers = [
        "1 die",
        "1 die",
        "1 die",
        "use your clarity ability: spend 3 clarity tokens to draw 2 dice from the bag",
        END,
    ]
    game = _adventure(pack, [45, 45, 45, 45, 1, 1, 1, 1, 5, 1, 1], answers)
    assert play_round(game)
    lines = game.log.lines()
    assert "player 1 rolls 1 for clarity (has 2): gains nothing" in lines
    assert game.state.tallies["clarity gained"] == 3
    # The ability spends the three tokens and draws two dice: two more blue ones.
    assert game.stat("clarity") == 0 and game.state.tallies["took: clarity"] == 1
    assert any(line.endswith("player 1 draws 2 dice: 2 blue") for line in lines)
    assert game.state.tracks["white_bag"] == 0  # rolled, then discarded
    assert game.decisions.unused == []  # type: ignore[attr-defined]


def test_white_dice_rolled_together_reach_a_higher_number(pack: CompiledPack) -> None:
    game = _adventure(pack, [45, 45, 1, 1, 1, 4, 5], ["2 dice", END])
    game.player.stats.values["clarity"] = 8
    assert play_round(game)
    assert "player 1 rolls 9 for clarity (has 8): gains a clarity token" in game.log.lines()
    assert game.stat("clarity") == 9


def test_a_reserved_die_outlasts_the_discard_and_joins_the_next_turns_pool(
    pack: CompiledPack,
) -> None:
    # Turn one draws a red die (21) and four blue ones; the red goes onto the reserve slot,
    # the blue ones are discarded. Turn two draws five blue dice and takes the red back.
    answers = ["put a die on your reserve slot, to use on your next turn", "red", END, END]
    game = _adventure(pack, [21, 1, 1, 1, 1, *[1] * 5], answers)
    player = game.player
    assert play_round(game)
    assert reserved(player) == {"red": 1} and game.stat("red") == 0 and game.stat("blue") == 0
    assert game.state.tracks["red_bag"] == 7
    assert play_round(game)
    assert reserved(player) == {}
    assert "player 1 takes the reserved red die into the pool" in game.log.lines()
    assert game.decisions.unused == []  # type: ignore[attr-defined]


def test_a_refresh_leaves_the_reserved_die_on_its_slot(pack: CompiledPack) -> None:
    game = _adventure(pack, [], [])
    game.player.bonuses.append(("reserved:red", 1))
    game.state.tracks["red_bag"] = 5
    game.state.tracks["threat"] = 4  # safe, four dice: the page's effect, then a refresh
    _vitals_on_top(game, pack, "Steady Pulse")
    game.end_turn()
    assert game.state.tracks["red_bag"] == 7  # eight, but the one on the slot


def test_a_refresh_keeps_out_the_white_dice_drawn_and_not_yet_rolled(pack: CompiledPack) -> None:
    game = _adventure(pack, [], [])
    for kind in ("white", "child"):
        game.state.tracks[f"{kind}_bag"] = 0
    game.state.tracks["inner_child"] = 3
    refresh_bag(game, {"white": 2, "child": 0})  # a bag run dry mid-draw
    assert game.state.tracks["white_bag"] == 2 and game.state.tracks["child_bag"] == 1
    assert game.state.tracks["inner_child"] == 0  # the die left its slot for the bag


def test_focus_trades_two_dice_for_one_of_the_discard_pool(pack: CompiledPack) -> None:
    # Five blue dice drawn; focus spends two of them and takes a red die of the discard pool,
    # where three red dice lie (five in the bag).
    answers = ["focus: spend two dice, take one die from the discard pool", "blue", "blue"]
    answers += ["red", END]
    game = _adventure(pack, [1] * 5, answers)
    game.state.tracks["red_bag"] = 5
    assert play_round(game)
    lines = [line.strip() for line in game.log.lines()]
    focused = lines.index("player 1 focuses: a red die from the discard pool")
    assert lines[focused - 1] == "red 0 → 1 (+1)"
    assert lines.count("blue 5 → 4 (-1)") == 1 and lines.count("blue 4 → 3 (-1)") == 1
    assert "red 1 → 0 (-1)" in lines[focused:]  # discarded with the rest as the turn ends
    assert game.state.tracks["red_bag"] == 5


def test_the_inner_child_die_drawn_reveals_a_vital_signs_card(pack: CompiledPack) -> None:
    # The 49th die is the inner child: drawn first, then four blue dice; it is rolled (4) onto
    # its slot and the top vital signs card, a critical one, calls up the airlock's entry.
    game = _adventure(pack, [49, 1, 1, 1, 1, 4], [END])
    _vitals_on_top(game, pack, "Racing Heart", "Falling Pressure")
    assert play_round(game)
    assert game.state.tallies["inner child die drawn"] == 1
    assert game.state.tracks["inner_child"] == 4 and game.state.tracks["criticals"] == 1
    # The airlock's entry: two dice onto the threat track; safe with fewer than four, they wait.
    assert game.state.tracks["threat"] == 2
    assert game.state.tracks["child_bag"] == 0


def test_a_second_critical_card_on_a_page_does_nothing(pack: CompiledPack) -> None:
    # The second turn's bag is four blue dice short: the inner child die is its 45th.
    game = _adventure(pack, [49, 1, 1, 1, 1, 4, 45, 1, 1, 1, 1, 2], [END, END])
    _vitals_on_top(game, pack, "Racing Heart", "Falling Pressure")
    assert play_round(game)
    game.state.tracks["child_bag"] = 1  # the die back in the bag, as a refresh would put it
    assert play_round(game)
    assert game.state.tallies["critical vital signs resolved"] == 1
    assert game.state.tracks["criticals"] == 2 and game.state.tracks["threat"] == 2
    assert any(line.endswith("critical again on this page: no effect") for line in game.log.lines())


def test_the_flatline_revealed_loses_the_adventure(pack: CompiledPack) -> None:
    game = _adventure(pack, [49, 1, 1, 1, 1, 6], [END])
    _vitals_on_top(game, pack, "Flatline")
    play_round(game)
    assert game.state.over == "lost"
    assert "the game is lost: flatline == 1" in " ".join(game.log.lines())


def test_the_flatline_lies_under_the_shuffled_vital_signs(pack: CompiledPack) -> None:
    """`shuffle_into_top: {kinds: [vital], cards: 0}`: the stable and critical cards over the
    Flatline, in a new order each seed (the deck's end is its top)."""
    orders = set()
    for seed in range(6):
        deck = pack.new_game(players=1, seed=seed).state.decks["vitals"]
        assert [c.title for c in deck].index("Flatline") == 0 and len(deck) == 13
        orders.add(tuple(c.title for c in deck))
    assert len(orders) > 1


def test_an_avatar_out_reveals_a_vital_signs_card(pack: CompiledPack) -> None:
    game = _adventure(pack, [], [])
    _vitals_on_top(game, pack, "Steady Pulse")
    game.change("health", -6, game.player)
    assert game.state.tallies["avatars out"] == 1
    assert game.state.tracks["vital_signs_read"] == 1


# ---------------------------------------------------------------- the seed page's rules


def test_the_next_seat_plays_after_the_check_threat_and_the_enemies_turn(
    pack: CompiledPack,
) -> None:
    # At the corridor (hostile, a sentry on the bridge) seat one draws four blue dice and the
    # last threat die: its Check Threat brings the enemies' turn, then seat two's turn begins.
    game = _adventure(pack, [1, 1, 1, 1, 40, *[1] * 5], [END, END], seats=2)
    turn_to(game, game.new_instance(pack.cards[0]), title="The Whispering Corridor")
    assert play_round(game)
    lines = [line.strip() for line in game.log.lines()]
    order = [
        lines.index("player 1's turn ends"),
        lines.index("the enemies take a turn"),
        lines.index("player 2's turn begins"),
    ]
    assert order == sorted(order)


def test_a_defeated_hostile_returns_at_place_threat_and_an_id_never(pack: CompiledPack) -> None:
    game = _adventure(pack, [], ["discard"])
    here = game.player.location
    crawler = game.spawn("enemy", here, card(pack, "Hull Crawler"))
    game.spawn("enemy", "bridge", card(pack, "Drone Sentry"))
    wraith = game.spawn("enemy", here, card(pack, "Static Wraith"))
    game.state.tracks["hostile"] = 1
    defeat(game, crawler)  # its loot, the baton, is discarded
    defeat(game, wraith)
    assert [e.name for e in game.actors_of("enemy")] == ["Drone Sentry"]
    game.state.tracks["threat"] = 5  # more dice than enemies in play, while hostile
    place_threat(game)
    back = sorted(e.name for e in game.actors_of("enemy"))
    assert back[0] == "Drone Sentry" and back[1].startswith("Hull Crawler")
    assert game.actors_of("enemy")[-1].location == "engine"  # the page's enemy space
    place_threat(game)  # the wraith, an I.D., is not set aside to return
    assert len(game.actors_of("enemy")) == 2


def test_a_melee_attack_reaches_only_the_attackers_space(pack: CompiledPack) -> None:
    game = _adventure(pack, [], [])
    assert pack.whole is not None
    game.spawn("enemy", "corridor", card(pack, "Drone Sentry"))
    game.set_stat("red", 1)
    game.set_stat("green", 1)
    game.state.phase = "players"
    game.set_stat("dice_actions", 5)
    legal = {a.name for a in legal_actions(pack.whole, game, game.player, set())}
    assert "ranged" in legal and "melee" not in legal
    game.player.location = "corridor"
    legal = {a.name for a in legal_actions(pack.whole, game, game.player, set())}
    assert "melee" in legal


def test_a_group_task_takes_dice_from_any_space(pack: CompiledPack) -> None:
    game = _adventure(pack, [3], ["1 die"])
    game.player.location = "engine"  # the airlock's task, from the far end of the ship
    game.set_stat("red", 1)
    game.module.procedures["work"](game, game.player)
    assert game.state.in_play["page"].tokens["progress"] == 3


def test_an_item_gained_may_go_to_a_player_on_the_same_space(pack: CompiledPack) -> None:
    game = _adventure(pack, [], ["give to player 2", "equip", "the hand slot"], seats=2)
    giver, taker = game.state.players
    assert giver.location == taker.location
    revolver = game.new_instance(card(pack, "Service Revolver"))
    gain_item(game, giver, revolver)
    assert equipped(game, taker, revolver) == ("hand",)
    assert revolver not in giver.items
    taker.location = "cargo"  # on another space, no one to give it to
    choices: list[str] = []

    class Look:
        def decide(self, decision: object) -> int:
            choices.extend(decision.choices)  # type: ignore[attr-defined]
            return 0

    game.decisions = Look()
    gain_item(game, giver, game.new_instance(card(pack, "Field Radio")))
    assert not any(choice.startswith("give") for choice in choices)


def test_no_avatar_suffers_the_same_status_twice(pack: CompiledPack) -> None:
    game = _adventure(pack, [], [])
    for _ in range(2):
        game.module.verbs["suffer"](game, game.new_instance(pack.cards[0]), title="Shaken")
    assert [c.title for c in game.player.items] == ["Shaken"]


# ---------------------------------------------------------------- the rule table
