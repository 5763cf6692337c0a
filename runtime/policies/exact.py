"""`odds`: the option with the best expected outcome from the exact odds, a "cheating" bound.

Unlike a player, this policy reads the card behind the titles: the options of the card being
narrated are walked exactly (`runtime.odds.card_odds`) from the seat as it is now (its stats,
what it carries and owns, where it stands, the game's tracks), and the option whose expected
changes are worth the most is taken. A stat's change counts for what the ruleset's polarity
says (good up, bad down); a death costs as much as every such stat's whole range, more than
any change of them can be worth. Every other decision, and a card whose walk cannot be done,
is decided as `cautious` would.
"""

from __future__ import annotations

import re
from fractions import Fraction

from runtime.cards import CardDef, CardInstance
from runtime.decisions import Decision
from runtime.game import Game
from runtime.odds import BlockOdds, Table, card_odds
from runtime.policies.base import Seat, best
from runtime.policies.heuristics import CautiousPolicy
from runtime.state import Actor
from runtime.stats import StatRule, polarity

RECENT_EVENTS = 50
"""How far back the log is read for the card whose options are asked, among look-alikes."""


def offering_card(game: Game, decision: Decision) -> CardDef | None:
    """The card whose options a decision offers: the pack's card with these option titles;
    among variants with the same titles, the one the log named last."""
    found = [
        card
        for card in game.cards
        if tuple(option.title for option in card.options) == decision.choices
    ]
    if len(found) <= 1:
        return found[0] if found else None
    named = [(re.compile(re.escape(card.label) + r"(?!\d)"), card) for card in found]
    for event in reversed(game.log.events[-RECENT_EVENTS:]):
        for pattern, card in named:
            if pattern.search(event.text):
                return card
    return found[0]


def _copy(game: Game, card: CardInstance) -> CardInstance:
    """A copy of a card as it lies now: its side, its tokens, what it has used up."""
    copy = game.new_instance(card.definition)
    copy.tokens, copy.spent, copy.flipped = dict(card.tokens), set(card.spent), card.flipped
    return copy


def table_at(game: Game, seat: Seat) -> Table:
    """The start of every walk: the seat's character as it is now, the game's tracks."""
    player: Actor = seat.player

    def setup(walked: Game) -> None:
        mine = walked.player
        mine.stats.rules = dict(player.stats.rules)
        mine.stats.values = dict(player.stats.values)
        mine.stats.pinned = dict(player.stats.pinned)
        mine.location = player.location
        mine.items = [_copy(walked, card) for card in player.items]
        mine.owned = [_copy(walked, card) for card in player.owned]
        mine.bonuses = list(player.bonuses)
        walked.state.tracks.update(game.state.tracks)

    return Table(game.rules, game.cards, game.module, setup)


def worth(block: BlockOdds, rules: list[StatRule]) -> Fraction:
    """What an option's outcomes are worth on average: good stats up and bad down, a death
    less than any of that."""
    signs = polarity(rules)
    death = sum((Fraction(r.high - r.low) for r in rules if r.name in signs), Fraction(0))
    expected = block.expected(list(signs))
    return sum((sign * expected[name] for name, sign in signs.items()), -death * block.death)


class OddsPolicy:
    """Picks the option of the best expected outcome from the exact odds of its card."""

    def __init__(self) -> None:
        self.fallback = CautiousPolicy()

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The option worth the most; any other decision as cautious would."""
        card = offering_card(game, decision) if decision.kind == "option" else None
        if card is None:
            return self.fallback.decide(game, seat, decision)
        try:
            blocks = card_odds(table_at(game, seat), card)
        except Exception:  # a card whose odds cannot be walked is played without them
            return self.fallback.decide(game, seat, decision)
        rules = list(seat.player.stats.rules.values())
        return best(seat, [worth(block, rules) for block in blocks], decision)
