"""Policies deciding for seats: reproducible, plugged in from outside the game, by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.decisions import Decision, DecisionError
from runtime.game import Game
from runtime.policies import (
    POLICIES,
    OddsPolicy,
    Policy,
    PolicyError,
    Seat,
    SeatedPolicies,
    UnknownPolicy,
    policy_named,
    seat_policies,
)
from tests.helpers import card, coma_ward_whole, compiled, make_pack

COMA_WARD = Path(__file__).resolve().parent.parent / "content" / "coma-ward"

# Two cards of the Coma Ward pack as printed (their tests left out), and cards whose titles
# and effects pull apart, so that reading titles and reading the odds disagree.
CARDS = """
hallucination "The Gurney That Follows" {
    situation "An empty gurney rolls out of a side room."
    option "Climb aboard" { lose terror 1; move to stairs }
    option "Shove it away" {
        check strength { 0..1 { lose health 1 }; 2+ { draw item } }
    }
    option "Outrun it" {
        check dexterity { 0..1 { gain terror 2 }; 2+ { move to hallway } }
    }
}
hallucination "Lights Going Out" {
    situation "Down the corridor the ceiling lights switch off one by one."
    option "Run for the stairs" {
        check dexterity {
            0 { gain terror 2 }
            1..2 { move to stairs }
            3+ { lose terror 1; move to stairs }
        }
    }
    option "Stand still" { gain terror 1; end turn }
    option "Close your eyes" {
        if terror >= 3 { gain terror 1 } else { lose terror 1 }
    }
}
hallucination "Two Doors" {
    situation "Two doors, one ajar."
    option "Leave quietly" { gain terror 2 }
    option "Open the door" { lose terror 1 }
}
hallucination "The Twins" variant 1 {
    situation "Two girls in the corridor."
    option "Follow them" { gain terror 1 }
    option "Turn away" { lose terror 1 }
}
hallucination "The Twins" variant 2 {
    situation "Two girls in the corridor."
    option "Follow them" { lose terror 1 }
    option "Turn away" { gain terror 1 }
}
hallucination "The Coat" {
    situation "A coat on a chair."
    option "Search the coat" { may { lose health 1; draw item 2 } }
}
"""


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> CompiledPack:
    """The cards above, compiled."""
    return compiled(make_pack(tmp_path_factory.mktemp("policies"), cards=CARDS))


def played(
    pack: CompiledPack, policy: Policy | list[Policy], title: str, seed: int = 0, **stats: int
) -> Game:
    """A game of the seed whose seats the policy decides for, after the card is played."""
    game = pack.new_game(seed=seed, players=len(policy) if isinstance(policy, list) else 1)
    seat_policies(game, policy)
    for name, value in stats.items():
        game.player.stats.set(name, value)
    game.play(card(pack, title))
    return game


def answers(game: Game) -> list[str]:
    """Every answer the game's decisions got, in order."""
    return [str(e.data["answer"]) for e in game.log.events if e.kind == "decide"]


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_each_policy_decides_the_same_for_a_seed(pack: CompiledPack, name: str) -> None:
    for seed in range(5):
        runs = [played(pack, policy_named(name), "Lights Going Out", seed) for _ in range(2)]
        assert runs[0].log.to_json() == runs[1].log.to_json()
        assert runs[0].snapshot() == runs[1].snapshot()


def test_random_takes_every_choice_over_many_seeds(pack: CompiledPack) -> None:
    taken = {
        answers(played(pack, policy_named("random"), "Lights Going Out", seed))[0]
        for seed in range(60)
    }
    assert taken == {"Run for the stairs", "Stand still", "Close your eyes"}


def test_odds_takes_the_option_of_the_best_expected_outcome(pack: CompiledPack) -> None:
    # Climbing aboard takes one terror away for sure; the others risk health or terror.
    assert answers(played(pack, policy_named("odds"), "The Gurney That Follows")) == [
        "Climb aboard"
    ]
    # Its titles sound like a retreat and a risk; the odds read the card behind them.
    assert answers(played(pack, policy_named("odds"), "Two Doors")) == ["Open the door"]


def test_odds_reads_the_seat_as_it_is_now(pack: CompiledPack) -> None:
    calm = played(pack, policy_named("odds"), "Lights Going Out", terror=1)
    assert answers(calm) == ["Close your eyes"]  # calm, closing your eyes calms you
    frightened = played(pack, policy_named("odds"), "Lights Going Out", terror=3)
    assert answers(frightened) == ["Run for the stairs"]  # frightened, it frightens you more


def test_cautious_and_bold_read_titles_and_differ(pack: CompiledPack) -> None:
    assert answers(played(pack, policy_named("cautious"), "Two Doors")) == ["Leave quietly"]
    assert answers(played(pack, policy_named("bold"), "Two Doors")) == ["Open the door"]


def test_cautious_refuses_a_may_that_costs_a_good_stat_and_bold_takes_it(
    pack: CompiledPack,
) -> None:
    cautious = played(pack, policy_named("cautious"), "The Coat")
    assert answers(cautious)[1:] == ["no"]
    assert cautious.player.stats.get("health") == 5
    bold = played(pack, policy_named("bold"), "The Coat")
    assert answers(bold)[1:] == ["yes"]
    assert bold.player.stats.get("health") == 4


def test_bold_is_cautious_a_step_from_death(pack: CompiledPack) -> None:
    assert answers(played(pack, policy_named("bold"), "The Coat", health=1))[1:] == ["no"]


def test_policies_plug_in_per_seat(pack: CompiledPack) -> None:
    game = pack.new_game(seed=3, players=2)
    maker = seat_policies(game, [policy_named("cautious"), policy_named("bold")])
    assert isinstance(game.decisions, SeatedPolicies) and game.decisions is maker
    doors = card(pack, "Two Doors")
    game.play(doors)
    game.state.current = 1
    game.play(doors)
    assert answers(game) == ["Leave quietly", "Open the door"]


def test_policies_must_fit_the_seats(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, players=3)
    with pytest.raises(PolicyError, match="2 policies for 3 seats"):
        seat_policies(game, [policy_named("random"), policy_named("bold")])


def test_an_unknown_policy_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPolicy) as raised:
        policy_named("reckless")
    assert str(raised.value) == (
        "unknown policy 'reckless': the policies are bold, cautious, greedy, mcts, odds, random"
    )


def test_seats_draw_from_their_own_streams(pack: CompiledPack) -> None:
    """One seat's random answers do not depend on how often another seat was asked."""
    alone = played(pack, [policy_named("random"), policy_named("random")], "Lights Going Out")
    busy = pack.new_game(seed=0, players=2)
    seat_policies(busy, [policy_named("random"), policy_named("random")])
    busy.state.current = 1
    for _ in range(3):
        busy.play(card(pack, "Lights Going Out"))
    busy.state.current = 0
    busy.play(card(pack, "Lights Going Out"))
    assert answers(busy)[-1] == answers(alone)[0]


class Nowhere:
    """A policy whose answer is no answer at all."""

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """One past the last answer."""
        return len(decision.choices)


def test_an_answer_out_of_range_is_refused(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0)
    seat_policies(game, Nowhere())
    with pytest.raises(DecisionError, match="does not fit"):
        game.play(card(pack, "Two Doors"))


def test_a_decision_asked_of_another_seat_goes_to_its_policy(pack: CompiledPack) -> None:
    """A defender answers on the attacker's turn: with its own policy, not the attacker's."""
    game = pack.new_game(seed=0, players=2)
    seat_policies(game, [policy_named("cautious"), policy_named("bold")])
    defences = ("dodge", "counter-attack")
    assert game.decide("defence", "player 1 defends", defences) == 0
    assert game.decide("defence", "player 2 defends", defences, asked=game.state.players[1]) == 1


def test_odds_walks_a_card_once_per_state(pack: CompiledPack) -> None:
    odds = OddsPolicy()
    game = pack.new_game(seed=0)
    seat_policies(game, odds)
    lights = card(pack, "Lights Going Out")
    for _ in range(3):
        game.player.stats.set("terror", 1)
        game.play(lights)
    assert odds.walks == 1
    game.player.stats.set("terror", 3)
    game.play(lights)
    assert odds.walks == 2
    assert answers(game) == [*["Close your eyes"] * 3, "Run for the stairs"]


def test_odds_cannot_tell_look_alike_variants_apart(pack: CompiledPack) -> None:
    """Variants offer the same face: whichever of two was drawn, with the other still in the
    deck, the odds seat weighs both alike and answers the same."""
    twins = {c.variant: c for c in pack.cards if c.title == "The Twins"}
    answered = []
    for drawn, other in ((1, 2), (2, 1)):
        game = pack.new_game(seed=0)
        seat_policies(game, policy_named("odds"))
        deck = [game.new_instance(twins[other]), game.new_instance(twins[drawn])]
        game.state.decks["hallucination"] = deck
        game.draw("hallucination")
        answered.append(answers(game))
    assert answered[0] == answered[1]


def test_odds_rules_out_the_variants_none_of_which_is_left(pack: CompiledPack) -> None:
    """With no look-alike left undrawn, the card offered can only be the one drawn: the one
    walked."""
    for variant, wanted in ((1, "Turn away"), (2, "Follow them")):
        game = pack.new_game(seed=0)
        seat_policies(game, policy_named("odds"))
        drawn = next(c for c in pack.cards if c.title == "The Twins" and c.variant == variant)
        game.state.decks["hallucination"] = [game.new_instance(drawn)]
        game.draw("hallucination")
        assert answers(game) == [wanted]


@pytest.fixture(scope="module")
def coma_ward() -> CompiledPack:
    return compiled(COMA_WARD)


@pytest.mark.parametrize("name", ["cautious", "bold"])
def test_a_games_own_procedure_is_answered_as_its_rules_answer_it(
    coma_ward: CompiledPack, name: str
) -> None:
    """Where to step next is no card's words: a cautious seat that read `stop` as holding back
    never walked anywhere, and its prologues ran to the round limit."""
    game = coma_ward.new_game(seed=0, players=2)
    seat_policies(game, policy_named(name))
    assert game.decide("move", "3 moves left: step", ("stop", "hallway-1"), default=1) == 1
    assert game.decide("main", "main action", ("rummage", "attack player 2"), default=0) == 0
    # A card's own decision is still read: its words are the player's to weigh.
    doors = ("Leave quietly", "Open the door")
    assert game.decide("option", "pick", doors, default=None) == (0 if name == "cautious" else 1)


@pytest.mark.parametrize("name", ["bold", "odds"])
def test_whole_prologues_under_a_policy_reach_the_phenomenon(
    coma_ward: CompiledPack, name: str
) -> None:
    """Every seat the same policy, four players: the third clue is found, well before the round
    limit (the odds policy is asked the hallucinations' options, and walks them)."""
    whole = coma_ward_whole()
    for seed in range(3):
        game = whole.new_game(coma_ward.rules, coma_ward.cards, 4, seed)
        game.logging = False
        policy = policy_named(name)
        seat_policies(game, policy)
        whole.play(game, "prologue")
        assert "phenomenon_revealed" in game.state.flags, (name, seed)
        assert game.state.round < 40, (name, seed, game.state.round)
    if isinstance(policy, OddsPolicy):
        assert policy.walks > 0
