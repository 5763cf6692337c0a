"""Lobotomy played whole from its ruleset's `game:` section: the board set, the players' turn of
AP actions, the monsters' turn in its seven steps, a scenario jump, the Final Clash, and sweeps
that give the same figures on one and two workers."""

from __future__ import annotations

import os
import shutil

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.datagame import legal_actions, setup, take_turn, whole_game_of
from runtime.decisions import Decision
from runtime.game import Game
from runtime.games import lobotomy
from runtime.games.lobotomy_clash import clash_begun, is_warden
from runtime.games.lobotomy_inventory import trades
from runtime.games.lobotomy_table import MEMORY_TOKEN
from runtime.policies import policy_named, seat_policies
from runtime.rounds import play_round
from runtime.simulation.record import Sweep, play_game
from runtime.state import Player
from runtime.whole import game_seed
from runtime.wholerules import ActionRule, WholeRules
from tests.conftest import ROOT
from tests.helpers import card, compiled, run, sweep_figures

PACK = ROOT / "content" / "lobotomy"

GAMES = int(os.environ.get("PILLBOX_WHOLE_GAMES", "20"))
"""Games a sweep of this suite plays: `make fuzz` plays a thousand."""

STEPS = (
    "event_effects",
    "special_event",
    "spawn_memories",
    "move_warden",
    "move_monsters",
    "spawn_monsters",
    "monsters_attack",
)


class EndEveryTurn:
    """A seat that takes no action; asked anything else, the rule's answer."""

    def decide(self, decision: Decision) -> int:
        if decision.kind == "action":
            return 0
        return decision.default or 0


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _table(pack: CompiledPack, seats: int, scenario: str | None = None) -> Game:
    """A game set up as the data says, the scenario of that title on top of its deck."""
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, seats, 9)
    game.decisions = EndEveryTurn()
    if scenario is not None:
        deck = game.state.decks["scenario"]
        deck.sort(key=lambda card: card.title == scenario)  # the top card is the last
    setup(pack.whole, game)
    return game


def _top(game: Game, deck: str, title: str) -> CardInstance:
    pile = game.state.decks[deck]
    card = next(c for c in pile if c.title == title)
    pile.remove(card)
    pile.append(card)
    return card


def test_the_board_is_set_with_tokens_monsters_and_a_character_a_seat(
    pack: CompiledPack,
) -> None:
    game = _table(pack, 3)
    assert [p.owned[0].kind for p in game.state.players] == ["character"] * 3
    assert game.state.floor.get("central"), "a body lies on the pentagram"
    memory = [f for f in game.state.flags if f.startswith(f"{MEMORY_TOKEN}:")]
    assert len(memory) == 8
    monsters = [a for a in game.state.others if a.kind == "monster"]
    assert len(monsters) >= 4
    assert game.state.labels["difficulty"] == "4"
    assert game.state.labels["first scenario"] != "none"


def test_the_players_turn_offers_the_actions_a_space_allows(pack: CompiledPack) -> None:
    assert pack.whole is not None
    game = _table(pack, 3)
    player = game.state.players[0]
    game.state.phase = "players"
    player.location = "A5"
    game.state.floor["A5"] = []
    game.state.others.clear()  # no monster here
    game.state.flags = {f for f in game.state.flags if not f.startswith(MEMORY_TOKEN)}
    names = [a.name for a in legal_actions(pack.whole, game, player, set())]
    assert "move" in names and "search" not in names and "fists" not in names
    assert "memory" not in names and "reveal" not in names
    game.state.flags.add(f"{MEMORY_TOKEN}:A5")
    names = [a.name for a in legal_actions(pack.whole, game, player, set())]
    assert "memory" in names
    player.stats.set("ap", 0)
    names = [a.name for a in legal_actions(pack.whole, game, player, set())]
    assert "move" not in names and "memory" not in names


def test_a_memory_token_picked_up_draws_from_your_memory_deck(pack: CompiledPack) -> None:
    assert pack.whole is not None
    game = _table(pack, 3)
    player = game.state.players[0]
    game.state.phase = "players"
    player.location = "B2"
    game.state.flags.add(f"{MEMORY_TOKEN}:B2")
    memories = sum(1 for card in player.owned if card.kind == "memory")
    game.module.procedures["pick_up_memory"](game, player)
    assert f"{MEMORY_TOKEN}:B2" not in game.state.flags
    assert sum(1 for card in player.owned if card.kind == "memory") == memories + 1


def test_the_monsters_turn_runs_its_seven_steps_in_order(pack: CompiledPack) -> None:
    game = _table(pack, 3)
    with game.recording() as events:
        play_round(game)
    steps = [e.text.split(": ", 1)[1] for e in events if e.kind == "step"]
    assert tuple(s for s in steps if s in STEPS) == STEPS


def test_a_scenario_jump_in_the_first_round(pack: CompiledPack) -> None:
    # Counting Sheep with two characters: its handicaps give 2 progress, the round's start
    # a third, and the end of the first turn checks its jump: the next scenario begins.
    game = _table(pack, 3, "Counting Sheep")
    assert game.state.labels["first scenario"] == "Counting Sheep"
    play_round(game)
    titles = [c.title for slot, c in game.state.in_play.items() if slot.startswith("scenario:")]
    assert titles[0] == "Counting Sheep" and len(titles) == 2


def test_the_final_clash_begins_when_the_warden_passes_the_end(pack: CompiledPack) -> None:
    game = _table(pack, 3)
    game.state.tracks["insomnia"] = 47
    _top(game, "movement", "Lights Flicker")  # the warden moves
    play_round(game)
    assert clash_begun(game)
    warden = next(a for a in game.state.others if is_warden(a))
    assert warden.location == "central" and warden.kind == "monster"  # a monster to defeat


def test_play_game_prints_a_whole_game() -> None:
    code, output = run("play", str(PACK), "--game", "--players", "3", "--seed", "4")
    assert code == 0, output
    assert "monsters: monsters_attack" in output and "an action, or end the turn" in output
    assert "the game is " in output


def test_a_whole_game_is_three_to_five_characters(pack: CompiledPack) -> None:
    # Rulebook 217: three to five characters, fewer players each playing more than one. A
    # sweep of one or two characters would give figures of a game no table plays.
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    assert whole.players == (3, 5)
    for seats in (2, 6):
        with pytest.raises(ValueError, match="3 to 5"):
            whole.new_game(pack.rules, pack.cards, seats, 1)
    code, output = run("simulate", str(PACK), "--players", "2", "--games", "1")
    assert code == 2 and "3 to 5" in output and "Traceback" not in output


def test_a_sweep_gives_the_same_figures_on_one_and_two_workers() -> None:
    options = ("--games", str(GAMES), "--players", "3", "--seed", "13")
    figures = [sweep_figures(PACK, *options, "--workers", w) for w in ("1", "2")]
    assert figures[0] == figures[1]
    assert figures[0]["played"] == GAMES  # no game failed
    text = str(figures[0])
    for figure in ("final clash reached", "first scenario", "difficulty", "took: move"):
        assert figure in text


def test_the_actions_are_offered_in_the_order_the_ruleset_writes_them(
    pack: CompiledPack,
) -> None:
    # A bundled ruleset is read back from JSON with its keys sorted: the order is the lines'.
    assert pack.whole is not None
    assert [a.name for a in pack.whole.actions][:3] == ["move", "search", "reveal"]


class EveryDieShows:
    """Forced dice: every die shows the same face (its top, when it has fewer sides)."""

    def __init__(self, face: int) -> None:
        self.face = face

    def roll(self, sides: int) -> int:
        return min(self.face, sides)


@pytest.mark.parametrize(("face", "hurt"), [(1, False), (6, True)])
def test_the_monsters_attack_step_with_forced_dice(
    pack: CompiledPack, face: int, hurt: bool
) -> None:
    # The characters on the central piece with a monster beside them; every die a 1 (no
    # attack die meets an attack rating) or a 6 (every one does, past any Defense).
    game = _table(pack, 3)
    player = game.state.players[0]
    # the monster of the most dice, whose 6s pass the character's Defense whatever it is
    monster = max(
        (a for a in game.state.others if a.kind == "monster"), key=lambda a: a.stats.get("dice")
    )
    monster.location = player.location = "central"
    game.dice = EveryDieShows(face)
    with game.recording() as events:
        play_round(game)
    attacks = [e for e in events if e.kind == "attack" and e.data.get("attacker") == monster.name]
    assert attacks, "the monster beside the character attacks in step 7"
    # what the attacks did (to health or armor): a scenario's event may have hurt before them
    step = next(i for i, e in enumerate(events) if e.text == "monsters: monsters_attack")
    wounds = [
        e
        for e in events[step:]
        if e.kind in ("death", "armor") or (e.kind == "stat" and e.data.get("stat") == "health")
    ]
    assert bool(wounds) is hurt


def test_a_monster_killed_is_not_counted_among_the_deaths() -> None:
    """The figures' deaths are the seats' characters': a monster's death is logged, never
    counted with them."""
    pack = compiled(PACK)
    whole = whole_game_of(pack.rules, pack.whole)
    sweep = Sweep(3, 3, ("random",) * 3, whole.phases[-1], whole.phases)
    monsters = seats = 0
    for index in range(4):
        record = play_game(whole, pack.rules, pack.cards, sweep, index)
        game = whole.new_game(pack.rules, pack.cards, 3, game_seed(3, index))
        seat_policies(game, policy_named("random"))
        whole.play(game, whole.phases[-1])
        names = {player.name for player in game.state.players}
        died = [e.data.get("player") for e in game.log.events if e.kind == "death"]
        seats += sum(1 for name in died if name in names)
        monsters += sum(1 for name in died if name not in names)
        assert len(record.death_rounds) == sum(1 for name in died if name in names)
    assert monsters > 0 and seats > 0


# ---------------------------------------------------------------- the rules a whole game needs

BEGINNER = """\
ruleset: lobotomy-beginner
title: Lobotomy, Paranoid Beginner
version: 1
extends: lobotomy
runtime: lobotomy
tracks:
  scenarios: {min: 0, max: 1, start: 0, summary: "one scenario: the patrol ends at A12"}
"""


@pytest.fixture(scope="module")
def beginner(tmp_path_factory: pytest.TempPathFactory) -> CompiledPack:
    """The starter pack at Paranoid Beginner: one scenario (its ruleset's `scenarios` most)."""
    folder = tmp_path_factory.mktemp("beginner")
    shutil.copytree(PACK / "starter" / "cards", folder / "cards")
    (folder / "ruleset.yaml").write_text(BEGINNER, encoding="utf-8")
    (folder / "pack.yaml").write_text(
        "pack: beginner\ntitle: Beginner\nversion: 0.1.0\nruleset: ruleset.yaml\n", encoding="utf-8"
    )
    return compiled(folder)


@pytest.mark.parametrize(("insomnia", "clash"), [(10, False), (11, True)])
def test_at_one_scenario_the_patrol_ends_at_a12(
    beginner: CompiledPack, insomnia: int, clash: bool
) -> None:
    # Rulebook 266, 875-883: the Warden's journey ends at A12 on Paranoid Beginner; moved on
    # from there, he goes to the pentagram and the Final Clash begins (not at D12).
    game = _table(beginner, 3)
    game.state.tracks["insomnia"] = insomnia
    play_round(game)  # every movement card of the starter moves the Warden
    assert clash_begun(game) is clash
    warden = next(a for a in game.state.others if is_warden(a))
    assert warden.location == ("central" if clash else "A12")


def test_in_the_final_clash_the_warden_walks_the_track_no_more(pack: CompiledPack) -> None:
    # Rulebook 1019: on the pentagram the Warden moves as a monster; a movement card's Warden
    # symbol no longer pushes the track past its end, so the clash's blocks (a scenario's
    # `when the warden arrives`) run once, not each round.
    game = _table(pack, 3, "The Hungry Wing")
    game.state.tracks["insomnia"] = 47
    _top(game, "movement", "Lights Flicker")
    play_round(game)
    assert clash_begun(game)
    _top(game, "movement", "Lights Flicker")
    with game.recording() as events:
        play_round(game)
    assert not [e for e in events if "when the warden arrives" in e.text]
    assert not [e for e in events if e.kind == "track" and "pushed past" in e.text]


def test_a_character_woken_in_a_cell_is_not_held_by_the_monsters_on_the_central_piece(
    pack: CompiledPack,
) -> None:
    # Rulebook 914 and 257: a dead character wakes in a cell of solitary confinement, a space
    # no one is on; the central piece is one space here, so the monsters on it do not hold
    # them until their next turn ends (without it, a character wakes among the monsters that
    # killed them, cannot leave, and dies each round: three Warden spaces a death).
    game = _table(pack, 3)
    player = game.state.players[0]
    monster = next(a for a in game.state.others if a.kind == "monster")
    monster.location = player.location = "central"
    assert lobotomy.held_by_monsters(game, player, "A1") is not None
    lobotomy.confinement(game, player)
    assert player.location == "central"
    assert lobotomy.held_by_monsters(game, player, "A1") is None
    lobotomy.left_the_cell(game, player)
    assert lobotomy.held_by_monsters(game, player, "A1") is not None


class Answers:
    """A seat that gives these answers in turn, then 0 (end the turn, done) to the rest."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)

    def decide(self, decision: Decision) -> int:
        return self.answers.pop(0) if self.answers else 0


def take(whole: WholeRules, game: Game, player: Player, action: ActionRule, *answers: int) -> None:
    """A turn in which the seat takes this action (then answers as told) and ends."""
    picked = legal_actions(whole, game, player, set()).index(action) + 1
    game.decisions = Answers(picked, *answers)
    take_turn(whole, game, player)


def _players_turn(game: Game) -> Player:
    player = game.state.players[0]
    game.state.phase = "players"
    game.state.others.clear()  # no monster on the board
    return player


def test_running_gives_two_ap_spent_on_moving_alone(pack: CompiledPack) -> None:
    # Rulebook 314-316: declared as the turn begins, running gives 2 AP that, with the rest,
    # go on movement alone; a skill or item of 0 AP may still be used.
    assert pack.whole is not None
    game = _table(pack, 3)
    player = _players_turn(game)
    player.location = "A5"
    game.state.flags.add(f"{MEMORY_TOKEN}:A5")
    ap = player.stats.get("ap")
    names = [a.name for a in legal_actions(pack.whole, game, player, set())]
    assert "run" in names and "memory" in names
    run_action = next(a for a in pack.whole.actions if a.name == "run")
    take(pack.whole, game, player, run_action)
    assert player.stats.get("ap") == ap + 2
    names = [a.name for a in legal_actions(pack.whole, game, player, {"run"})]
    assert "move" in names and "use" in names
    assert not {"run", "memory", "search", "reveal", "trade"} & set(names)


def test_running_is_declared_before_any_ap_is_spent(pack: CompiledPack) -> None:
    assert pack.whole is not None
    game = _table(pack, 3)
    player = _players_turn(game)
    player.stats.set("ap", player.stats.get("ap") - 1)
    assert "run" not in [a.name for a in legal_actions(pack.whole, game, player, set())]


def test_a_trade_gives_and_takes_items_on_your_space_for_1_ap(pack: CompiledPack) -> None:
    # Rulebook 318: 1 AP, any number of items given and taken with characters on your space;
    # 500: an item a memory brought back is its character's own and is never traded.
    assert pack.whole is not None
    game = _table(pack, 3)
    player = _players_turn(game)
    other = game.state.players[1]
    player.location = "A5"
    other.location = "A6"
    names = [a.name for a in legal_actions(pack.whole, game, player, set())]
    assert "trade" not in names  # no one on your space
    other.location = "A5"
    keys = game.new_instance(card(pack, "Ward Key Ring"))  # a memory brings it back
    torch = game.new_instance(card(pack, "Aerosol Torch"))
    other.items[:] = [keys, torch]
    player.items[:] = [c for c in player.items if c.kind not in {"weapon", "equipment", "drug"}]
    trade_action = next(a for a in pack.whole.actions if a.name == "trade")
    ap = player.stats.get("ap")
    assert [item for _, _, item in trades(game, player)] == [torch]
    take(pack.whole, game, player, trade_action, 1)  # the one offer: take the torch; done
    assert torch in player.items and torch not in other.items
    assert keys in other.items
    assert player.stats.get("ap") == ap - 1


def test_a_death_before_the_clash_is_one_death_of_the_figures(pack: CompiledPack) -> None:
    # Rulebook 910-917: a character who dies wakes in confinement. The waking is an event of
    # its own kind: logged as a second `death`, each death was counted twice in a sweep's
    # figures (30 deaths a game at two seats, where 18 characters died).
    game = _table(pack, 3)
    player = game.state.players[0]
    with game.recording() as events:
        game.change("health", -99, player)
    deaths = [e for e in events if e.kind == "death" and e.data.get("player") == player.name]
    assert len(deaths) == 1
    assert [e.kind for e in events if "wakes in solitary confinement" in e.text] == ["wake"]
    assert player.location == "central" and not player.dead
