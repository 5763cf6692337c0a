"""Lobotomy's characters' passing qualities: stealth and ethereal movement, given by a card
until the round ends (rulebook, Movement 333, Stomp! 904, the keywords 1105 and 1117).

A character with stealth leaves a space with monsters on it and is not stomped by the Warden;
an ethereal character walks through doors and leaves a space with monsters on it unless one of
them is ethereal too. A quality is a keyword of the character's actor, as a monster's are, so
that the rules that read a monster's (`ethereal` for doors) read a character's the same way.
"""

from __future__ import annotations

from typing import Any

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.state import Actor

CHARACTER = "character"
STEALTHY = "stealthy"
ETHEREAL = "ethereal"
QUALITIES = frozenset({STEALTHY, ETHEREAL})
"""The qualities a card gives a character until the round ends."""


def become(game: Game, card: CardInstance, *, quality: str) -> None:
    """`become stealthy`: the acting character has the quality until the round ends."""
    actor = game.actor
    actor.keywords = actor.keywords | {quality}
    game.event("quality", f"{actor.name} is {quality} until the round ends", actor=actor.name)


def has(actor: Actor, quality: str) -> bool:
    """Whether the actor has the quality now."""
    return quality in actor.keywords


def is_quality(game: Game, card: CardInstance, *, quality: str) -> bool:
    """`you are ethereal`."""
    return has(game.actor, quality)


def round_over(game: Game) -> None:
    """A new round: the qualities cards gave characters in the last one are gone."""
    for actor in game.actors_of(CHARACTER):
        if actor.keywords & QUALITIES:
            actor.keywords = actor.keywords - QUALITIES


ABILITIES: dict[str, Any] = {
    "verbs": {"become": become},
    "conditions": {"quality": is_quality},
    "reactions": {"round_starts": round_over},
}
"""The tables this module adds to Lobotomy's (`GameModule.extend`)."""
