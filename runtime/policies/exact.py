"""`odds`: the option with the best expected outcome from the exact odds, over what it could be.

A player sees a card's face (its title and option titles), not which of several look-alike
variants was drawn. So this policy walks exactly (`runtime.odds.card_odds`) the options of every
card the one offered could be, from the seat as it is now (its stats, what it carries and owns,
where it stands, and what the game shares): each variant with the card's face, weighted by how
many of it the seat cannot rule out (those not yet drawn from its deck, and the one in hand);
the option whose expected changes are worth the most over them all is taken. A stat's change
counts for what the ruleset's polarity says (good up, bad down); a death costs as much as every
such stat's whole range, more than any change of them can be worth. Every other decision, and a
card whose walk cannot be done, is decided as `cautious` would.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from runtime.cards import CardDef, CardInstance
from runtime.decisions import Decision
from runtime.game import Game
from runtime.odds import BlockOdds, Table, card_odds
from runtime.policies.base import Seat, best
from runtime.policies.heuristics import CautiousPolicy
from runtime.policies.view import face
from runtime.rules import GameRules
from runtime.state import Actor
from runtime.stats import StatRule, polarity

MAX_REMEMBERED = 10_000
"""Walks an odds policy remembers (cards at a state), before it forgets them all."""


def possible_cards(game: Game, decision: Decision) -> list[tuple[CardDef, int]]:
    """Every card the one whose options a decision offers could be, as its seat sees it, with
    how many of it there could be: the pack's cards with the offered card's face (or, when the
    decision names none, with these option titles), each counted as often as it is in a deck
    not yet drawn, plus one for the card offered. The counts are the same whichever of them
    was drawn, so the answer is too."""
    offered = decision.card
    seen = face(offered) if offered is not None else None
    alike = [
        card
        for card in game.cards
        if (face(card) == seen if seen is not None else _titles(card) == decision.choices)
    ]
    if not alike:
        return []
    undrawn: dict[int, int] = {}
    for pile in game.state.decks.values():
        for instance in pile:
            key = id(instance.definition)
            undrawn[key] = undrawn.get(key, 0) + 1
    counted = [(card, undrawn.get(id(card), 0) + (card is offered)) for card in alike]
    if offered is None:  # which was drawn is not known: each of them as likely
        counted = [(card, count + 1) for card, count in counted]
    return [(card, count) for card, count in counted if count > 0]


def _titles(card: CardDef) -> tuple[str, ...]:
    return tuple(option.title for option in card.options)


def _copy(game: Game, card: CardInstance) -> CardInstance:
    """A copy of a card as it lies now: its side, its tokens, what it has used up."""
    copy = game.new_instance(card.definition)
    copy.tokens, copy.spent, copy.flipped = dict(card.tokens), set(card.spent), card.flipped
    return copy


def table_at(game: Game, seat: Seat) -> Table:
    """The start of every walk: the seat's character as it is now, and what the game shares
    (its tracks and flags, the cards found and those in play at places)."""
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
        shared, now = walked.state, game.state
        shared.tracks.update(now.tracks)
        shared.flags = set(now.flags)
        shared.found = [_copy(walked, card) for card in now.found]
        shared.in_play = {place: _copy(walked, card) for place, card in now.in_play.items()}

    return Table(game.rules, game.cards, game.module, setup)


def worth(block: BlockOdds, rules: list[StatRule]) -> Fraction:
    """What an option's outcomes are worth on average: good stats up and bad down, a death
    less than any of that."""
    signs = polarity(rules)
    death = sum((Fraction(r.high - r.low) for r in rules if r.name in signs), Fraction(0))
    expected = block.expected(list(signs))
    return sum((sign * expected[name] for name, sign in signs.items()), -death * block.death)


def _card_key(card: CardInstance) -> Hashable:
    definition = card.definition
    return (
        definition.file,
        definition.line,
        card.flipped,
        tuple(sorted(card.tokens.items())),
        tuple(sorted(card.spent)),
    )


def state_key(game: Game, seat: Seat) -> Hashable:
    """Everything `table_at` copies, as a key: equal keys, equal walks."""
    player, state = seat.player, game.state
    stats = player.stats
    return (
        tuple(stats.rules.values()),
        tuple(sorted(stats.values.items())),
        tuple(sorted(stats.pinned.items())),
        player.location,
        tuple(_card_key(card) for card in player.items),
        tuple(_card_key(card) for card in player.owned),
        tuple(player.bonuses),
        tuple(sorted(state.tracks.items())),
        tuple(sorted(state.flags)),
        tuple(_card_key(card) for card in state.found),
        tuple((place, _card_key(card)) for place, card in sorted(state.in_play.items())),
    )


class OddsPolicy:
    """Picks the option of the best expected outcome from the exact odds of its card."""

    def __init__(self) -> None:
        self.fallback = CautiousPolicy()
        self.walks = 0  # cards walked, not found in the cache
        self._rules: GameRules | None = None  # the game the cache is of
        self._worths: dict[Hashable, list[Fraction] | None] = {}

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The option worth the most over every card it could be; any other decision as
        cautious would."""
        cards = possible_cards(game, decision) if decision.kind == "option" else []
        total = [Fraction(0)] * len(decision.choices)
        weight = 0
        for card, count in cards:
            worths = self._worth_of(game, seat, card)
            if worths is None or len(worths) != len(total):
                return self.fallback.decide(game, seat, decision)
            total = [sum_ + count * worth for sum_, worth in zip(total, worths, strict=True)]
            weight += count
        if not weight:
            return self.fallback.decide(game, seat, decision)
        return best(seat, [sum_ / weight for sum_ in total], decision)

    def _worth_of(self, game: Game, seat: Seat, card: CardDef) -> list[Fraction] | None:
        """What each option of the card is worth from here, remembered for the same state;
        None when its odds cannot be walked."""
        if game.rules is not self._rules:
            self._rules, self._worths = game.rules, {}
        key = (card.file, card.line, card.variant, state_key(game, seat))
        if key not in self._worths:
            if len(self._worths) >= MAX_REMEMBERED:
                self._worths.clear()
            self.walks += 1
            rules = list(seat.player.stats.rules.values())
            try:
                blocks = card_odds(table_at(game, seat), card)
            except Exception:  # a card whose odds cannot be walked is played without them
                self._worths[key] = None
            else:
                self._worths[key] = [worth(block, rules) for block in blocks]
        return self._worths[key]
