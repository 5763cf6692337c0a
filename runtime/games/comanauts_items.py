"""Comanauts' items: five equipment slots, an inventory of two, gaining an item, an enemy's loot.

Each player has a head, a body, a hand, a hand/accessory and an accessory slot. An item's
`slot` property says where it fits: a hand item in either hand slot, an accessory in either
accessory slot, a two-handed item in both hand slots at once. Equipping an item into slots
that are taken moves what is there to another free slot it fits (the player picks) or to the
inventory, which holds two unequipped items; what fits nowhere is discarded. Which item is in
which slot is kept among the game's flags (`equipped:NAME:SLOT:UID`), so it is logged, copied
and shown with the rest of the state.

Gaining an item (drawing one, a search, a loot) offers to equip it, to stow it, to give it to
another player on the same space (who must equip or stow it), or to discard it.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.state import Actor

ITEM = "item"
ENEMY = "enemy"
COUNTERS = "counters"
"""An enemy's counters: one comes off each time it would be defeated; at none it is."""

HOSTILE = "hostile"
"""The situation track: 1 hostile, 0 safe."""

HOSTILE_WORD = "hostile"
"""The keyword of an enemy that may return once defeated (an I.D. does not)."""

ASIDE = "aside"
"""The flag prefix of a defeated hostile's card, set aside beside the page: it may return."""

DEFEATED = "enemies defeated"
"""What a simulation counts: every enemy defeated."""

SLOTS = ("head", "body", "hand", "hand-or-accessory", "accessory")
"""The five equipment slots, in the order a free one is offered."""

FITS: dict[str, tuple[tuple[str, ...], ...]] = {
    "head": (("head",),),
    "body": (("body",),),
    "hand": (("hand",), ("hand-or-accessory",)),
    "accessory": (("accessory",), ("hand-or-accessory",)),
    "two-handed": (("hand", "hand-or-accessory"),),
}
"""Where an item of each `slot` property fits: each way is the slots it takes together."""

INVENTORY = 2
"""The unequipped items a player can carry."""

EQUIPPED = "equipped"


def slots_of(game: Game, actor: Actor) -> dict[str, CardInstance]:
    """What is in each of an actor's slots that is taken."""
    by_uid = {card.uid: card for card in actor.items}
    found: dict[str, CardInstance] = {}
    prefix = f"{EQUIPPED}:{actor.name}:"
    for flag in game.state.flags:
        if flag.startswith(prefix):
            slot, _, uid = flag.removeprefix(prefix).rpartition(":")
            card = by_uid.get(int(uid))
            if card is not None:
                found[slot] = card
    return found


def equipped(game: Game, actor: Actor, card: CardInstance) -> tuple[str, ...] | None:
    """The slots a card takes, or None if it is not equipped."""
    taken = tuple(slot for slot, held in slots_of(game, actor).items() if held is card)
    return tuple(sorted(taken, key=SLOTS.index)) if taken else None


def inventory(game: Game, actor: Actor) -> list[CardInstance]:
    """The items an actor carries unequipped."""
    return [c for c in actor.items if c.kind == ITEM and equipped(game, actor, c) is None]


def ways(card: CardInstance) -> tuple[tuple[str, ...], ...]:
    """The ways an item can be equipped (none for an item without a slot)."""
    return FITS.get(str(card.definition.properties.get("slot", "")), ())


def _set(game: Game, actor: Actor, card: CardInstance, slots: Sequence[str]) -> None:
    for slot in slots:
        game.state.flags.add(f"{EQUIPPED}:{actor.name}:{slot}:{card.uid}")


def unequip(game: Game, actor: Actor, card: CardInstance) -> None:
    """Take an item out of its slots (it stays carried)."""
    prefix = f"{EQUIPPED}:{actor.name}:"
    game.state.flags = {
        f for f in game.state.flags if not (f.startswith(prefix) and f.endswith(f":{card.uid}"))
    }


def _slot_words(slots: Sequence[str]) -> str:
    return " and ".join(f"the {slot}" for slot in slots) + (" slots" if len(slots) > 1 else " slot")


def equip(game: Game, actor: Actor, card: CardInstance) -> bool:
    """Equip an item, moving what holds its slots elsewhere; False if it fits no slot."""
    game.step()
    options = ways(card)
    if not options:
        game.event("equip", f"{card.definition.label} fits no slot")
        return False
    if card not in actor.items:
        actor.items.append(card)
    unequip(game, actor, card)
    taken = slots_of(game, actor)
    free = [way for way in options if not any(slot in taken for slot in way)]
    choices = free or list(options)
    way = choices[0]
    if len(choices) > 1:
        prompt = f"{card.definition.label} goes in"
        way = choices[game.decide("slot", prompt, [_slot_words(w) for w in choices])]
    for holder in dict.fromkeys(taken[slot] for slot in way if slot in taken):
        unequip(game, actor, holder)
        _move_aside(game, actor, holder, way, card)
    _set(game, actor, card, way)
    game.event("equip", f"{actor.name} equips {card.definition.label} ({_slot_words(way)})")
    return True


def _move_aside(
    game: Game, actor: Actor, card: CardInstance, freeing: Sequence[str], coming: CardInstance
) -> None:
    """An item pushed out of its slots by the one `coming` into them: to another free slot it
    fits, the inventory, or away."""
    taken = set(slots_of(game, actor)) | set(freeing)
    free = [way for way in ways(card) if not any(slot in taken for slot in way)]
    choices = [f"to {_slot_words(way)}" for way in free]
    stowed = [item for item in inventory(game, actor) if item is not card and item is not coming]
    if len(stowed) < INVENTORY:
        choices.append("to the inventory")
    if not choices:
        game.event("equip", f"{card.definition.label} fits nowhere: it is discarded")
        game.discard(card)
        return
    index = (
        game.decide("slot", f"{card.definition.label} moves", choices) if len(choices) > 1 else 0
    )
    if index < len(free):
        _set(game, actor, card, free[index])
        game.event("equip", f"{card.definition.label} moves {choices[index]}")
    else:
        game.event("equip", f"{card.definition.label} goes to the inventory")


def gain_item(game: Game, actor: Actor, card: CardInstance) -> None:
    """An item gained: equip it, stow it, give it to a player on the space, or discard it."""
    others = [
        other
        for other in game.state.players
        if other is not actor and not other.dead and other.location == actor.location
    ]
    choices: list[tuple[str, Actor | None]] = [("equip", actor)]
    if len(inventory(game, actor)) < INVENTORY:
        choices.append(("inventory", actor))
    choices += [(f"give to {other.name}", other) for other in others]
    choices.append(("discard", None))
    prompt = f"{actor.name} gains {card.definition.label}"
    picked, receiver = choices[game.decide("item", prompt, [label for label, _ in choices])]
    if receiver is None:
        game.discard(card)
    elif receiver is not actor:
        game.event("give", f"{actor.name} gives {card.definition.label} to {receiver.name}")
        keep(game, receiver, card)
    else:
        store(game, actor, card, picked == "equip")


def keep(game: Game, actor: Actor, card: CardInstance) -> None:
    """An item given to a player: she must equip it or place it in her inventory."""
    choices = ["equip"] + (["inventory"] if len(inventory(game, actor)) < INVENTORY else [])
    picked = 0
    if len(choices) > 1:
        picked = game.decide("item", f"{actor.name} takes {card.definition.label}", choices)
    store(game, actor, card, choices[picked] == "equip")


def store(game: Game, actor: Actor, card: CardInstance, wear: bool) -> None:
    """Carry an item, equipped or in the inventory."""
    if card not in actor.items:
        actor.items.append(card)
    if wear and equip(game, actor, card):
        return
    game.event("stow", f"{actor.name} stows {card.definition.label}")


# ---------------------------------------------------------------- defeat and loot


def defeat(game: Game, foe: Actor) -> None:
    """An attack defeats an enemy: one of its counters comes off (the Prime I.D. Entity has
    several); with none left it is defeated and out of play."""
    if COUNTERS in foe.stats.rules:
        if foe.stats.get(COUNTERS) > 1:
            game.event("defeat", f"{foe.name} would be defeated: a counter comes off instead")
        game.change(COUNTERS, -1, foe)
    elif not foe.dead:
        foe.stats.dead = True
        removed(game, foe)


def removed(game: Game, foe: Actor) -> None:
    """A defeated enemy leaves the map, its card set aside (a hostile's may return); its
    defeater may loot it; with no enemy left, the situation turns safe."""
    if foe.kind != ENEMY:
        return
    foe.location = None
    game.event("defeat", f"{foe.name} is defeated", actor=foe.name)
    game.state.count(DEFEATED)
    if foe.sheet is not None:
        game.discard(foe.sheet)
        if HOSTILE_WORD in foe.keywords:
            game.state.flags.add(f"{ASIDE}:{foe.sheet.uid}")
    if game.state.target is foe:
        game.state.target = None
    loot = foe.sheet.definition.properties.get("loot") if foe.sheet is not None else None
    if isinstance(loot, str):
        found = game.find(loot)
        if found is None:
            game.event("loot", f"the pack has no item {loot!r} to loot")
        else:
            game.event("loot", f"{game.actor.name} loots {found.label}")
            gain_item(game, game.actor, game.new_instance(found))
    if not game.actors_of(ENEMY) and game.state.tracks.get(HOSTILE):
        game.advance(HOSTILE, -game.state.tracks[HOSTILE])
