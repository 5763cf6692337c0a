"""Coma Ward's phenomenon act: each phenomenon's setup, its rules of a round and a turn, its
enemies, the goals of each mode, and whole games played to their end."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.build import CompiledPack
from compiler.rulestext import card_text
from runtime.datagame import main_action, table_module
from runtime.decisions import Defaults, PresetThenAsk
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.coma_ward_enemies import nearest_character
from runtime.games.coma_ward_game import (
    REVEALED,
    end_prologue,
    setup,
)
from runtime.games.coma_ward_phenomena import (
    ACT,
    PHENOMENON,
    act_turn_ended,
    fought,
    narrator_of,
    play_act,
    round_ends,
    set_up,
)
from runtime.state import Player
from tests.conftest import ROOT
from tests.helpers import card, coma_ward_whole, compiled, seat_turn

PACK = ROOT / "content" / "coma-ward"
PHENOMENA = (
    "High Water",
    "The Understudy",
    "Discharge Papers",
    "Doing the Rounds",
    "Sealed Records",
    "The Last Dose",
    "The Generator",
    "Informed Consent",
    "The Waiting List",
    "Flatline",
)


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _act(
    pack: CompiledPack,
    title: str,
    players: int = 4,
    dice: list[int] | None = None,
    answers: tuple[str, ...] = (),
    seed: int = 1,
) -> Game:
    """A game past its prologue with the phenomenon put in play directly and set up, the
    first seat narrating; forced dice if given, default answers after the scripted ones."""
    game = Game(
        pack.rules,
        pack.cards,
        table_module(pack.rules, pack.whole),
        seed=seed,
        players=players,
        dice=ForcedDice(dice) if dice is not None else None,
        decisions=PresetThenAsk(answers, Defaults()),
    )
    setup(game)
    game.state.round = 1  # a prologue was played: the act's rounds are rounds
    game.state.flags.add(REVEALED)
    game.state.in_play[PHENOMENON] = game.new_instance(card(pack, title))
    set_up(game, game.state.players[0])
    return game


def _events(game: Game, kind: str) -> list[Any]:
    return [event for event in game.log.events if event.kind == kind]


def _end_turn(game: Game, player: Player) -> None:
    game.state.current = game.state.players.index(player)
    player.turn_over = False
    game.end_turn()


# -- printing ---------------------------------------------------------------------------
def test_a_block_whose_text_is_empty_is_not_printed(pack: CompiledPack) -> None:
    ir = next(c for f in pack.checked.files for c in f.cards if c["title"] == "High Water")
    text = card_text(pack.checked.ruleset, ir)
    headers = [header for header, _ in text.blocks]
    # The setup and goals are played by blocks, printed once by the `setup` and `goal` lines.
    assert headers == ["At the end of each round", "When the phenomenon is revealed"]
    assert "climbs one floor" in text.blocks[0][1]
    assert sum("waterline" in printed for _, printed in text.properties) == 2


# -- setups -----------------------------------------------------------------------------
def test_the_setup_follows_the_introduction_with_the_narrator_as_you(pack: CompiledPack) -> None:
    game = _act(pack, "Discharge Papers")
    narrator = game.state.players[0]
    assert narrator_of(game) is narrator and ACT in game.state.flags
    (intro,) = _events(game, "introduction")
    assert intro.data["mode"] == "competitive" and "printer" in intro.text
    assert [i.title for i in narrator.items] == ["Discharge"]


def test_secret_roles_are_dealt_face_down_as_the_setup_says(pack: CompiledPack) -> None:
    game = _act(pack, "The Understudy", players=4)
    narrator, *others = game.state.players
    assert not [c for c in narrator.owned if c.kind == "role"]
    roles = sorted(c.title for p in others for c in p.owned if c.kind == "role")
    assert roles == ["Patient", "Patient", "Understudy"]
    consent = _act(pack, "Informed Consent", players=3)
    dealt = sorted(c.title for p in consent.state.players for c in p.owned if c.kind == "role")
    assert dealt == ["Investigator", "Subject", "Subject"]
    records = _act(pack, "Sealed Records", players=5)
    titles = [c.title for p in records.state.players for c in p.owned if c.kind == "record"]
    assert len(set(titles)) == 5  # one Record card each, all different


def test_the_last_dose_goes_into_the_bottom_half_of_the_item_deck(pack: CompiledPack) -> None:
    game = _act(pack, "The Last Dose")
    pile = game.state.decks["item"]
    where = next(i for i, c in enumerate(pile) if c.title == "Last Dose")
    assert where <= len(pile) // 2  # the top card is the list's last


def test_mats_start_with_three_pills(pack: CompiledPack) -> None:
    game = _act(pack, "The Waiting List")
    for player in game.state.players:
        (mat,) = [c for c in player.owned if c.kind == "role"]
        assert mat.tokens["pill"] == 3


# -- the rules of a round and a turn ----------------------------------------------------
def test_the_waterline_climbs_a_floor_a_round_and_floods_below(pack: CompiledPack) -> None:
    game = _act(pack, "High Water", players=2)
    low, high = game.state.players
    low.location, high.location = "f1-west", "f2-west"
    (water,) = game.actors_of("waterline")
    assert water.location == "f1-stairs"
    round_ends(game)
    assert water.location == "f2-stairs"
    assert low.stats.get("health") == 4 and high.stats.get("health") == 5  # below it: floor 1
    assert not game.ended
    round_ends(game)  # the top floor: everyone loses
    assert water.location == "f3-stairs" and high.stats.get("health") == 4
    assert game.state.over == "lost" and game.state.winners == []


def test_high_water_is_won_when_everyone_alive_ends_a_round_on_the_roof(
    pack: CompiledPack,
) -> None:
    game = _act(pack, "High Water", players=3)
    first, second, third = game.state.players
    first.location = second.location = "roof"
    game.kill(third, "drowned")
    _end_turn(game, first)  # a turn's end is no round's end
    assert not game.ended
    round_ends(game)
    assert game.state.over == "won"
    assert game.state.winners == [p.name for p in game.state.players]  # the dead too


def test_the_matron_walks_two_spaces_toward_the_nearest_character(pack: CompiledPack) -> None:
    game = _act(pack, "Doing the Rounds", players=2, dice=[1, 1, 1, 1])
    near, far = game.state.players
    near.location, far.location = "f3-west", "f1-east"
    (matron,) = game.actors_of("matron")
    found = nearest_character(game, matron)
    assert found is not None and found[0] is near
    round_ends(game)  # she walks, then finds no one on her space
    assert matron.location == "f2-stairs"  # nurses' station, f2-west, f2-stairs
    assert [e.text for e in _events(game, "enemy")][-1] == "matron has no one to attack"
    assert game.dice.unused == [1, 1, 1, 1]  # type: ignore[attr-defined]


def test_the_matron_attacks_with_four_dice_and_a_dodge_answers(pack: CompiledPack) -> None:
    # Her 4 dice: 2 successes; a dodge of 5 dice (Dexterity 3, +2): 1 success.
    game = _act(pack, "Doing the Rounds", players=2, dice=[5, 5, 1, 1, 5, 1, 1, 1, 1])
    victim, other = game.state.players
    other.location = "roof"
    round_ends(game)
    assert victim.stats.get("health") == 4 and other.stats.get("health") == 5
    # A dodge that beats her: no harm; a counter-attack that wins only fends her off.
    calm = _act(pack, "Doing the Rounds", players=2, dice=[5, 1, 1, 1, 5, 6, 3], seed=2)
    calm.state.players[1].location = "roof"
    calm.decisions = PresetThenAsk(["counter-attack"], Defaults())
    round_ends(calm)
    assert calm.state.players[0].stats.get("health") == 5 and calm.actors_of("matron")


def test_a_dodge_that_beats_the_matron_lets_the_character_step_away(pack: CompiledPack) -> None:
    # Her 4 dice: 1 success; the dodge's 5 dice: 2. As in any fight, the character who wins
    # by a dodge may step one space away (rulebook 237, 268).
    game = _act(pack, "Doing the Rounds", players=2, dice=[5, 1, 1, 1, 5, 6, 1, 1, 1])
    victim, other = game.state.players
    other.location = "roof"
    game.decisions = PresetThenAsk(["dodge", "walk to f2-west"], Defaults())
    round_ends(game)
    (matron,) = game.actors_of("matron")
    assert victim.stats.get("health") == 5 and victim.location == "f2-west"
    assert matron.location == "nurses-station"


def test_pills_go_on_rooms_at_the_end_of_a_turn_and_six_rooms_win(pack: CompiledPack) -> None:
    game = _act(pack, "Doing the Rounds", players=2)
    player = game.state.players[1]
    rooms = [c for c in game.state.decks["room"]][:6]
    slots = [s for s in pack.rules.world.board.slots][:6]
    for slot, room in zip(slots, rooms, strict=True):
        game.state.in_play[slot] = room
    player.location = "f2-west"
    _end_turn(game, player)
    assert not any(room.tokens.get("pill") for room in rooms)  # not in a room
    for slot in slots[:5]:
        player.location = slot
        _end_turn(game, player)
        _end_turn(game, player)  # a room with a pill gets no second one
    assert sum(room.tokens.get("pill", 0) for room in rooms) == 5 and not game.ended
    player.location = slots[5]
    _end_turn(game, player)
    assert game.state.over == "won"


def test_a_death_in_the_act_loses_doing_the_rounds(pack: CompiledPack) -> None:
    game = _act(pack, "Doing the Rounds", players=3)
    game.kill(game.state.players[2], "worn out")
    _end_turn(game, game.state.players[0])
    assert game.state.over == "lost"


def test_fuel_burns_each_round_and_food_on_the_elevator_adds_it_back(pack: CompiledPack) -> None:
    game = _act(pack, "The Generator", players=2)
    assert game.state.tracks["fuel"] == 6
    round_ends(game)
    assert game.state.tracks["fuel"] == 5
    player = game.state.players[1]
    food = game.new_instance(card(pack, "Hospital Jelly"))
    player.items.append(food)
    player.location = "f1-elevator"
    game.decisions = PresetThenAsk(["yes"], Defaults())
    _end_turn(game, player)
    assert game.state.tracks["fuel"] == 6 and food not in player.items
    for _ in range(5):
        round_ends(game)
    assert game.state.tracks["fuel"] == 1 and not game.ended
    round_ends(game)
    assert game.state.over == "lost"


def test_eight_rounds_with_fuel_left_win_the_generator(pack: CompiledPack) -> None:
    game = _act(pack, "The Generator", players=2)
    game.state.tracks["fuel"] = 6
    for _ in range(7):
        round_ends(game)
        game.state.tracks["fuel"] = 6  # someone keeps feeding it
    assert not game.ended
    round_ends(game)
    assert game.state.over == "won" and game.state.tracks["rounds"] == 8


def test_the_winner_of_a_fight_takes_a_pill_from_the_losers_mat(pack: CompiledPack) -> None:
    # Unarmed: 3 dice each; the attacker's 2 successes beat a counter-attack's 1.
    game = _act(pack, "The Waiting List", players=2, dice=[5, 6, 1, 5, 1, 1])
    attacker, defender = game.state.players
    game.decisions = PresetThenAsk(["attack player 2", "counter-attack"], Defaults())
    game.state.current = 0
    main_action(pack.whole, game, attacker)
    mats = {p.name: next(c for c in p.owned if c.kind == "role") for p in game.state.players}
    assert mats[attacker.name].tokens["pill"] == 4 and mats[defender.name].tokens["pill"] == 2
    # A tie is won by nobody: no pill moves.
    tie = _act(pack, "The Waiting List", players=2, dice=[5, 1, 1, 6, 1, 1])
    tie.decisions = PresetThenAsk(["attack player 2", "dodge"], Defaults())
    tie.state.players[1].stats.set("health", 1)  # a dodge of 3 dice: Dexterity 1, +2
    main_action(pack.whole, tie, tie.state.players[0])
    assert all(
        c.tokens["pill"] == 3 for p in tie.state.players for c in p.owned if c.kind == "role"
    )


def test_the_default_player_heads_where_the_phenomenon_says(pack: CompiledPack) -> None:
    game = _act(pack, "High Water", players=2)
    climber = game.state.players[1]
    climber.location = "f3-west"
    game.state.current = 1
    seat_turn(game, climber)
    assert climber.location == "roof"
    portals = _act(pack, "Flatline", players=2)
    walker = portals.state.players[1]
    walker.location = "f3-east"
    portals.state.current = 1
    seat_turn(portals, walker)
    assert walker.location == "f3-middle"


# -- the goals of each mode -------------------------------------------------------------
def test_the_understudy_wins_if_the_narrator_dies(pack: CompiledPack) -> None:
    game = _act(pack, "The Understudy", players=3)
    narrator = game.state.players[0]
    understudy = next(
        p for p in game.state.players if any(c.title == "Understudy" for c in p.owned)
    )
    game.kill(narrator, "replaced")
    act_turn_ended(game, understudy)
    assert game.state.over == "won" and game.state.winners == [understudy.name]
    assert game.snapshot()["winners"] == [understudy.name]  # as `play --json` shows it


def test_everyone_else_wins_if_the_understudy_dies_first(pack: CompiledPack) -> None:
    game = _act(pack, "The Understudy", players=3)
    understudy = next(
        p for p in game.state.players if any(c.title == "Understudy" for c in p.owned)
    )
    game.kill(understudy, "unmasked")
    act_turn_ended(game, game.state.players[0])
    others = [p.name for p in game.state.players if p is not understudy]
    assert game.state.over == "won" and game.state.winners == others


def test_informed_consent_goes_to_the_investigator_or_the_subjects(pack: CompiledPack) -> None:
    game = _act(pack, "Informed Consent", players=4)
    investigator = next(
        p for p in game.state.players if any(c.title == "Investigator" for c in p.owned)
    )
    subjects = [p for p in game.state.players if p is not investigator]
    game.kill(subjects[0], "trial")
    act_turn_ended(game, investigator)
    assert not game.ended
    game.kill(subjects[1], "trial")
    act_turn_ended(game, investigator)
    assert game.state.winners == [investigator.name]
    safe = _act(pack, "Informed Consent", players=4)
    safe.state.decks["item"].clear()  # the item deck runs out with every subject alive
    act_turn_ended(safe, safe.state.players[0])
    assert safe.state.over == "won" and len(safe.state.winners) == 3


def test_competitive_goals_have_one_winner(pack: CompiledPack) -> None:
    papers = _act(pack, "Discharge Papers", players=3)
    narrator = papers.state.players[0]
    narrator.location = "nurses-station"
    _end_turn(papers, narrator)
    assert papers.state.winners == [narrator.name]
    dose = _act(pack, "The Last Dose", players=3)
    holder = dose.state.players[2]
    pill = next(c for c in dose.state.decks["item"] if c.title == "Last Dose")
    dose.state.decks["item"].remove(pill)
    holder.items.append(pill)
    dose.state.current = 2
    dose.use(pill)
    assert dose.state.over == "won" and dose.state.winners == [holder.name]
    empty = _act(pack, "The Last Dose", players=3)
    empty.state.decks["item"].clear()
    act_turn_ended(empty, empty.state.players[1])
    assert empty.state.over == "lost" and empty.state.winners == []


def test_the_waiting_list_is_won_by_six_pills_or_by_the_last_one_alive(
    pack: CompiledPack,
) -> None:
    game = _act(pack, "The Waiting List", players=3)
    player = game.state.players[1]
    next(c for c in player.owned if c.kind == "role").tokens["pill"] = 6
    _end_turn(game, player)
    assert game.state.winners == [player.name]
    last = _act(pack, "The Waiting List", players=3)
    for loser in last.state.players[1:]:
        last.kill(loser, "taken off the list")
    act_turn_ended(last, last.state.players[0])
    assert last.state.winners == [last.state.players[0].name]


def test_flatline_is_won_on_the_portals_and_lost_with_the_narrator(pack: CompiledPack) -> None:
    game = _act(pack, "Flatline", players=2)
    assert sorted(a.location or "" for a in game.actors_of("portal")) == ["f1-middle", "f3-middle"]
    first, second = game.state.players
    first.location, second.location = "f1-middle", "f3-middle"
    round_ends(game)
    assert game.state.over == "won" and len(game.state.winners) == 2
    lost = _act(pack, "Flatline", players=2)
    lost.kill(lost.state.players[0], "the monitor stops")
    act_turn_ended(lost, lost.state.players[1])
    assert lost.state.over == "lost"


def test_a_table_with_no_one_alive_has_lost(pack: CompiledPack) -> None:
    game = _act(pack, "Sealed Records", players=2)
    for player in game.state.players:
        game.kill(player, "gone")
    act_turn_ended(game, game.state.players[0])
    assert game.state.over == "lost"


# -- the act played -----------------------------------------------------------------------
@pytest.mark.parametrize("title", PHENOMENA)
def test_each_phenomenon_plays_its_act_to_an_end(pack: CompiledPack, title: str) -> None:
    game = _act(pack, title, players=4, seed=7)
    game.decisions = PresetThenAsk([], Defaults())
    play_act(game, round_limit=12)
    (epilogue,) = _events(game, "epilogue")
    assert epilogue.data["result"] == game.state.over
    if game.state.over is None:
        assert _events(game, "act")[0].data["rounds"] == 12
    # The narrator (seat 1) plays last: the next seat takes the act's first turn.
    turns = [e.data["actor"] for e in _events(game, "turn") if "begins" in e.text]
    assert turns[0] == "player 2"
    assert _events(game, "decide")  # the act's turns are played, as the prologue's were


def test_dead_players_stay_dead_in_the_act(pack: CompiledPack) -> None:
    game = _act(pack, "Sealed Records", players=3, seed=3)
    dead = game.state.players[1]
    game.kill(dead, "lost in the prologue")
    start = len(game.log.events)
    play_act(game, round_limit=3)
    later = game.log.events[start:]
    assert not [e for e in later if e.kind == "turn" and e.data.get("actor") == dead.name]


def test_an_order_off_the_chart_plays_the_phenomenon_picked(pack: CompiledPack) -> None:
    game = Game(
        pack.rules,
        pack.cards,
        table_module(pack.rules, pack.whole),
        seed=5,
        players=3,
        decisions=Defaults(),
    )
    setup(game)
    game.state.round = 1
    game.state.flags.add(REVEALED)  # the third clue, in an order not on the chart
    end_prologue(game)
    picked = game.state.in_play[PHENOMENON].title
    play_act(game, round_limit=2)
    assert _events(game, "introduction")[0].data["phenomenon"] == picked
    assert coma_ward_whole().outcome(game).labels["order on the chart"] == "no"


@pytest.mark.parametrize("seed", range(4))
def test_seeded_four_player_games_play_to_the_end(pack: CompiledPack, seed: int) -> None:
    whole = coma_ward_whole()
    assert whole.phases == ("prologue", "end")
    game = whole.new_game(pack.rules, pack.cards, 4, seed)
    whole.play(game, "end")
    result = whole.outcome(game)
    assert result.labels["mode"] in {"cooperative", "secret", "competitive", "none"}
    if result.result is not None:
        assert set(result.winners) <= {p.name for p in game.state.players}
        assert _events(game, "epilogue")
    else:
        assert result.stopped is not None
    with pytest.raises(ValueError, match="prologue, end"):
        whole.play(whole.new_game(pack.rules, pack.cards, 4, seed), "epilogue")


def test_a_fight_before_the_act_runs_no_phenomenon_rule(pack: CompiledPack) -> None:
    game = Game(pack.rules, pack.cards, table_module(pack.rules, pack.whole), seed=1, players=2)
    setup(game)
    game.state.in_play[PHENOMENON] = game.new_instance(card(pack, "The Waiting List"))
    first, second = game.state.players
    fought(game, first, second)
    assert ACT not in game.state.flags and not _events(game, "target")
