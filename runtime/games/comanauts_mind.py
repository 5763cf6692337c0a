"""Comanauts' clarity, reserve and vital signs: the parts of a turn beyond the seed's page.

The seed's page (the skill test to Check Threat) names none of them; the rulebook's turn page
does (Gain Clarity, Place Inner Child, Reserve) and its page of conditions (Vital Signs,
Clarity). What they say, as this module reads it (docs/comanauts.md):

- **Clarity.** White dice drawn are rolled at once, alone or together as the player picks;
  a roll that meets the player's clarity tokens gains one, and the dice rolled are discarded
  either way. The tokens pay for an avatar's clarity ability (the ruleset's `game:` action).
- **Reserve.** A die put on the reserve slot is not discarded at the end of the turn; it
  joins the pool as the player's next turn starts, after the draw.
- **Vital signs.** The inner child die drawn is rolled onto its slot and a vital signs card
  is revealed; so is one when an avatar is out (the Morass, read as health 0) and when a
  page says so. A critical card resolves the open page's entry for it, once a page; the
  Flatline card, under the deck, loses the game (the ruleset's ending).
"""

from __future__ import annotations

from fractions import Fraction

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.comanauts_dice import DieGroup, fewest_dice
from runtime.state import Actor

CLARITY = "clarity"
"""The stat of clarity tokens."""

CLARITY_DICE = "white"
CHILD_DIE = "child"
"""The bag's white dice and its inner child die, counted by `white_bag` and `child_bag`."""

INNER_CHILD = "inner_child"
"""The track of the inner child die's slot: its face, 0 when it is not there."""

VITALS = "vitals"
CRITICAL = "critical"
CRITICALS = "criticals"
READ = "vital_signs_read"
"""The vital signs deck, the trigger of a page's entry for a critical card, the track of
critical cards revealed on the open page and that of every card revealed."""

RESERVED = "reserved:"
"""An actor's bonuses hold its reserved dice as (`reserved:<colour>`, count)."""

RESERVE = "reserve_slot"
"""The stat of dice a reserve slot holds."""

CLARITY_GAINED = "clarity gained"
VITALS_REVEALED = "vital signs revealed"
CRITICALS_RESOLVED = "critical vital signs resolved"
CHILD_DRAWN = "inner child die drawn"
"""What the module counts as it happens, for the figures of a simulation."""

WHITE_FACES = (1, 2, 3, 4, 5, 6)
"""A white die's faces (designer values, as the colours' are)."""


# ---------------------------------------------------------------- clarity


def gain_clarity(game: Game, actor: Actor, dice: int) -> None:
    """Roll the white dice drawn, alone or together (the player picks how many a roll), each
    roll that meets the clarity tokens gaining one; every white die rolled is discarded."""
    if CLARITY not in actor.stats.rules:
        return
    left = dice
    while left > 0:
        tokens = game.stat(CLARITY, actor)
        options = [f"{n} {'die' if n == 1 else 'dice'}" for n in range(1, left + 1)]
        white = DieGroup(CLARITY_DICE, left, faces=WHITE_FACES)
        none = DieGroup(CLARITY_DICE, 0, faces=WHITE_FACES)
        default = (fewest_dice(white, none, tokens, Fraction(1, 2)) or left) - 1
        asked = f"roll how many white dice together (clarity {tokens})"
        count = 1 + (game.decide("spend", asked, options, default=default) if left > 1 else 0)
        left -= count
        rolled = game.roll_dice(count, len(WHITE_FACES)).total
        met = rolled >= tokens
        said = "gains a clarity token" if met else "gains nothing"
        game.event("clarity", f"{actor.name} rolls {rolled} for clarity (has {tokens}): {said}")
        if met:
            game.change(CLARITY, 1, actor)
            game.state.count(CLARITY_GAINED)


# ---------------------------------------------------------------- the reserve


def reserved(actor: Actor) -> dict[str, int]:
    """The dice on an actor's reserve slot, by colour."""
    held: dict[str, int] = {}
    for name, count in actor.bonuses:
        if name.startswith(RESERVED):
            colour = name[len(RESERVED) :]
            held[colour] = held.get(colour, 0) + count
    return held


def reserve_room(game: Game, actor: Actor) -> int:
    """How many more dice the actor's reserve slot holds."""
    if RESERVE not in actor.stats.rules:
        return 0
    return game.stat(RESERVE, actor) - sum(reserved(actor).values())


def put_in_reserve(game: Game, actor: Actor, colour: str) -> None:
    """A die of the pool goes onto the reserve slot."""
    game.change(colour, -1, actor)
    actor.bonuses.append((f"{RESERVED}{colour}", 1))
    game.event("reserve", f"{actor.name} puts a {colour} die on the reserve slot")


def take_reserve(game: Game, actor: Actor) -> None:
    """The reserved dice join the pool (as the actor's turn starts)."""
    kept = reserved(actor)
    if not kept:
        return
    actor.bonuses = [(name, n) for name, n in actor.bonuses if not name.startswith(RESERVED)]
    for colour, count in kept.items():
        game.change(colour, count, actor)
        game.event("reserve", f"{actor.name} takes the reserved {colour} die into the pool")


# ---------------------------------------------------------------- vital signs


def inner_child_drawn(game: Game) -> None:
    """The inner child die: rolled onto its slot, and a vital signs card revealed."""
    game.state.count(CHILD_DRAWN)
    face = game.roll_dice(1, 6).total
    if INNER_CHILD in game.state.tracks:
        game.advance(INNER_CHILD, face - game.state.tracks[INNER_CHILD])
    game.event("child", f"the inner child die is drawn: {face} on its slot")
    reveal_vitals(game)


def reveal_vitals(game: Game) -> None:
    """The top card of the vital signs deck is revealed (its `when revealed` runs)."""
    if VITALS not in game.state.decks:
        return
    game.state.count(VITALS_REVEALED)
    if READ in game.state.tracks:
        game.advance(READ, 1)
    game.draw(VITALS)


def vital_drawn(game: Game, card: CardInstance) -> bool:
    """A vital signs card revealed does what it says, then lies face up beside the deck."""
    game.fire("drawn", [card])
    game.discard(card)
    return True


def turn_critical(game: Game, page: CardInstance | None) -> None:
    """The first critical card revealed on a page resolves the page's entry for it; a second
    on the same page does nothing."""
    game.step()
    before = game.state.tracks.get(CRITICALS, 0)
    if CRITICALS in game.state.tracks:
        game.advance(CRITICALS, 1)
    if before or page is None:
        game.event("vitals", "critical again on this page: no effect")
        return
    game.state.count(CRITICALS_RESOLVED)
    game.event("vitals", f"the vital signs turn critical on {page.definition.label}")
    game.fire(CRITICAL, [page])


def clear_criticals(game: Game) -> None:
    """A new page has seen no critical card yet."""
    if game.state.tracks.get(CRITICALS):
        game.advance(CRITICALS, -game.state.tracks[CRITICALS])
