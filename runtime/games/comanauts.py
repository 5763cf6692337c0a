"""Comanauts: coloured dice from a bag, tests that spend them, enemies, items, the threat track.

What the ruleset's data says (the pool's colours as stats, the bag and threat tracks, enemies
with their defense and counters, the kinds of card, the whole game's actions and endings) is
not repeated here; this module runs what data cannot: a turn that draws dice from the bag and
ends by discarding the rest and checking the threat (`comanauts_turn`), the tests of
`comanauts_checks`, the slots and loot of `comanauts_items`, the adventure book's pages and
the seats' procedures (`comanauts_adventure`), and the cards coming into play. The readings
where the rulebook's page is silent are in docs/comanauts.md.
"""

from __future__ import annotations

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.base import BASE
from runtime.games.comanauts_adventure import (
    TASK_DONE,
    avatar_out,
    can_equip,
    can_focus,
    can_interact,
    can_move,
    can_reserve,
    can_work,
    enemies_here,
    enemies_in_range,
    equip_item,
    fitting,
    focus,
    interact,
    lair_of,
    lay,
    move,
    named_card,
    page_drawn,
    page_is,
    page_of,
    page_task,
    pool,
    reserve,
    turn_page,
    turn_to,
    use_page,
    work,
)
from runtime.games.comanauts_checks import DOUBLED, SEEN_THROUGH, TASK, TEST
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
from runtime.games.comanauts_mind import CRITICAL, reveal_vitals, turn_critical, vital_drawn
from runtime.games.comanauts_turn import (
    ENEMY_TURN,
    PAGE,
    PAGE_EFFECT,
    THREAT,
    discard_dice,
    draw_more,
    strike,
    turn_ends,
    turn_starts,
)
from runtime.module import ValueDef
from runtime.state import Actor

TURN_STARTS = "turn_starts"
"""The trigger the ruleset's phase fires as an avatar's turn starts: the draw answers it."""

STATUS = "status"
ENVIRONMENT = "environment"
VITAL = "vital"
FLATLINE = "flatline"
"""The kinds of the vital signs deck: the stable and critical cards, and the Flatline."""


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


def take_item(game: Game, card: CardInstance, *, title: str) -> None:
    """`take item "Flare Gun"`: the item comes from the item deck to the player."""
    found = named_card(game, title, ITEM)
    if found is not None:
        gain_item(game, game.actor, game.new_instance(found))


def suffer(game: Game, card: CardInstance, *, title: str) -> None:
    """`suffer "Concussed"`: a status card comes to the player."""
    found = named_card(game, title, STATUS)
    if found is not None:
        carry_status(game, game.new_instance(found))


def bring_in(game: Game, card: CardInstance, *, title: str, place: str | None = None) -> None:
    """`bring in "Hull Crawler" [at bridge]`: an enemy comes into play, at the space named, else
    where the open page's enemies come, else on your space."""
    found = named_card(game, title, ENEMY)
    if found is not None:
        game.spawn(ENEMY, place or lair_of(game) or game.actor.location, found)


def discard_your_dice(game: Game, card: CardInstance) -> None:
    """`discard your dice`: every die in your pool goes to the discard pool."""
    game.step()
    discard_dice(game, game.actor)


def reveal_vital_signs(game: Game, card: CardInstance) -> None:
    """`reveal vital signs`: the top card of the vital signs deck is revealed."""
    game.step()
    reveal_vitals(game)


def critical(game: Game, card: CardInstance) -> None:
    """`the vital signs turn critical`: the open page's entry for it, once a page."""
    turn_critical(game, page_of(game))


def draw_from_bag(game: Game, card: CardInstance, *, amount: int) -> None:
    """`draw 2 dice from the bag`: into your pool, the white and inner child dice rolled."""
    game.step()
    draw_more(game, game.actor, amount)


def close_in(game: Game, card: CardInstance) -> None:
    """`close in`: an enemy that shares no space with an avatar moves a space toward the
    nearest one (the first such space, in the board's order, on a tie)."""
    game.step()
    actor = game.actor
    where = actor.location
    avatars = [p.location for p in game.state.players if not p.dead and p.location is not None]
    if where is None or not avatars or where in avatars:
        return
    board = game.rules.world.board
    goals = frozenset(avatars)
    steps = sorted(board.neighbours(where))
    nearest = [(board.reach(step, goals), step) for step in steps]
    reachable = [(d, step) for d, step in nearest if d is not None]
    if not reachable:
        return
    _, to = min(reachable)
    game.event("move", f"{actor.name} closes in: {where} → {to}", actor=actor.name, to=to)
    actor.location = to


def died(game: Game, actor: Actor) -> None:
    """An enemy defeated leaves play (and may be looted); an avatar at 0 health is out."""
    removed(game, actor)
    avatar_out(game, actor)


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
    return pool(game, game.actor)


# ---------------------------------------------------------------- cards coming into play


def item_drawn(game: Game, card: CardInstance) -> bool:
    """An item drawn is gained: equipped, stowed, given or discarded."""
    gain_item(game, game.actor, card)
    return True


def carry_status(game: Game, card: CardInstance) -> bool:
    """A status card stays with the player until its test removes it; no one suffers the same
    status twice."""
    if any(held.title == card.title for held in game.actor.items):
        game.event("status", f"{game.actor.name} already suffers {card.definition.label}")
        return False
    game.actor.items.append(card)
    game.event("status", f"{game.actor.name} suffers {card.definition.label}", uid=card.uid)
    return True


def enemy_drawn(game: Game, card: CardInstance) -> bool:
    """An enemy drawn comes onto the player's space, as the page places it."""
    game.spawn(ENEMY, game.actor.location, card)
    return True


def reveal(game: Game, card: CardInstance) -> bool:
    """An environment card drawn or played lies in play beside the player."""
    game.state.in_play[f"{card.kind}:{card.uid}"] = card
    game.event("reveal", f"{card.kind}: {card.definition.label}", uid=card.uid)
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
        "turn_to": turn_to,
        "turn_page": turn_page,
        "lay": lay,
        "discard_dice": discard_your_dice,
        "close_in": close_in,
        "reveal_vitals": reveal_vital_signs,
        "critical": critical,
        "draw_bag": draw_from_bag,
    },
    conditions={
        "clear_sight": clear_sight,
        "equipped": item_equipped,
        "stowed": item_stowed,
        "in_slot": item_in_slot,
        "suffering": suffering,
        "hostile": hostile,
        "page_is": page_is,
    },
    values={
        "stowed": ValueDef(stowed_count),
        "enemies": ValueDef(enemies_in_play),
        "pool": ValueDef(pool_size),
        "enemies_here": ValueDef(enemies_here),
        "in_range": ValueDef(enemies_in_range),
        "fitting": ValueDef(fitting),
    },
    modifiers={"die_bonus": no_bonus, "roll_bonus": no_bonus},
    checks={"comanauts-test": TEST, "comanauts-task": TASK},
    drawn={
        ITEM: item_drawn,
        STATUS: carry_status,
        ENEMY: enemy_drawn,
        ENVIRONMENT: reveal,
        PAGE: page_drawn,
        VITAL: vital_drawn,
        FLATLINE: vital_drawn,
    },
    played={kind: play_drawn for kind in (ITEM, STATUS, ENEMY, ENVIRONMENT, PAGE, VITAL, FLATLINE)},
    hooks={"death": died, "turn_ended": turn_ends},
    reactions={TURN_STARTS: turn_starts},
    turns={ENEMY: strike},
    procedures={
        "move": move,
        "interact": interact,
        "work": work,
        "equip": equip_item,
        "focus": focus,
        "reserve": reserve,
    },
    can={
        "move": can_move,
        "interact": can_interact,
        "work": can_work,
        "equip": can_equip,
        "focus": can_focus,
        "reserve": can_reserve,
    },
    using={PAGE: use_page},
    implied={PAGE: page_task},
    announces=frozenset({ENEMY_TURN, PAGE_EFFECT, TASK_DONE, CRITICAL}),
)

MODULE = COMANAUTS
"""The game module `runtime: comanauts` names."""
