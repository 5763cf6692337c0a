"""The fast paths of whole games: the same seed plays the same game, event for event, as it
did before the runtime was made fast (digests of the logs and final states taken then)."""

from __future__ import annotations

import hashlib
import json

import pytest

from compiler.build import CompiledPack
from runtime.decisions import Decision
from runtime.events import Event
from runtime.game import Game
from runtime.games.coma_ward_game import play_prologue
from runtime.policies import policy_named, seat_policies
from runtime.policies.exact import possible_cards
from tests.conftest import ROOT
from tests.helpers import coma_ward_whole, compiled, whole_game

PACK = ROOT / "content" / "coma-ward"

# (seats, seed, policy or None for the game's own RandomDecisions) -> digest of the log and the
# final snapshot. Taken first on main 50f886c, before the fast paths, and taken again when the
# games changed on purpose: a defender answering their own questions, a card's waiting bonus
# given anew, the phenomenon act's aims, the event data simulate reads, and cautious and bold
# answering a game's own procedure (where to step) by its rules, `odds` weighing the
# look-alike variants its seat cannot tell apart instead of reading the one drawn, and the log
# telling the change a stat made rather than the one asked (the same games: a 100-game sweep's
# figures were the same to the byte before and after), and the winner of a dodge asked whether
# to step away (rulebook 237, 268).
GAMES = {
    (4, 0, None): "e6427acd3775cc86c7cf300f",
    (4, 1, None): "838d960f57beebfa97b05f6f",
    (4, 2, None): "4e8be115310fe9c0db614257",
    (2, 3, None): "6a1073327b4336f7d38ced98",
    (6, 4, None): "2514ab0bb8d7bdac3875c2d2",
    (4, 5, "random"): "bdcc27a93a133ae41814c6ea",
    (4, 6, "cautious"): "919effb01a71b02a85440052",
    (4, 7, "bold"): "3e0abbc647a05c490b880276",
    (4, 8, "odds"): "85e28f04f65d49893517a450",
    (3, 9, "odds"): "b6f9945f0c589fc49b46c850",
}


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def played(pack: CompiledPack, seats: int, seed: int, policy: str | None) -> Game:
    """A prologue played whole, by the game's own decisions or by a policy for every seat."""
    game = whole_game(pack, seats, seed)
    if policy is not None:
        seat_policies(game, policy_named(policy))
    play_prologue(game)
    return game


def digest(game: Game) -> str:
    """The log, event for event, and the state it left, as one short digest."""
    facts = {"log": game.log.to_json(), "state": game.snapshot()}
    text = json.dumps(facts, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@pytest.mark.parametrize(("seats", "seed", "policy"), list(GAMES))
def test_a_seed_plays_the_game_it_played_before_the_fast_paths(
    pack: CompiledPack, seats: int, seed: int, policy: str | None
) -> None:
    assert digest(played(pack, seats, seed, policy)) == GAMES[seats, seed, policy]


def _seen(event: Event) -> tuple[object, ...]:
    return (event.kind, event.text, event.data, event.card, event.depth)


@pytest.mark.parametrize("policy", [None, "odds"])
def test_a_game_with_the_log_off_plays_the_same_and_still_tells_its_listeners(
    pack: CompiledPack, policy: str | None
) -> None:
    kept = played(pack, 4, 11, policy)
    quiet = whole_game(pack, 4, 11)
    quiet.logging = False
    heard: list[Event] = []
    quiet.listeners.append(heard.append)
    if policy is not None:
        seat_policies(quiet, policy_named(policy))
    play_prologue(quiet)
    assert quiet.log.events == []
    assert [_seen(e) for e in heard] == [_seen(e) for e in kept.log.events]
    assert quiet.snapshot() == kept.snapshot()
    assert coma_ward_whole().outcome(quiet) == coma_ward_whole().outcome(kept)


def test_a_recording_hears_a_stretch_of_play_with_the_log_off_or_on(pack: CompiledPack) -> None:
    for log in (True, False):
        game = Game(pack.rules, pack.cards, pack.module, seed=1, log=log)
        game.event("before", "not recorded")
        with game.recording() as events:
            game.event("during", "recorded", n=1)
        game.event("after", "not recorded either")
        assert [(e.kind, e.data) for e in events] == [("during", {"n": 1})]
        assert game.listeners == []
        assert len(game.log.events) == (3 if log else 0)


def test_a_narrated_decision_names_the_card_whose_options_it_offers(pack: CompiledPack) -> None:
    asked: list[Decision] = []

    class Asking:
        def decide(self, decision: Decision) -> int:
            asked.append(decision)
            return 0

    hallucination = next(c for c in pack.cards if c.kind == "hallucination" and c.options)
    game = Game(pack.rules, pack.cards, pack.module, seed=2, decisions=Asking())
    game.play(hallucination)
    offered = [d for d in asked if d.kind == "option"]
    assert offered and offered[0].card is hallucination
    assert hallucination in [card for card, _ in possible_cards(game, offered[0])]


def test_a_boards_distances_are_walked_once_and_stay_the_same(pack: CompiledPack) -> None:
    board = pack.rules.world.board
    first = board.distances("f2-stairs")
    assert board.distances("f2-stairs") is first
    assert first["f3-stairs"] == 1 and board.distance("f1-stairs", "roof") == 3


def test_a_boards_reach_is_the_nearest_of_the_places_walked_to(pack: CompiledPack) -> None:
    board = pack.rules.world.board
    targets = frozenset({"roof", "f3-stairs", "nowhere"})
    assert board.reach("f1-stairs", targets) == 2  # f3-stairs, two floors up
    assert board.reach("f1-stairs", frozenset({"nowhere"})) is None
    assert board.reach("f1-stairs", targets) == 2  # remembered, the same
