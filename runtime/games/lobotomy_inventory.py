"""Lobotomy's characters: a character card seated, skills and items within their capacities,
memories, running, and what using a card costs.

The ruleset says what a character card, a skill, a memory and an item print; this module runs
the rulebook's rules around them (Setup, Memories, Skills, Items & Inventory, Running). Where
the rulebook gives the player a choice (which skill or item goes when one is too many, which
basic skills to start with), the player is asked, the card just gained offered first: a player
who takes the first answer keeps what they had. The readings are in docs/lobotomy.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runtime.cards import CardDef, CardInstance
from runtime.game import Game
from runtime.games.base import carry
from runtime.module import ValueDef
from runtime.state import Actor, Player

AP = "ap"
HEALTH = "health"
CHARGES = "charges"
COOLDOWN = "cooldown"
CHARACTER = "character"
MEMORY = "memory"
DISORDERS_DECK = "disorders"

SKILL_KINDS = frozenset({"skill", "disorder"})
"""Cards that count towards the skill capacity (memories do not: they are owned, not held)."""

INVENTORY_KINDS = frozenset({"weapon", "equipment", "drug"})
"""Cards that count towards the inventory capacity, by the slots they take."""

SKILL_CAPACITY = 6
INVENTORY_CAPACITY = 4
BASIC_SKILLS_AT_SETUP = 2
RUNNING_AP = 2
RUNNING = "running"
"""The flag of a character running this turn (`running:NAME`)."""


# ---------------------------------------------------------------- reading a card


def _number(card: CardInstance, name: str) -> int:
    """A whole-number property of the card, 0 when it has none."""
    value = card.definition.properties.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _titles(card: CardInstance, name: str) -> list[str]:
    """The card titles a property names (a character's starting equipment)."""
    value = card.definition.properties.get(name)
    if isinstance(value, str):
        return [value]
    return [str(title) for title in value] if isinstance(value, list | tuple) else []


def slots(card: CardInstance) -> int:
    """Inventory slots an item takes: large 2, small and drugs none, any other 1."""
    properties = card.definition.properties
    if card.kind == "drug" or properties.get("small"):
        return 0
    return 2 if properties.get("large") else 1


def reserve_deck(actor: Actor) -> str:
    """The deck name of a character's basic skills kept under the card."""
    return f"{actor.name}'s basic skills"


def memory_deck(actor: Actor) -> str:
    """The deck name of a character's own memory deck."""
    return f"{actor.name}'s memories"


# ---------------------------------------------------------------- capacities


def _within(
    game: Game,
    new: CardInstance,
    counts: Callable[[CardInstance], bool],
    limit: int,
    why: str,
    size: Callable[[CardInstance], int] = lambda card: 1,
) -> None:
    """Discard held cards of the player's choice until those that count fit the limit; the
    card just gained is offered first (so the first answer keeps what the player had). After
    the discards come the other ways out: a skill off cooldown used one last time as it goes
    (552), an item's last charges used up (564; not the new card's, nor one that could not be)."""
    tried: set[int] = set()
    while True:
        cards = [c for c in game.player.items if counts(c)]
        if sum(map(size, cards)) <= limit or not cards:
            return
        offered = [new, *(c for c in cards if c is not new)] if new in cards else cards
        last = [c for c in offered if c.kind in SKILL_KINDS and not c.tokens.get(COOLDOWN)]
        spent = [
            c
            for c in cards
            if c is not new and c.tokens.get(CHARGES) and c.uid not in tried and game.usable(c)
        ]
        choices = [
            *(c.title for c in offered),
            *(f"use {c.title} one last time, then discard it" for c in last),
            *(f"use up {c.title}" for c in spent),
        ]
        picked = game.decide("item", f"{why}: discard", choices)
        if picked < len(offered):
            game.discard(offered[picked])
        elif picked < len(offered) + len(last):
            card = last[picked - len(offered)]
            game.use(card)
            if card in game.player.items:
                game.discard(card)
        else:
            card = spent[picked - len(offered) - len(last)]
            tried.add(card.uid)
            _use_up(game, card)


def _use_up(game: Game, card: CardInstance) -> None:
    """Use an item until its charges are gone (and it with them), or a use is refused."""
    while card in game.player.items and card.tokens.get(CHARGES):
        before = card.tokens[CHARGES]
        game.use(card)
        if card.tokens.get(CHARGES) == before:
            return


def _armor(card: CardInstance) -> bool:
    return bool(card.definition.properties.get("armor"))


def wound(game: Game, victim: Actor, damage: int) -> None:
    """An attack's damage to a character: the armor they hold takes it first, a token a point
    up to its durability left, and is discarded when it is full; the rest comes off their
    health (585-587). The rulebook lets the player choose; the armor always takes it here."""
    armor = next((c for c in victim.items if _armor(c) and c.tokens.get(CHARGES, 0) > 0), None)
    if armor is not None and damage > 0:
        taken = min(damage, armor.tokens[CHARGES])
        game.event("armor", f"{armor.definition.label} takes {taken} of {damage} damage")
        game.add_tokens(armor, CHARGES, -taken)
        if armor.tokens[CHARGES] == 0:
            game.discard(armor)
        damage -= taken
    if damage > 0:
        game.change(HEALTH, -damage, victim)


def _armor_given(game: Game, card: CardInstance) -> bool:
    """A second armor may be given, free, to a character on your space it fits (589); the
    player picks whom, or to keep one of the two and discard the other."""
    player = game.player
    if sum(1 for c in player.items if _armor(c)) < 2:
        return False
    others = [
        p
        for p in game.state.players
        if p is not player and not p.dead and p.location == player.location and _room(p, card)
    ]
    if not others:
        return False
    choices = [f"give {card.title} to {other.name}" for other in others]
    picked = game.decide("armor", "a second armor", [*choices, "discard one of the two"], default=0)
    if picked >= len(others):
        return False
    player.items.remove(card)
    others[picked].items.append(card)
    game.event("trade", f"{player.name} gives {card.title} to {others[picked].name}, free")
    return True


def take_item(game: Game, card: CardInstance) -> bool:
    """An item drawn: carried with its charges, within one armor and four slots."""
    carry(game, card)
    uses = _number(card, "uses")
    if uses and CHARGES not in card.tokens:
        game.add_tokens(card, CHARGES, uses)
    if _armor(card) and not _armor_given(game, card):
        _within(game, card, _armor, 1, "one armor at most")
    _within(
        game,
        card,
        lambda c: c.kind in INVENTORY_KINDS,
        INVENTORY_CAPACITY,
        "over the inventory capacity",
        slots,
    )
    return True


def learn_skill(game: Game, card: CardInstance) -> bool:
    """A skill gained: held, within the skill capacity of six."""
    carry(game, card)
    _within(game, card, lambda c: c.kind in SKILL_KINDS, SKILL_CAPACITY, "over the skill capacity")
    return True


def gain_card(game: Game, title: str) -> None:
    """An item or skill named by title comes to the player: from its deck if a copy is there."""
    definition = game.find(title)
    if definition is None:
        game.event("gain", f"no card of the pack is titled {title!r}")
        return
    if definition.kind not in INVENTORY_KINDS | SKILL_KINDS:
        # Only items and skills are gained: a memory or character card naming one of its own
        # kind would otherwise bring itself back without end.
        game.event("gain", f"{definition.label} is no item or skill to gain")
        return
    card = _copy_of(game, definition)
    game.event("gain", f"gain {card.definition.label}", uid=card.uid)
    handler = game.module.drawn.get(card.kind) or game.module.drawn["*"]
    handler(game, card)


def _copy_of(game: Game, definition: CardDef) -> CardInstance:
    """A copy of a card taken out of its deck, or a new one when the deck has none left."""
    deck = game.rules.kind_decks.get(definition.kind)
    pile = game.state.decks.get(deck or "") or []
    found = next((c for c in reversed(pile) if c.definition is definition), None)
    if found is None:
        return game.new_instance(definition)
    pile.remove(found)
    return game.from_deck(found)


# ---------------------------------------------------------------- setup


def seat_character(game: Game, card: CardInstance) -> bool:
    """A character card played: the player's character with its numbers, its starting
    equipment, two basic skills (the others under the card), one mental disorder skill of
    those drawn, and its memory deck (rulebook, Character Setup)."""
    player = game.player
    game.seat(player, card)
    if card not in player.owned:
        player.owned.append(card)
    for title in _titles(card, "carries"):
        gain_card(game, title)
    basics = [
        _copy_of(game, d)
        for d in game.cards
        if d.kind in SKILL_KINDS and d.properties.get("owner") == card.title
    ]
    for _ in range(min(BASIC_SKILLS_AT_SETUP, len(basics))):
        pick = basics.pop(_pick(game, "pick a basic skill", basics))
        learn_skill(game, pick)
    game.state.decks[reserve_deck(player)] = basics
    drawn = [c for d in _titles(card, "disorders") if (c := _draw_disorder(game, d))]
    if drawn:
        kept = drawn.pop(_pick(game, "keep one mental disorder skill", drawn))
        game.state.discards.setdefault(DISORDERS_DECK, []).extend(drawn)
        learn_skill(game, kept)
    game.state.decks[memory_deck(player)] = _memories_of(game, card)
    return True


def disorder_reward(game: Game, character: Player) -> None:
    """A scenario done before the clash (1005): the character draws a card of each of their
    Mental Disorder Decks, keeps one (their player picks) and the rest go back."""
    sheet = next((c for c in character.owned if c.kind == CHARACTER), None)
    if sheet is None:
        return
    drawn = [c for d in _titles(sheet, "disorders") if (c := _draw_disorder(game, d))]
    if not drawn:
        return
    current = game.state.current
    if character.seat is not None:  # the character's own capacity, their own choice
        game.state.current = character.seat
    try:
        kept = drawn.pop(_pick(game, "keep one mental disorder skill", drawn))
        game.state.discards.setdefault(DISORDERS_DECK, []).extend(drawn)
        learn_skill(game, kept)
    finally:
        game.state.current = current


def _pick(game: Game, prompt: str, cards: Sequence[CardInstance]) -> int:
    """The player's pick among cards (no question when there is one)."""
    return game.decide("option", prompt, [c.title for c in cards]) if len(cards) > 1 else 0


def _draw_disorder(game: Game, disorder: str) -> CardInstance | None:
    """The top card of one Mental Disorder Deck: the disorders deck's top card of that
    disorder (the five decks are one deck of the kind, told apart by their disorder)."""
    game.step()
    pile = game.state.decks.get(DISORDERS_DECK) or []
    found = next(
        (c for c in reversed(pile) if c.definition.properties.get("disorder") == disorder), None
    )
    if found is None:
        game.event("draw", f"the {disorder} deck is empty")
        return None
    pile.remove(found)
    found = game.from_deck(found)
    game.event("draw", f"draw {disorder}: {found.definition.label}", uid=found.uid)
    return found


def _memories_of(game: Game, card: CardInstance) -> list[CardInstance]:
    """A character's memory deck, shuffled: their own memories and a copy of each shared one
    (a memory that belongs to no one is the hospital's, in every character's deck)."""
    pile = game.state.decks.get(MEMORY) or []
    own = [c for c in pile if c.definition.properties.get("owner") == card.title]
    for memory in own:
        pile.remove(memory)
    own = [game.from_deck(memory) for memory in own]
    shared = [
        game.new_instance(d)
        for d in game.cards
        if d.kind == MEMORY and "owner" not in d.properties
        for _ in range(d.copies)
    ]
    deck = own + shared
    game.shuffle(deck)
    return deck


# ---------------------------------------------------------------- memories


def remembered(game: Game, card: CardInstance) -> bool:
    """A memory drawn stays by the character; it brings back what it names, then its `when
    remembered` block runs (a bad memory's roll)."""
    player = game.player
    player.owned.append(card)
    game.event("remember", f"{player.name} remembers {card.definition.label}", uid=card.uid)
    for title in _titles(card, "brings"):
        gain_card(game, title)
    game.fire("remembered", [card])
    return True


def remember(game: Game, card: CardInstance) -> None:
    """`remember`: the top card of your own memory deck."""
    deck = memory_deck(game.actor)
    if deck not in game.state.decks:
        game.event("remember", f"{game.actor.name} has no memory deck: no character is seated")
        return
    game.draw(deck)


def trade_memories(game: Game, card: CardInstance, run: Callable[[], None]) -> None:
    """Using a memory: it and another memory card are discarded for one of the basic skills
    under the character card, at no AP (rulebook, Memory Deck). A personal item a memory
    brought back counts as a memory card until it is used up or broken (506); a memory used
    up is gone, and cannot be (505)."""
    player = game.actor
    memories = [c for c in player.owned if c.kind == MEMORY]
    others = [
        *(c for c in memories if c is not card),
        *(c for c in player.items if c.kind in INVENTORY_KINDS and personal(game, c)),
    ]
    reserve = game.state.decks.get(reserve_deck(player)) or []
    if card not in memories or not others or not reserve:
        game.event("trade", "a trade takes two memory cards and a basic skill under the card")
        return
    second = others[_pick(game, "trade it with", others)]
    skill = game.from_deck(reserve.pop(_pick(game, "take back a basic skill", reserve)))
    for memory in (card, second):
        game.discard(memory)
    learn_skill(game, skill)


# ---------------------------------------------------------------- using, running


def running(game: Game, actor: Actor) -> bool:
    """Whether the actor declared running this turn."""
    return f"{RUNNING}:{actor.name}" in game.state.flags


def pay_and_use(game: Game, card: CardInstance, run: Callable[[], None]) -> None:
    """A use costs the card's AP: refused when the actor cannot pay, or runs and the cost is
    more than 0; an item with uses spends a charge, and goes at its last."""
    actor = game.actor
    cost = _number(card, "cost")
    if cost and running(game, actor):
        game.event("use", f"{actor.name} is running: {card.definition.label} costs {cost} AP")
        return
    if cost > game.stat(AP, actor):
        game.event(
            "use",
            f"{card.definition.label} costs {cost} AP; {actor.name} has {game.stat(AP, actor)}",
        )
        return
    if cost:
        game.change(AP, -cost, actor)
    run()
    if _number(card, "uses"):
        spend_charge(game, card)


def spend_charge(game: Game, card: CardInstance) -> None:
    """One use of an item with uses; at the last the item is discarded."""
    card.tokens.setdefault(CHARGES, _number(card, "uses"))
    game.add_tokens(card, CHARGES, -1)
    held = any(card in a.items or card in a.owned for a in game.state.players)
    if card.tokens[CHARGES] == 0 and held:
        game.discard(card)


def start_running(game: Game, card: CardInstance) -> None:
    """`start running`: declared before any AP is spent this turn, 2 more AP for moving."""
    actor = game.actor
    rule = actor.stats.rules.get(AP)
    if running(game, actor):
        game.event("run", f"{actor.name} is running already")
        return
    if rule is not None and actor.stats.get(AP) < rule.start:
        game.event("run", f"{actor.name} has spent AP: running is declared as a turn starts")
        return
    game.state.flags.add(f"{RUNNING}:{actor.name}")
    game.event("run", f"{actor.name} runs: every AP this turn goes on moving")
    game.change(AP, RUNNING_AP, actor)


def stop_running(game: Game, actor: Actor) -> None:
    """A turn ends: the run with it."""
    game.state.flags.discard(f"{RUNNING}:{actor.name}")


def turn_unspent(game: Game, card: CardInstance) -> bool:
    """`no ap spent this turn`: your AP are still what your turn gave you (running is
    declared at the beginning of the turn, 314)."""
    actor = game.actor
    rule = actor.stats.rules.get(AP)
    return rule is not None and actor.stats.get(AP) >= rule.start


# ---------------------------------------------------------------- trading

MOST_TRADES = 16
"""Cards one trade action moves at most: a bound on the seat's questions, not a rule."""


def personal(game: Game, card: CardInstance) -> bool:
    """An item a memory brings back is its character's own: never traded (500)."""
    return any(
        d.kind == MEMORY and card.title in _titles_of(d.properties.get("brings"))
        for d in game.cards
    )


def _titles_of(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(title) for title in value] if isinstance(value, list | tuple) else []


def _room(taker: Actor, card: CardInstance) -> bool:
    """Whether the item fits the taker's inventory: four slots, one armor (rulebook, Items)."""
    held = [c for c in taker.items if c.kind in INVENTORY_KINDS]
    if _armor(card) and any(_armor(c) for c in held):
        return False
    return sum(map(slots, held)) + slots(card) <= INVENTORY_CAPACITY


def trades(game: Game, player: Actor) -> list[tuple[Actor, Actor, CardInstance]]:
    """Every item that may change hands between the player and a character on their space:
    (giver, taker, item)."""
    others = [
        p
        for p in game.state.players
        if p is not player and not p.dead and p.location == player.location
    ]
    offers = []
    for other in others:
        for giver, taker in ((player, other), (other, player)):
            for item in giver.items:
                if item.kind in INVENTORY_KINDS and not personal(game, item) and _room(taker, item):
                    offers.append((giver, taker, item))
    return offers


def _offer_text(player: Actor, offer: tuple[Actor, Actor, CardInstance]) -> str:
    giver, taker, item = offer
    if giver is player:
        return f"give {item.title} to {taker.name}"
    return f"take {item.title} from {giver.name}"


def trade(game: Game, player: Actor) -> None:
    """Trade (1 AP, paid by the action): give and take any number of items with the
    characters on your space, one question an item, until the seat is done (318); an item a
    memory brought back stays with its character (500). The table agrees: one seat asks."""
    for _ in range(MOST_TRADES):
        offers = trades(game, player)
        if not offers:
            return
        choices = ["done", *(_offer_text(player, offer) for offer in offers)]
        picked = game.decide("trade", "trade", choices, default=0)
        if picked == 0:
            return
        giver, taker, item = offers[picked - 1]
        giver.items.remove(item)
        taker.items.append(item)
        game.event("trade", f"{giver.name} gives {item.definition.label} to {taker.name}")


def discard_item(game: Game, player: Actor) -> None:
    """Discard an inventory card of the player's choice, free (562): one a time, so that the
    action ends when the items do."""
    held = [c for c in player.items if c.kind in INVENTORY_KINDS]
    if held:
        titles = [c.title for c in held]
        game.discard(held[game.decide("item", "discard", titles) if len(held) > 1 else 0])


def can_discard(game: Game, player: Actor) -> bool:
    """Whether the player holds an inventory card to discard."""
    return any(c.kind in INVENTORY_KINDS for c in player.items)


def can_trade(game: Game, player: Actor) -> bool:
    """Whether an item may change hands with a character on the player's space."""
    return bool(trades(game, player))


# ---------------------------------------------------------------- conditions and values


def is_running(game: Game, card: CardInstance) -> bool:
    """`you are running`."""
    return running(game, game.actor)


def running_flag(game: Game, card: CardInstance) -> int:
    """`running`: 1 while you run this turn, else 0."""
    return int(running(game, game.actor))


def set_running(game: Game, card: CardInstance, value: int) -> None:
    """`given running 1`: declared already (its AP not added)."""
    flag = f"{RUNNING}:{game.actor.name}"
    if value:
        game.state.flags.add(flag)
    else:
        game.state.flags.discard(flag)
    game.event("given", f"running is {value}")


def holding(game: Game, card: CardInstance, *, title: str) -> bool:
    """`you hold "Title"`: carried or owned."""
    return any(c.title == title for c in (*game.actor.items, *game.actor.owned))


def skills_held(game: Game, card: CardInstance) -> int:
    """The skills you hold, against the capacity of six."""
    return sum(1 for c in game.actor.items if c.kind in SKILL_KINDS)


def inventory_used(game: Game, card: CardInstance) -> int:
    """The inventory slots your items fill, against the capacity of four."""
    return sum(slots(c) for c in game.actor.items if c.kind in INVENTORY_KINDS)


def memories_held(game: Game, card: CardInstance) -> int:
    """The memory cards you keep."""
    return sum(1 for c in game.actor.owned if c.kind == MEMORY)


def memories_left(game: Game, card: CardInstance) -> int:
    """The cards left in your memory deck."""
    return len(game.state.decks.get(memory_deck(game.actor)) or [])


CHARACTERS: dict[str, Any] = {
    "verbs": {"remember": remember, "start_running": start_running},
    "conditions": {"running": is_running, "holding": holding, "turn_unspent": turn_unspent},
    "values": {
        "skills_held": ValueDef(skills_held),
        "inventory_used": ValueDef(inventory_used),
        "memories_held": ValueDef(memories_held),
        "memories_left": ValueDef(memories_left),
        "running_flag": ValueDef(running_flag, set_running),
    },
    "drawn": {
        **dict.fromkeys(INVENTORY_KINDS, take_item),
        **dict.fromkeys(SKILL_KINDS, learn_skill),
        MEMORY: remembered,
        CHARACTER: seat_character,
    },
    "owned": {CHARACTER: True, MEMORY: True},
    "using": {"*": pay_and_use, MEMORY: trade_memories},
    "hooks": {"turn_ended": stop_running},
    "announces": frozenset({"remembered"}),
}
"""The tables this module adds to Lobotomy's (`GameModule.extend`)."""
