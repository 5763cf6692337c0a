"""Lobotomy, the second game: its pack, the attack test with exact odds, rounds and death."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.odds import odds_table, odds_text
from compiler.playing import confront
from compiler.printing.cards import CardRenderer, stat_colours
from compiler.printing.faces import face_data
from compiler.printing.sizes import PrintOptions
from compiler.report.analysis import analyse
from compiler.ruleset import RulesetError, load_ruleset
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice, SeededDice
from runtime.games.lobotomy import (
    chaos_die,
    deal_damage,
    defense_die,
    defy_time,
    fists,
    tantrum,
)
from runtime.games.lobotomy_attack import ATTACK, PreparedAttack
from runtime.games.lobotomy_dice import (
    CHAOS_FACES,
    Attack,
    ChaosFace,
    Target,
    attack_distribution,
    roll_attack,
)
from runtime.games.lobotomy_monsters import monster_attack, monsters_attack, move_monsters
from runtime.odds import card_odds
from runtime.rounds import play_round
from tests.conftest import ROOT
from tests.helpers import card, compiled, run

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def test_the_pack_checks_clean_and_its_tests_pass() -> None:
    code, output = run("check", str(PACK), "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    assert report["errors"] == 0 and report["diagnostics"] == []
    assert report["executable"] == 1.0
    code, output = run("test", str(PACK))
    assert code == 0, output
    assert "0 failed" in output


def test_the_board_the_track_and_the_round_are_the_rulesets(pack: CompiledPack) -> None:
    world = pack.rules.world
    assert len(world.board.places) == 49
    assert world.board.neighbours("A12") == {"A11", "B1"}
    assert world.board.distance("central", "C6") == 6
    assert world.tracks["insomnia"].high == 47
    assert [p.name for p in world.turns.phases] == ["players", "monsters"]
    assert world.turns.phases[1].steps[-1] == "monsters_attack"


def test_the_attack_odds_are_exact_and_agree_with_play() -> None:
    prepared = PreparedAttack(Attack(4, 4, critical=True), Target(defense=1), "attack 4")
    branches = ATTACK.odds(prepared)
    assert sum(b.probability for b in branches) == 1
    # No damage: every die fails, or a single success, which the defense absorbs (a six too:
    # without precision it is stopped like any other).
    none = sum((b.probability for b in branches if b.result == 0), Fraction(0))
    assert none == Fraction(1, 2) ** 4 + 4 * Fraction(1, 2) ** 4
    seen: Counter[int] = Counter()
    dice = SeededDice(7)
    for _ in range(4000):
        seen[roll_attack(prepared.attack, prepared.target, dice).outcome] += 1
    for branch_result in {b.result for b in branches}:
        p = sum(b.probability for b in branches if b.result == branch_result)
        assert abs(seen[branch_result] / 4000 - float(p)) < 0.03


def test_monsters_move_towards_the_nearest_character_and_overwhelm(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, seed=3)
    first, second = game.state.players
    first.location, second.location = "A3", "C9"
    husk = game.spawn("monster", "A6", card(pack, "Orderly Husk"))
    shade = game.spawn("monster", "A3", card(pack, "Wailing Shade"))
    phase = pack.rules.world.turns.phases[1]
    move_monsters(game, phase)
    assert husk.location == "A4"  # 2 AP: A5, then A4
    assert shade.location == "A3"  # already with a character: it stays
    game.dice = SeededDice(1)
    monsters_attack(game, phase)
    attacks = [e for e in game.log.events if e.kind == "attack"]
    assert [e.data["attacker"] for e in attacks] == ["Wailing Shade"]
    husk.location = "A3"
    before = len(game.log.events)
    monsters_attack(game, phase)
    texts = [e.text for e in game.log.events[before:] if e.kind == "attack"]
    # Both basic: the husk (3 dice) first, as it came first; then the shade, 2 dice and 1 more
    # for the husk that attacked there before it.
    assert [t.split(" attacks")[0] for t in texts] == ["Orderly Husk", "Wailing Shade"]
    assert "attack 3d6" in texts[0] and "attack 3d6" in texts[1]


def test_a_round_plays_both_turns_and_the_warden_walks(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=5)
    game.state.decks["movement"] = [game.new_instance(card(pack, "Lights Flicker"))]
    game.state.decks["monster"] = [game.new_instance(card(pack, "Orderly Husk"))]
    game.state.players[0].stats.set("ap", 0)
    assert play_round(game)
    text = [e.text for e in game.log.events]
    assert "round 1 begins" in text
    assert game.state.players[0].stats.get("ap") == 3  # refilled at the start of its turn
    assert "“Somewhere a bulb bursts.”" in text
    assert game.state.tracks["insomnia"] == 1  # the movement card moves the Warden
    assert [a.name for a in game.actors_of("monster")] == ["Orderly Husk"]  # it spawned one
    assert [a.location for a in game.actors_of("warden")] == ["A2"]
    assert json.dumps(game.snapshot())  # the whole world as plain data
    assert [a["kind"] for a in game.snapshot()["actors"]] == ["character", "warden", "monster"]


def test_death_sends_a_character_back_to_confinement(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=2)
    hero = game.state.players[0]
    hero.location = "B4"
    hero.stats.set("insanity", 5)
    hero.stats.set("health", 1)
    husk = game.spawn("monster", "B4", card(pack, "Orderly Husk"))
    game.state.round = 1  # inside a game: a death does not end the run
    game.dice = ForcedDice([6, 6, 6])
    assert monster_attack(game, husk, hero) == 2
    assert not hero.dead and hero.location == "central"
    assert hero.stats.get("health") == 6 and hero.stats.get("insanity") == 3
    assert game.state.tracks["insomnia"] == 3


def test_an_unknown_step_is_the_rulesets_error(tmp_path: Path) -> None:
    text = (PACK / "ruleset.yaml").read_text().replace("monsters_attack]", "monsters_feast]")
    (tmp_path / "rules.yaml").write_text(text.replace("ruleset: lobotomy", "ruleset: house"))
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    assert "has no step 'monsters_feast'" in caught.value.diagnostics[0].message


def test_odds_against_a_monster_give_the_final_blow_exactly(pack: CompiledPack) -> None:
    code, output = run("odds", str(PACK), "Fire Axe", "--against", "Orderly Husk", "--json")
    assert code == 0, output
    shown = json.loads(output)
    assert [variant["name"] for variant in shown["variants"]] == ["with the Chaos Die"]
    block = shown["blocks"][0]
    exact = attack_distribution(Attack(4, 4, critical=True), Target(defense=1))
    killing = sum((p for damage, p in exact.items() if damage >= 4), Fraction(0))
    assert block["final_blow"] == round(float(killing), 4) and killing > 0
    # The final blow steadies the mind: exactly as often as the husk falls.
    assert block["expected"]["insanity"] == 0  # insanity starts at 0 and cannot go lower
    table = odds_table(pack, [], "Orderly Husk")
    scalpel = card(pack, "Rusty Scalpel")
    text = "\n".join(odds_text(scalpel, card_odds(table, scalpel), table))
    assert "1..2 (2 damage)" in text and "target hp -2" in text


def test_play_against_a_monster_and_a_card_that_is_no_actor(pack: CompiledPack) -> None:
    code, output = run("play", str(PACK), "Fire Axe", "--against", "Orderly Husk", "--seed", "4")
    assert code == 0, output
    assert "target: Orderly Husk" in output and "check attack 4 critical" in output
    with pytest.raises(UsageError, match="'Sedative' is a drug card, not an actor's"):
        confront(pack.new_game(seed=0), pack, "Sedative")


def test_a_skill_cools_down_turn_by_turn_and_a_final_blow_hurries_it(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    game.spawn("monster", hero.location, card(pack, "Orderly Husk"))
    scream = game.new_instance(card(pack, "Scream"))
    hero.items.append(scream)
    game.use(scream)
    assert scream.tokens["cooldown"] == 2
    game.use(scream)  # still cooling down: nothing happens
    assert game.log.events[-1].text == 'skill "Scream" cannot be used yet: 2 cooldown'
    assert game.actors_of("monster")[0].stats.get("hp") == 3  # hurt once, not twice
    # The husk (3 hp left) falls to the axe: the scream is ready a turn sooner.
    axe = game.new_instance(card(pack, "Fire Axe"))
    hero.items.append(axe)
    game.dice = ForcedDice([6, 6, 5, 2])
    game.use(axe)
    assert not game.actors_of("monster") and scream.tokens["cooldown"] == 1
    # The start of the next turn takes the last one off: the scream is ready again.
    game.state.decks["movement"] = []
    play_round(game)
    assert scream.tokens["cooldown"] == 0


def test_the_defense_die_example_ends_at_no_damage(pack: CompiledPack) -> None:
    # Rulebook, Insanity: 1 HP left, Defense 1 and +1 from a skill, the last insanity point on
    # the Defense Die, 3 shields: 5, less 1 for the monster's fire; its 4 successes do nothing.
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.stats.set("health", 1)
    hero.stats.set("defense", 2)
    hero.stats.set("insanity", 6)
    brute = game.spawn("monster", hero.location, card(pack, "Orderly Husk"))
    brute.keywords = frozenset({"fiery"})
    brute.stats.set("dice", 4)
    brute.stats.set("ar", 2)
    defense_die(game, game.new_instance(card(pack, "Sedative")))
    assert hero.stats.get("insanity") == 7
    game.dice = ForcedDice([6, 3, 4, 5, 2])  # the Defense Die first: its face 6 is 3 shields
    assert monster_attack(game, brute, hero) == 0
    assert not hero.dead and hero.bonuses == []
    # At the top of insanity no insane ability can be used, and nothing is lost for trying.
    defense_die(game, game.new_instance(card(pack, "Sedative")))
    assert hero.bonuses == [] and hero.stats.get("insanity") == 7 and not hero.dead


def test_a_tantrum_draws_the_attacks_on_the_space(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, seed=1)
    weak, strong = game.state.players
    weak.location = strong.location = "C2"
    strong.stats.set("defense", 4)
    game.spawn("monster", "C2", card(pack, "Orderly Husk"))
    game.state.current = 1
    tantrum(game, game.new_instance(card(pack, "Sedative")))
    game.dice = SeededDice(3)
    monsters_attack(game, pack.rules.world.turns.phases[1])
    attacks = [e for e in game.log.events if e.kind == "attack"]
    assert [e.data["target"] for e in attacks] == ["player 2"]
    assert not any(flag.startswith("tantrum") for flag in game.state.flags)  # the turn is over


def test_the_warden_walks_the_insomnia_track_and_stomps(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    first.location, second.location = "A2", "A3"
    # Chaos Die faces 5 (2 skulls) and 3 (1 skull): 3 damage to the first; then he walks on to
    # A3, where the second is stomped with faces 1 and 6 (no skull, the +1): none.
    game.dice = ForcedDice([5, 3, 1, 6])
    game.advance("insomnia", 1)
    (walker,) = game.actors_of("warden")
    assert walker.location == "A4" and game.state.tracks["insomnia"] == 3
    assert first.stats.get("health") == 3 and second.stats.get("health") == 6
    assert {"stunned:player 1", "stunned:player 2"} <= game.state.flags
    # A stunned character spends an action getting up at the start of the next turn.
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    play_round(game)
    assert first.stats.get("ap") == 2 and not any(f.startswith("stunned") for f in game.state.flags)


def test_walking_onto_the_wardens_space_is_a_stomp(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.advance("insomnia", 4)  # the Warden on A5, no one there
    game.dice = ForcedDice([5, 5])
    game.move("A5")
    assert game.state.players[0].stats.get("health") == 2
    assert game.actors_of("warden")[0].location == "A6"


def test_fists_and_defy_time(pack: CompiledPack) -> None:
    # Rulebook, Attack Action: bare fists roll 3 dice; 3, 5 and 6 at AR 4+ are 2 successes,
    # the monster's Defense 1 takes one: 1 damage, and its 4 health are 3. The attack takes
    # 1 AP of 3 (607), defying time gives one back.
    game = pack.new_game(players=1, seed=1)
    husk = game.spawn("monster", game.actor.location, card(pack, "Orderly Husk"))
    game.target(husk)
    bare = game.new_instance(card(pack, "Sedative"))
    game.dice = ForcedDice([3, 5, 6])
    fists(game, bare)
    assert husk.stats.get("hp") == 3
    defy_time(game, bare)
    defy_time(game, bare)  # once a turn
    assert game.actor.stats.get("ap") == 3 and game.state.tracks["insomnia"] == 1


def test_an_attack_costs_1_ap_unless_its_card_says_otherwise_line_607(pack: CompiledPack) -> None:
    # Fists and a weapon with no cost line (the Chapel Candlestick) pay the ruleset's 1 AP;
    # a card that prints its cost pays that on use and nothing more; without the AP, no attack.
    game = pack.new_game(players=1, seed=1)
    husk = game.spawn("monster", game.actor.location, card(pack, "Orderly Husk"))
    game.target(husk)
    bare = game.new_instance(card(pack, "Sedative"))
    game.dice = ForcedDice([1, 1, 1])
    fists(game, bare)
    assert game.stat("ap") == 2
    candlestick = game.new_instance(card(pack, "Chapel Candlestick"))
    opener = game.new_instance(card(pack, "Silver Letter Opener"))  # cost 0 ap
    scalpel = game.new_instance(card(pack, "Rusty Scalpel"))  # cost 1 ap
    game.actor.items += [candlestick, opener, scalpel]
    game.dice = ForcedDice([2, 2, 2, 2, 2, 2, 2, 2])
    game.use(candlestick)
    assert game.stat("ap") == 1
    game.use(opener)
    assert game.stat("ap") == 1
    game.use(scalpel)
    assert game.stat("ap") == 0
    game.dice = ForcedDice([])  # nothing is rolled: neither attack is made
    fists(game, bare)
    game.use(candlestick)
    assert husk.stats.get("hp") == 4 and game.stat("ap") == 0
    assert "an attack costs 1 AP; player 1 has 0 AP: no attack" in game.log.events[-2].text


def test_a_running_character_makes_no_attack_that_costs_ap(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.target(game.spawn("monster", game.actor.location, card(pack, "Orderly Husk")))
    game.state.flags.add(f"running:{game.actor.name}")
    game.dice = ForcedDice([])
    fists(game, game.new_instance(card(pack, "Sedative")))
    assert game.stat("ap") == 3 and "is running: no attack" in game.log.events[-2].text


def test_the_chaos_die_joins_an_attack_once_line_835(pack: CompiledPack) -> None:
    # Used twice before one attack, the second use is refused: 1 insanity, one Chaos Die.
    # The Fire Axe's four dice (2, 2, 2, 2) fail; the one Chaos Die's two skulls are 2
    # successes, the Husk's Defense takes one: 1 damage. A second die is never rolled.
    game = pack.new_game(players=1, seed=1)
    husk = game.spawn("monster", game.actor.location, card(pack, "Orderly Husk"))
    axe = game.new_instance(card(pack, "Fire Axe"))
    game.actor.items.append(axe)
    chaos_die(game, axe)
    chaos_die(game, axe)
    assert game.stat("insanity") == 1
    assert "already waits" in game.log.events[-1].text
    two_skulls = CHAOS_FACES.index(ChaosFace(skulls=2)) + 1
    dice = ForcedDice([2, 2, 2, 2, two_skulls, two_skulls])
    game.dice = dice
    game.use(axe)
    assert husk.stats.get("hp") == 3 and dice.unused == [two_skulls]
    # Used up by that attack, the die may be added to the next one.
    chaos_die(game, axe)
    assert game.stat("insanity") == 2


def test_one_attack_that_kills_two_is_one_final_blow_lines_645_741(pack: CompiledPack) -> None:
    # A Scream fells two wounded monsters: one cooldown comes off one skill (the player
    # picks the Haymaker, and is asked once), not one for each monster; an `on final blow`
    # block runs once too.
    decisions = ScriptedDecisions(['skill "Haymaker"'])
    game = pack.new_game(players=1, seed=1, decisions=decisions)
    here = game.actor.location
    husks = [game.spawn("monster", here, card(pack, "Orderly Husk")) for _ in range(2)]
    for husk in husks:
        husk.stats.set("hp", 1)
    scream, jab, haymaker = (
        game.new_instance(card(pack, t)) for t in ("Scream", "Needle Jab", "Haymaker")
    )
    game.actor.items += [scream, jab, haymaker]
    jab.tokens["cooldown"] = haymaker.tokens["cooldown"] = 2
    game.use(scream)
    assert all(husk.dead for husk in husks)
    assert (jab.tokens["cooldown"], haymaker.tokens["cooldown"]) == (2, 1)
    assert decisions.unused == [] and sum(e.kind == "decide" for e in game.log.events) == 1
    axe = game.new_instance(card(pack, "Fire Axe"))  # on final blow: lose insanity 1
    game.actor.stats.set("insanity", 3)
    husks = [game.spawn("monster", here, card(pack, "Orderly Husk")) for _ in range(2)]
    for husk in husks:
        husk.stats.set("hp", 1)
    decisions.add('skill "Scream"')
    deal_damage(game, axe, amount=1, subject="each monster here")
    assert all(husk.dead for husk in husks) and game.stat("insanity") == 2
    assert scream.tokens["cooldown"] == 1 and decisions.unused == []


def test_weapons_print_durability_boxes_and_skills_a_cooldown_counter(pack: CompiledPack) -> None:
    ruleset = pack.checked.ruleset
    cards = {card["title"]: card for card in pack.checked.cards}
    axe = face_data(ruleset, cards["Fire Axe"], PrintOptions(), "Lobotomy").context
    assert axe["marks"] == [{"label": "Durability", "boxes": ["", ""]}]
    assert not any("urability" in fact for fact in axe["facts"])  # boxes, not a tag as well
    scream = face_data(ruleset, cards["Scream"], PrintOptions(), "Lobotomy").context
    assert scream["marks"] == [{"label": "Cooldown", "boxes": ["1", "2", "3", "4", "5", "6"]}]
    face, _, _ = CardRenderer(pack.checked, PrintOptions()).face(cards["Scream"], "scream")
    assert face.html.count('class="box"') == 6


def test_a_mark_that_is_no_property_nor_token_is_the_rulesets_error(tmp_path: Path) -> None:
    text = (PACK / "ruleset.yaml").read_text().replace("marks: [cooldown]", "marks: [sanity]")
    (tmp_path / "rules.yaml").write_text(text.replace("ruleset: lobotomy", "ruleset: house"))
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    messages = [diagnostic.message for diagnostic in caught.value.diagnostics]
    assert any("kind 'skill' marks 'sanity'" in message for message in messages), messages


def test_only_a_natural_one_wears_the_weapon(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.target(game.spawn("monster", game.actor.location, card(pack, "Orderly Husk")))
    scalpel = game.new_instance(card(pack, "Rusty Scalpel"))
    game.actor.items.append(scalpel)
    game.dice = ForcedDice([5, 5, 5])
    game.use(scalpel)
    assert scalpel.tokens.get("wear", 0) == 0
    game.dice = ForcedDice([1, 2, 3])
    game.use(scalpel)
    assert scalpel.tokens["wear"] == 1
    assert game.stat("ap") == 1  # its printed 1 AP a use, and no more


def test_a_stats_icon_colour_is_the_rulesets_and_nothing_else(tmp_path: Path) -> None:
    css = stat_colours(load_ruleset("lobotomy").data)
    assert ".icon.icon-ap { background: #1f6b4f; }" in css
    assert ".icon.icon-hp { background: #b3261e; }" in css  # a monster's stat too
    assert ".icon.icon-terror" in stat_colours(load_ruleset("coma-ward").data)
    hostile = (
        (PACK / "ruleset.yaml")
        .read_text()
        .replace('colour: "#1f6b4f"', 'colour: "red; } body { display: none"')
    )
    (tmp_path / "rules.yaml").write_text(hostile.replace("ruleset: lobotomy", "ruleset: house"))
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    assert caught.value.diagnostics[0].span.line == 16  # the ap line of `stats:`


def test_here_on_a_monsters_card_is_the_monsters_space(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, seed=1)
    near, far = game.state.players
    near.location, far.location = "B3", "central"
    shade = game.spawn("monster", "B3", card(pack, "Wailing Shade"))
    game.state.current = 1  # the far one's turn
    assert shade.sheet is not None
    assert game.subjects("each character here", shade.sheet) == [near]
    assert game.subjects("each character here") == [far]  # the current player's space
    assert game.subjects("you", shade.sheet) == [shade]


def test_the_report_weighs_the_outcomes_the_card_writes_not_the_damage_within(
    tmp_path: Path,
) -> None:
    # The attack test splits each written outcome by the damage it deals (what it settles);
    # a rare damage inside a common outcome is no rare branch of the card.
    code, output = run("report", str(PACK), "-o", str(tmp_path / "report.html"))
    assert code == 0, output
    assert ", 0 flags," in output
    # The drugs were flagged endless (no uses, no discard: a dose used again and again for
    # nothing) until each was given its one use.
    assert [(f.kind, f.card) for f in analyse(compiled(PACK), []).flags] == []
