"""Comanauts: coloured dice from a bag, tests that spend them, enemies, items, the threat track.

What the ruleset's data says (the pool's colours as stats, the bag and threat tracks, enemies
with their defense and counters, the kinds of card) is not repeated here; this module runs
what data cannot: a turn that draws dice from the bag and ends by discarding the rest and
checking the threat, the tests of `comanauts_checks`, the slots and loot of
`comanauts_items`, and the cards coming into play. The readings where the rulebook's page is
silent are in docs/comanauts.md.
"""

from __future__ import annotations

from runtime.cards import CardDef, CardInstance
from runtime.game import Game
from runtime.games.base import BASE
from runtime.games.comanauts_checks import DOUBLED, SEEN_THROUGH, TASK, TEST, colours_of
from runtime.games.comanauts_items import (
    ENEMY,
    HOSTILE,
    ITEM,
    equip,
    equipped,
    gain_item,
    inventory,
    removed,
)
from runtime.module import ValueDef
from runtime.state import Actor

THREAT = "threat"
"""The threat track: the dice on it."""

SAFE_THREAT = 4
"""Dice on the threat track that, while safe, turn the adventure page (rulebook, Check Threat)."""

DRAW = "draw"
"""The character's stat of dice drawn from the bag at the start of a turn."""

STATUS = "status"
ENVIRONMENT = "environment"
PAGE = "page"
"""The in-play slot of the adventure page, and its card kind."""

ENEMY_TURN = "enemy_turn"
PAGE_EFFECT = "threat"
"""The triggers: each enemy's turn, the page's effect at the Check Threat step."""


def bag_track(colour: str) -> str:
    """The game track that counts the dice of a colour in the bag."""
    return f"{colour}_bag"


# ---------------------------------------------------------------- the bag and the pool


def draw_dice(game: Game, actor: Actor, count: int) -> None:
    """Draw dice from the bag into the actor's pool, one at a time, each die as likely."""
    colours = [c for c in colours_of(game) if bag_track(c) in game.state.tracks]
    for _ in range(max(count, 0)):
        inside = [(c, game.state.tracks[bag_track(c)]) for c in colours]
        total = sum(n for _, n in inside)
        if total <= 0:
            game.event("bag", "the dice bag is empty")
            return
        pick = game.roll_dice(1, total).total
        for colour, n in inside:
            if pick <= n:
                game.advance(bag_track(colour), -1)
                game.change(colour, 1, actor)
                break
            pick -= n


def discard_dice(game: Game, actor: Actor) -> None:
    """Step 6: every die left in the pool goes to the discard pool."""
    for colour in colours_of(game):
        left = actor.stats.get(colour) if colour in actor.stats.rules else 0
        if left:
            game.change(colour, -left, actor)


def refresh_bag(game: Game) -> None:
    """Every die in the discard pool goes back into the bag: all but those in the pools."""
    for colour in colours_of(game):
        track = bag_track(colour)
        rule = game.rules.world.tracks.get(track)
        if rule is None:
            continue
        held = sum(p.stats.get(colour) for p in game.state.players if colour in p.stats.rules)
        game.advance(track, max(rule.start - held, 0) - game.state.tracks[track])


def turn_starts(game: Game, actor: Actor) -> None:
    """A player's turn opens with the draw from the bag (the stat `draw` says how many)."""
    if DRAW in actor.stats.rules:
        draw_dice(game, actor, game.stat(DRAW, actor))


def turn_ends(game: Game, actor: Actor) -> None:
    """Steps 6 and 7: discard the dice left, then check the threat."""
    discard_dice(game, actor)
    check_threat(game)


def check_threat(game: Game) -> None:
    """Hostile: dice on the track at least the enemies in play bring an enemy turn. Safe: four
    dice or more resolve the page's effect (hostile, and an enemy turn, if enemies came),
    clear the track and refresh the bag."""
    threat = game.state.tracks.get(THREAT, 0)
    if game.state.tracks.get(HOSTILE):
        if threat >= len(game.actors_of(ENEMY)):
            enemy_turn(game)
        return
    if threat < SAFE_THREAT:
        return
    before = len(game.actors_of(ENEMY))
    page = game.state.in_play.get(PAGE)
    if page is not None:
        game.fire(PAGE_EFFECT, [page])
    if len(game.actors_of(ENEMY)) > before:
        game.advance(HOSTILE, 1)
        enemy_turn(game)
    clear_threat(game)
    refresh_bag(game)


def enemy_turn(game: Game) -> None:
    """The enemies take a turn: each enemy card's `on its turn` runs, then the threat track's
    dice are discarded (the enemy turn itself is another page of the rulebook)."""
    game.event("enemies", "the enemies take a turn")
    game.fire(ENEMY_TURN, [e.sheet for e in game.actors_of(ENEMY) if e.sheet is not None])
    clear_threat(game)


def clear_threat(game: Game) -> None:
    """Discard every die on the threat track."""
    if game.state.tracks.get(THREAT):
        game.advance(THREAT, -game.state.tracks[THREAT])


# ---------------------------------------------------------------- verbs


def threaten(game: Game, card: CardInstance, *, amount: int) -> None:
    """`add 2 dice to the threat track`."""
    game.advance(THREAT, amount)


def double_dice(game: Game, card: CardInstance, *, colour: str) -> None:
    """`double your next red dice`: the next test's dice of that colour count twice, before
    any bonus."""
    game.actor.bonuses.append((f"{DOUBLED}:{colour}", 2))
    game.event("bonus", f"the next {colour} dice count double", check=colour)


def block_sight(game: Game, card: CardInstance, *, place: str) -> None:
    """`block sight to {place}`: no clear sight reaches that space from another."""
    game.step()
    game.state.flags.add(f"{SEEN_THROUGH}:{place}")
    game.event("sight", f"no clear sight to {place}")


def clear_sight_to(game: Game, card: CardInstance, *, place: str) -> None:
    """`clear sight to {place}`: what blocked the sight is gone."""
    game.step()
    game.state.flags.discard(f"{SEEN_THROUGH}:{place}")
    game.event("sight", f"clear sight to {place} again")


def _named(game: Game, title: str, kind: str) -> CardDef | None:
    """The pack's card of that title and kind; None (and a line in the log) if it has none."""
    game.step()
    found = game.find(title)
    if found is None or found.kind != kind:
        game.event(kind, f"the pack has no {kind} {title!r}")
        return None
    return found


def take_item(game: Game, card: CardInstance, *, title: str) -> None:
    """`take item "Flare Gun"`: the item comes from the item deck to the player."""
    found = _named(game, title, ITEM)
    if found is not None:
        gain_item(game, game.actor, game.new_instance(found))


def suffer(game: Game, card: CardInstance, *, title: str) -> None:
    """`suffer "Concussed"`: a status card comes to the player."""
    found = _named(game, title, STATUS)
    if found is not None:
        carry_status(game, game.new_instance(found))


def bring_in(game: Game, card: CardInstance, *, title: str, place: str | None = None) -> None:
    """`bring in "Hull Crawler" [at bridge]`: an enemy comes into play."""
    found = _named(game, title, ENEMY)
    if found is not None:
        game.spawn(ENEMY, place or game.actor.location, found)


def equip_this(game: Game, card: CardInstance) -> None:
    """`equip this`: an item from the inventory into its slots."""
    equip(game, game.actor, card)


# ---------------------------------------------------------------- conditions and values


def clear_sight(game: Game, card: CardInstance) -> bool:
    """`clear sight to the target`: nothing blocks the line to the target's space."""
    target = game.state.target
    if target is None or target.location is None:
        return False
    return (
        target.location == game.actor.location
        or f"{SEEN_THROUGH}:{target.location}" not in game.state.flags
    )


def _held(game: Game, title: str) -> CardInstance | None:
    return next((c for c in game.actor.items if c.title == title), None)


def item_equipped(game: Game, card: CardInstance, *, title: str) -> bool:
    """`item "Field Radio" is equipped`."""
    held = _held(game, title)
    return held is not None and equipped(game, game.actor, held) is not None


def item_stowed(game: Game, card: CardInstance, *, title: str) -> bool:
    """`item "Field Radio" is stowed`: in the inventory."""
    held = _held(game, title)
    return held is not None and held in inventory(game, game.actor)


def item_in_slot(game: Game, card: CardInstance, *, title: str, slot: str) -> bool:
    """`item "Field Radio" is in the accessory slot`."""
    held = _held(game, title)
    return held is not None and slot in (equipped(game, game.actor, held) or ())


def suffering(game: Game, card: CardInstance, *, title: str) -> bool:
    """`suffering "Concussed"`."""
    return _held(game, title) is not None


def hostile(game: Game, card: CardInstance) -> bool:
    """`the situation is hostile`."""
    return bool(game.state.tracks.get(HOSTILE))


def stowed_count(game: Game, card: CardInstance) -> int:
    """How many items the player carries unequipped."""
    return len(inventory(game, game.actor))


def enemies_in_play(game: Game, card: CardInstance) -> int:
    """How many enemies are in play."""
    return len(game.actors_of(ENEMY))


def pool_size(game: Game, card: CardInstance) -> int:
    """Every die in the player's pool."""
    return sum(game.stat(colour) for colour in colours_of(game))


# ---------------------------------------------------------------- cards coming into play


def item_drawn(game: Game, card: CardInstance) -> bool:
    """An item drawn is gained: equipped, stowed, given or discarded."""
    gain_item(game, game.actor, card)
    return True


def carry_status(game: Game, card: CardInstance) -> bool:
    """A status card stays with the player until its test removes it."""
    game.actor.items.append(card)
    game.event("status", f"{game.actor.name} suffers {card.definition.label}", uid=card.uid)
    return True


def enemy_drawn(game: Game, card: CardInstance) -> bool:
    """An enemy drawn comes onto the player's space, as the page places it."""
    game.spawn(ENEMY, game.actor.location, card)
    return True


def reveal(game: Game, card: CardInstance) -> bool:
    """An environment card lies on the player's space; an adventure page is the page now."""
    slot = PAGE if card.kind == PAGE else f"{card.kind}:{card.uid}"
    old = game.state.in_play.get(slot)
    if old is not None and slot == PAGE:
        game.discard(old)
    game.state.in_play[slot] = card
    game.event("reveal", f"{card.kind}: {card.definition.label}", uid=card.uid)
    game.fire("drawn", [card])  # a page's special rule: read as it comes
    return True


def play_drawn(game: Game, card: CardInstance) -> None:
    """A card a test plays comes into play as drawing it would."""
    game.event("play", f"play {card.definition.label}", uid=card.uid)
    handler = game.module.drawn.get(card.kind) or game.module.drawn["*"]
    handler(game, card)


def no_bonus(game: Game, actor: Actor, args: dict[str, object]) -> tuple[str, int] | None:
    """A die's or a roll's bonus changes no stat: the tests read it themselves."""
    return None


COMANAUTS = BASE.extend(
    "comanauts",
    verbs={
        "threaten": threaten,
        "double_dice": double_dice,
        "block_sight": block_sight,
        "clear_sight": clear_sight_to,
        "take_item": take_item,
        "suffer": suffer,
        "bring_in": bring_in,
        "equip_this": equip_this,
    },
    conditions={
        "clear_sight": clear_sight,
        "equipped": item_equipped,
        "stowed": item_stowed,
        "in_slot": item_in_slot,
        "suffering": suffering,
        "hostile": hostile,
    },
    values={
        "stowed": ValueDef(stowed_count),
        "enemies": ValueDef(enemies_in_play),
        "pool": ValueDef(pool_size),
    },
    modifiers={"die_bonus": no_bonus, "roll_bonus": no_bonus},
    checks={"comanauts-test": TEST, "comanauts-task": TASK},
    drawn={
        ITEM: item_drawn,
        STATUS: carry_status,
        ENEMY: enemy_drawn,
        ENVIRONMENT: reveal,
        PAGE: reveal,
    },
    played={kind: play_drawn for kind in (ITEM, STATUS, ENEMY, ENVIRONMENT, PAGE)},
    hooks={"death": removed, "turn_ended": turn_ends},
    turns={"character": turn_starts},
    announces=frozenset({ENEMY_TURN, PAGE_EFFECT}),
)

MODULE = COMANAUTS
"""The game module `runtime: comanauts` names."""
