"""Lobotomy's characters' passing qualities and defenses, until the round ends.

- **Stealth and ethereal movement**, given by a card (rulebook, Movement 333, Stomp! 904, the
  keywords 1105 and 1117). A character with stealth leaves a space with monsters on it and is
  not stomped by the Warden; an ethereal character walks through doors and leaves a space with
  monsters on it unless one of them is ethereal too. A quality is a keyword of the character's
  actor, as a monster's are, so that the rules that read a monster's (`ethereal` for doors)
  read a character's the same way.
- **Defense skills in the monsters' turn** (526, 542, 769): before a monster picks whom it
  attacks, and again once it has, each character it may attack may use a defense skill of
  theirs that costs 0 AP; `brace N` is Defense until the round ends.
"""

from __future__ import annotations

from typing import Any

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.lobotomy_attack import PAID
from runtime.state import Actor

DEFENSE = "defense"
BRACED = "braced"
"""The flag `braced:NAME:N`: N Defense a card gave a character until the round ends."""
SKILL_KINDS = frozenset({"skill", "disorder"})
WEAPON = "weapon"

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


def brace(game: Game, card: CardInstance, *, amount: int) -> None:
    """`brace 1`: the acting character's Defense is 1 more until the round ends."""
    actor = game.actor
    before = actor.stats.get(DEFENSE)
    game.change(DEFENSE, amount, actor)
    gained = actor.stats.get(DEFENSE) - before
    if gained:
        game.state.flags.add(f"{BRACED}:{actor.name}:{gained}")


def weapon_attack(game: Game, card: CardInstance) -> None:
    """`attack with a weapon of yours` (701): the attack of a weapon the character holds (the
    player picks which), with all it brings; the card that says so has paid for it."""
    actor = game.actor
    weapons = [c for c in actor.items if c.kind == WEAPON and game.usable(c)]
    if not weapons:
        game.event("attack", f"{actor.name} holds no weapon to attack with")
        return
    titles = [c.title for c in weapons]
    weapon = weapons[game.decide("option", "attack with", titles) if len(weapons) > 1 else 0]
    flag = f"{PAID}:{actor.name}"
    game.state.flags.add(flag)
    try:
        game.fire("use", [weapon])
    finally:
        game.state.flags.discard(flag)


def _defends(card: CardInstance) -> bool:
    """A defense skill of no AP, off cooldown: one a character may use in the monsters' turn."""
    properties = card.definition.properties
    return (
        card.kind in SKILL_KINDS
        and properties.get("type") == DEFENSE
        and not properties.get("cost")
        and not card.tokens.get("cooldown")
    )


def defend(game: Game, characters: list[Actor], moment: str) -> None:
    """Each character a monster may attack may use a defense skill of no AP (526, 769): asked
    in seat order, `moment` being before or after the monster picks whom it attacks. Not
    using one is the default answer."""
    for character in characters:
        skills = [card for card in character.items if _defends(card)]
        if not skills or character.dead:
            continue
        choices = ["no", *(f"use {card.title}" for card in skills)]
        prompt = f"{character.name}: a defense skill {moment}"
        picked = game.decide(DEFENSE, prompt, choices, default=0, asked=character)
        if picked:
            acting = game.state.acting
            game.state.acting = character
            try:
                game.use(skills[picked - 1])
            finally:
                game.state.acting = acting


def round_over(game: Game) -> None:
    """A new round: the qualities and Defense cards gave characters in the last one are gone."""
    for actor in game.actors_of(CHARACTER):
        if actor.keywords & QUALITIES:
            actor.keywords = actor.keywords - QUALITIES
    braced = [flag for flag in game.state.flags if flag.startswith(f"{BRACED}:")]
    for flag in braced:
        game.state.flags.discard(flag)
        _, name, gained = flag.rsplit(":", 2)
        owner = next((a for a in game.actors_of(CHARACTER) if a.name == name), None)
        if owner is not None:
            game.change(DEFENSE, -int(gained), owner)


ABILITIES: dict[str, Any] = {
    "verbs": {"become": become, "brace": brace, "weapon_attack": weapon_attack},
    "conditions": {"quality": is_quality},
    "reactions": {"round_starts": round_over},
}
"""The tables this module adds to Lobotomy's (`GameModule.extend`)."""
