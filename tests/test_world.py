"""The world as data: kinds of actor with their own stats, a board, tracks, rounds, subjects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.ruleset import RulesetError, load_ruleset
from runtime.rounds import play_round
from tests.helpers import compiled, house_rules_pack, run

KEEP = """ruleset: keep
title: Keep
version: 1
extends: base
stats:
  health: {min: 0, max: 6, start: 6, at_min: death}
  ap: {min: 0, max: 3, start: 3}
actors:
  hero: {seated: true}
  monster:
    sheet: monster
    keywords: [ethereal, fiery]
    stats:
      hp: {min: 0, max: 20, start: 1, at_min: death, property: hp}
      defense: {min: 0, max: 5, start: 0, property: defense}
places:
  hall: {start: true, adjacent: [tower]}
  tower: {}
  a1: {adjacent: [hall]}
  a2: {}
  a3: {}
paths:
  - [a1, a2, a3]
tracks:
  dread: {min: 0, max: 3, start: 0, at_max: dread_full, summary: "the keep wakes"}
  charges: {min: 0, max: 4, start: 2, on: card}
triggers:
  round_starts: {summary: "a round starts"}
  turn_starts: {summary: "your turn starts"}
  dread_full: {summary: "the dread track is full"}
turns:
  round: [heroes, monsters]
  starts: round_starts
  last_round: 3
  phases:
    heroes: {each: hero, starts: turn_starts, actions: ap}
    monsters: {each: monster}
slots:
  keyword: {vocabulary: keywords}
properties:
  hp: {pattern: "hp {amount}", text: "{amount} hp"}
  defense: {pattern: "defense {amount}", text: "defense {amount}"}
  keyword: {pattern: "is {keyword}", text: "{keyword}"}
blocks:
  each_round: {pattern: "each round", body: effects, trigger: round_starts, text: "each round"}
  my_turn:
    {pattern: "on your turn", body: effects, trigger: turn_starts, text: "at your turn's start"}
  dread:
    {pattern: "when dread is full", body: effects, trigger: dread_full, text: "when dread is full"}
  use: {pattern: "use", body: effects, trigger: use, text: "use"}
decks:
  relic: {kinds: [relic]}
  monster: {kinds: [monster]}
kinds:
  relic:
    deck: relic
    blocks: [each_round, my_turn, dread, use]
  monster:
    deck: monster
    properties: {hp: required, defense: optional, keyword: optional}
"""

CARDS = """relic "Bell" {
    use {
        lose hp 2 for each monster here
        lose health 1 for each other hero here
        advance dread 2
        remove 1 charges from this
    }
    each round { advance dread }
    on your turn { lose ap 1 }
    when dread is full { say "The bell tolls." }
}

monster "Wisp" {
    hp 3
    defense 1
    is ethereal
}
"""


def keep_pack(tmp_path: Path, rules: str = KEEP, cards: str = CARDS) -> Path:
    return house_rules_pack(tmp_path / "keep", "keep", rules, cards)


def test_the_world_is_read_from_the_ruleset(tmp_path: Path) -> None:
    world = load_ruleset("rules.yaml", base_dir=keep_pack(tmp_path)).world
    assert set(world.actors) == {"hero", "monster"}
    assert world.seated.name == "hero"
    # a mapping's keys in the order of their names, as a precompiled ruleset holds them
    assert [s.name for s in world.seated.stats] == ["ap", "health"]
    assert [s.name for s in world.actors["monster"].stats] == ["defense", "hp"]
    assert world.actors["monster"].starts == {"hp": "hp", "defense": "defense"}
    board = world.board
    assert board.neighbours("hall") == {"tower", "a1"}
    assert board.distance("tower", "a3") == 4
    assert board.distance("a3", "tower") == 4
    assert board.within("a1", 1) == ["a1", "a2", "hall"]
    assert board.distance("hall", "nowhere") is None
    assert world.tracks["charges"].on == "card"
    assert [p.name for p in world.turns.phases] == ["heroes", "monsters"]


def test_coma_ward_seats_characters_beside_its_acts_enemies() -> None:
    world = load_ruleset("coma-ward").world
    assert sorted(world.actors) == ["character", "matron", "portal", "waterline"]
    assert world.seated.name == "character" and not world.actors["matron"].stats
    assert [s.name for s in world.seated.stats] == ["health", "terror"]
    assert world.board.neighbours("hallway") == frozenset()
    assert [p.name for p in world.turns.phases] == ["players"]


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        ("  - [a1, a2, a3]\n", "  - [a1, a2, cellar]\n", "'cellar' is not a place"),
        ("heroes: {each: hero,", "heroes: {each: ghost,", "'ghost' is not an actor kind"),
        ("actions: ap}", "actions: hp}", "'hp' is not a stat of the actors"),
        ("  starts: round_starts\n", "  starts: round_begins\n", "'round_begins'"),
        ("round: [heroes, monsters]", "round: [heroes, monsters, dusk]", "phase 'dusk'"),
        ("sheet: monster\n", "sheet: beast\n", "unknown card kind 'beast'"),
        ("dread: {min: 0,", "dread: {each_turn: -1, min: 0,", "for tokens on cards"),
        ("dread: {min: 0, max: 3, start: 0,", "dread: {min: 0, max: 3, start: 5,", "min <= start"),
    ],
)
def test_a_broken_world_is_reported_at_its_line(
    tmp_path: Path, change: str, where: str, words: str
) -> None:
    assert change in KEEP
    rules = KEEP.replace(change, where)
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=keep_pack(tmp_path, rules))
    found = [d for d in caught.value.diagnostics if words in d.message]
    assert found, [d.message for d in caught.value.diagnostics]
    line = next(n for n, text in enumerate(rules.splitlines(), 1) if where.strip() in text)
    assert found[0].span.line in (line, line - 1), found[0].message


def test_a_phase_step_the_module_lacks_is_reported(tmp_path: Path) -> None:
    rules = KEEP.replace("monsters: {each: monster}", "monsters: {steps: [stomp]}")
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=keep_pack(tmp_path, rules))
    assert "has no step 'stomp'" in caught.value.diagnostics[0].message


def test_verbs_act_on_the_subjects_they_name(tmp_path: Path) -> None:
    pack = compiled(keep_pack(tmp_path))
    game = pack.new_game(players=2)
    you, friend = game.state.players
    friend.location = you.location = "hall"
    wisp_card = next(card for card in pack.cards if card.title == "Wisp")
    here = game.spawn("monster", "hall", wisp_card)
    away = game.spawn("monster", "tower", wisp_card)
    assert (here.name, away.name) == ("Wisp", "Wisp #2")
    assert here.stats.get("hp") == 3 and here.stats.get("defense") == 1
    assert here.keywords == {"ethereal"}
    bell = game.play(next(card for card in pack.cards if card.title == "Bell"))
    assert here.stats.get("hp") == 1 and away.stats.get("hp") == 3
    assert friend.stats.get("health") == 5 and you.stats.get("health") == 6
    assert game.state.tracks["dread"] == 2
    assert bell.tokens["charges"] == 1
    text = [event.text for event in game.log.events]
    assert "Wisp: hp 3 → 1 (-2)" in text
    game.advance("dread", 5)  # the log says the change made, not the one asked for
    assert "dread 2 → 3 (+1; 4 more cut off at 3)" in [event.text for event in game.log.events]
    assert game.subjects("the target") == []
    game.target(away)
    assert game.subjects("the target") == [away]


def test_a_track_at_its_end_fires_its_trigger_and_rounds_run_their_phases(
    tmp_path: Path,
) -> None:
    pack = compiled(keep_pack(tmp_path))
    game = pack.new_game(players=2)
    first, second = game.state.players
    bell = game.new_instance(next(card for card in pack.cards if card.title == "Bell"))
    first.items.append(bell)
    game.spawn("monster", "a2", next(card for card in pack.cards if card.title == "Wisp"))
    rounds = 0
    while play_round(game):
        rounds += 1
        assert game.state.tracks["dread"] == min(rounds, 3)
        assert first.stats.get("ap") == 2  # refilled to 3, then its turn's block spent one
        assert second.stats.get("ap") == 3
    assert rounds == 3 and game.state.round == 3
    text = [event.text for event in game.log.events]
    assert text.count("“The bell tolls.”") == 1  # once, when dread reaches 3
    assert "round 2 begins" in text and "Wisp's turn begins" in text
    assert "player 2's turn begins" in text


def test_the_whole_world_is_in_play_json(tmp_path: Path) -> None:
    folder = keep_pack(tmp_path)
    code, output = run("play", str(folder), "Bell", "--json", "--seed", "1")
    assert code == 0, output
    state = json.loads(output)["state"]
    assert state["tracks"] == {"dread": 2}
    assert [actor["kind"] for actor in state["actors"]] == ["hero"]
    assert state["actors"][0]["stats"] == {"health": 6, "ap": 3}
    assert state["round"] == 0


def test_what_the_narrator_reads_first_is_the_kinds_word(tmp_path: Path) -> None:
    assert load_ruleset("coma-ward").kinds["hallucination"].narrated == "situation"
    rules = KEEP.replace(
        "  relic:\n    deck: relic\n", "  relic:\n    deck: relic\n    narrated: lore\n"
    )
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=keep_pack(tmp_path, rules))
    assert "narrated from 'lore', which is none of its properties" in str(
        [d.message for d in caught.value.diagnostics]
    )


def test_good_and_bad_stats_come_from_the_ruleset_alone() -> None:
    from compiler.report.analysis import polarity

    assert polarity(load_ruleset("coma-ward")) == {"health": 1, "terror": -1}
    lobotomy = polarity(load_ruleset("lobotomy"))
    assert lobotomy["health"] == 1 and lobotomy["insanity"] == -1
    assert "ap" not in lobotomy  # the ruleset says nothing of it: neither


def test_reach_by_masks_is_the_nearest_distance_walked() -> None:
    import random

    from runtime.world import Board

    places = tuple(f"p{n}" for n in range(30))
    chooser = random.Random(4)
    edges: dict[str, set[str]] = {place: set() for place in places}
    for _ in range(40):  # two parts at least: some places cannot reach others
        a, b = chooser.sample(places[:25], 2)
        edges[a].add(b)
        edges[b].add(a)
    board = Board(places, {place: frozenset(near) for place, near in edges.items()})
    for _ in range(300):
        start = chooser.choice(places)
        targets = frozenset(chooser.sample([*places, "off the board"], chooser.randint(0, 6)))
        walked = board.distances(start)
        near = [walked[place] for place in targets if place in walked]
        assert board.reach(start, targets) == min(near, default=None)
        assert board.reach_mask(start, board.mask(targets)) == min(near, default=None)
