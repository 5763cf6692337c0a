"""Comanauts' turn around the actions: the dice drawn from the bag, the threat they bring, the
dice discarded, the Check Threat step and the enemies' turn.

A turn starts (the ruleset's phase names the trigger) by drawing dice from the bag, each die in
it as likely; a threat die drawn goes onto the threat track at once (Place Threat), and while
the situation is hostile a track holding more dice than there are enemies brings back a
hostile defeated on this page. A turn ends (the engine's `turn_ended` moment) by discarding the
dice left and checking the threat: hostile, dice on the track at least the enemies in play
bring the enemies' turn; safe, four dice or more resolve the page's effect, and enemies that
came with it take a turn at once. What each enemy does on its turn is its card's `on its turn`,
then whatever the ruleset's `game: turns: enemy:` adds.
"""

from __future__ import annotations

from runtime.game import Game
from runtime.games.comanauts_checks import colours_of
from runtime.games.comanauts_items import ASIDE, ENEMY, HOSTILE, HOSTILE_WORD
from runtime.games.comanauts_mind import (
    CHILD_DIE,
    CLARITY_DICE,
    INNER_CHILD,
    gain_clarity,
    inner_child_drawn,
    reserved,
    take_reserve,
)
from runtime.state import Actor

THREAT = "threat"
"""The threat track: the dice on it."""

THREAT_DICE = "threat"
"""The bag's threat dice, counted by the track `threat_bag`."""

SAFE_THREAT = 4
"""Dice on the threat track that, while safe, resolve the page's effect (rulebook, Check Threat)."""

DRAW = "draw"
"""The character's stat of dice drawn from the bag at the start of a turn."""

PAGE = "page"
"""The in-play slot of the adventure page, and its card kind."""

LAIR = "lair"
"""A page's property: the space where its enemies come into play."""

ENEMY_TURN = "enemy_turn"
PAGE_EFFECT = "threat"
"""The triggers: each enemy's turn, the page's effect at the Check Threat step."""

THREAT_DRAWN = "threat dice drawn"
HOSTILE_CHECKS = "threat checks: hostile, the enemies' turn"
SAFE_CHECKS = "threat checks: safe, the page's effect"
ENEMY_TURNS = "enemies' turns"
RETURNED = "hostiles returned"
REFILLS = "bag refilled mid-draw"
"""What the module counts as it happens, for the figures of a simulation."""


def bag_track(colour: str) -> str:
    """The game track that counts the dice of a colour in the bag."""
    return f"{colour}_bag"


# ---------------------------------------------------------------- the bag and the pool


def bag_colours(game: Game) -> list[str]:
    """The kinds of die the bag holds: the pool's colours alphabetically, then threat dice,
    white (clarity) dice and the inner child die."""
    kinds = [*colours_of(game), THREAT_DICE, CLARITY_DICE, CHILD_DIE]
    return [kind for kind in kinds if bag_track(kind) in game.state.tracks]


def draw_dice(game: Game, actor: Actor, count: int) -> dict[str, int]:
    """Draw dice from the bag one at a time, each die in it as likely (forced dice count them
    kind by kind, in `bag_colours` order); the dice of a kind drawn are moved together. A
    threat die goes onto the threat track; a bag that runs out is refilled from the discard
    pool once, and the draw goes on. Returns the white dice and inner child die drawn, which
    the caller rolls."""
    kinds = bag_colours(game)
    inside = {kind: game.state.tracks[bag_track(kind)] for kind in kinds}
    drawn = dict.fromkeys(kinds, 0)
    rolled_later = {CLARITY_DICE: 0, CHILD_DIE: 0}
    refilled = False
    for _ in range(max(count, 0)):
        total = sum(inside.values())
        if total <= 0 and not refilled:
            _take_out(game, actor, drawn, rolled_later)
            game.event("bag", "the dice bag is empty: the discard pool goes back into it")
            game.state.count(REFILLS)
            refresh_bag(game, rolled_later)
            refilled = True
            inside = {kind: game.state.tracks[bag_track(kind)] for kind in kinds}
            drawn = dict.fromkeys(kinds, 0)
            total = sum(inside.values())
        if total <= 0:
            game.event("bag", "the dice bag is empty")
            break
        pick = game.roll_dice(1, total).total
        for kind in kinds:
            if pick <= inside[kind]:
                inside[kind] -= 1
                drawn[kind] += 1
                break
            pick -= inside[kind]
    _take_out(game, actor, drawn, rolled_later)
    return rolled_later


def _take_out(
    game: Game, actor: Actor, drawn: dict[str, int], rolled_later: dict[str, int]
) -> None:
    """The dice drawn leave the bag: the threat dice onto the track, the white dice and the
    inner child die to be rolled (`rolled_later`), the others to the pool."""
    if game.hears("bag") and any(drawn.values()):
        named = {CHILD_DIE: "inner child"}
        shown = ", ".join(f"{n} {named.get(kind, kind)}" for kind, n in drawn.items() if n)
        game.event("bag", f"{actor.name} draws {sum(drawn.values())} dice: {shown}")
    for kind, count in drawn.items():
        if not count:
            continue
        game.advance(bag_track(kind), -count)
        if kind == THREAT_DICE:
            game.state.count(THREAT_DRAWN, count)
            game.advance(THREAT, count)
        elif kind in rolled_later:
            rolled_later[kind] += count
        else:
            game.change(kind, count, actor)


def discard_dice(game: Game, actor: Actor) -> None:
    """Step 6: every die left in the pool goes to the discard pool."""
    for colour in colours_of(game):
        left = actor.stats.get(colour) if colour in actor.stats.rules else 0
        if left:
            game.change(colour, -left, actor)


def refresh_bag(game: Game, drawn: dict[str, int] | None = None) -> None:
    """Every die in the discard pool goes back into the bag: all but those in the pools and
    on the reserve slots, of the threat dice those on the threat track, and the white and
    inner child dice drawn and not yet rolled (`drawn`). The inner child die leaves its slot."""
    for kind in bag_colours(game):
        track = bag_track(kind)
        rule = game.rules.world.tracks[track]
        if kind == THREAT_DICE:
            held = game.state.tracks.get(THREAT, 0)
        elif kind in (CLARITY_DICE, CHILD_DIE):
            held = (drawn or {}).get(kind, 0)
        else:
            players = game.state.players
            held = sum(p.stats.get(kind) for p in players if kind in p.stats.rules)
            held += sum(reserved(p).get(kind, 0) for p in players)
        back = max(rule.start - held, 0) - game.state.tracks[track]
        if back:
            game.advance(track, back)
    if game.state.tracks.get(INNER_CHILD):
        game.advance(INNER_CHILD, -game.state.tracks[INNER_CHILD])


# ---------------------------------------------------------------- the turn's start and end


def turn_starts(game: Game) -> None:
    """Steps 1 to 4: the avatar draws its dice (its stat `draw`), rolls the white ones for
    clarity, the threat dice among them go onto the track and a hostile may return, the
    inner child die drawn reveals a vital signs card; then the reserved dice join the pool."""
    actor = game.actor
    drawn = {CLARITY_DICE: 0, CHILD_DIE: 0}
    if DRAW in actor.stats.rules:
        drawn = draw_dice(game, actor, game.stat(DRAW, actor))
    gain_clarity(game, actor, drawn[CLARITY_DICE])
    place_threat(game)
    for _ in range(drawn[CHILD_DIE]):
        inner_child_drawn(game)
    take_reserve(game, actor)


def draw_more(game: Game, actor: Actor, count: int) -> None:
    """Dice drawn from the bag during a turn: rolled for clarity and the inner child as the
    turn's own draw is."""
    drawn = draw_dice(game, actor, count)
    gain_clarity(game, actor, drawn[CLARITY_DICE])
    for _ in range(drawn[CHILD_DIE]):
        inner_child_drawn(game)


def place_threat(game: Game) -> None:
    """While hostile, a threat track holding more dice than the enemies in play brings back a
    hostile defeated on this page (an I.D. never returns)."""
    enemies = len(game.actors_of(ENEMY))
    if not game.state.tracks.get(HOSTILE) or game.state.tracks.get(THREAT, 0) <= enemies:
        return
    deck = game.rules.kind_decks.get(ENEMY)
    pile = game.state.discards.get(deck, []) if deck is not None else []
    aside = [card for card in pile if f"{ASIDE}:{card.uid}" in game.state.flags]
    if not aside:
        return
    card = aside[-1]
    game.step()
    pile.remove(card)
    card = game.from_deck(card)  # out of a discard pile: in a playout, the fork's own copy
    game.state.flags.discard(f"{ASIDE}:{card.uid}")
    page = game.state.in_play.get(PAGE)
    place = page.definition.properties.get(LAIR) if page is not None else None
    game.event("threat", f"the threat brings back {card.definition.label} ({HOSTILE_WORD})")
    game.state.count(RETURNED)
    game.spawn(ENEMY, place if isinstance(place, str) else game.actor.location, card)


def turn_ends(game: Game, actor: Actor) -> None:
    """Steps 6 and 7: discard the dice left, then check the threat."""
    discard_dice(game, actor)
    check_threat(game)


def check_threat(game: Game) -> None:
    """Hostile: dice on the track at least the enemies in play bring an enemy turn. Safe: four
    dice or more resolve the page's effect (hostile, and an enemy turn, if enemies came),
    clear the track and refresh the bag."""
    threat = game.state.tracks.get(THREAT, 0)
    if game.state.tracks.get(HOSTILE) and not game.actors_of(ENEMY):
        game.advance(HOSTILE, -game.state.tracks[HOSTILE])  # no enemy left: safe
    if game.state.tracks.get(HOSTILE):
        enemies = len(game.actors_of(ENEMY))
        if threat >= enemies:
            game.state.count(HOSTILE_CHECKS)
            foes = f"{enemies} enem{'y' if enemies == 1 else 'ies'} in play"
            game.event("threat", f"hostile, {threat} dice on the threat track, {foes}")
            enemy_turn(game)
        return
    if threat < SAFE_THREAT:
        return
    game.state.count(SAFE_CHECKS)
    game.event("threat", f"safe, {threat} dice on the threat track: the page's effect")
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
    """The enemies take a turn, one after another in the order they came: each does what its
    kind's turn rule says (the module's, and the ruleset's after it), then the threat track's
    dice are discarded."""
    game.state.count(ENEMY_TURNS)
    game.event("enemies", "the enemies take a turn")
    rule = game.module.turns.get(ENEMY)
    for enemy in game.actors_of(ENEMY):
        if game.ended:
            return
        if enemy.dead or rule is None:
            continue
        outer, game.state.acting = game.state.acting, enemy
        try:
            if game.hears("turn"):
                where = enemy.location or "no space"
                game.event("turn", f"{enemy.name} takes its turn at {where}", actor=enemy.name)
            rule(game, enemy)
        finally:
            game.state.acting = outer
    clear_threat(game)


def strike(game: Game, enemy: Actor) -> None:
    """An enemy's own turn: its card's `on its turn` block (its attack)."""
    if enemy.sheet is not None:
        game.fire(ENEMY_TURN, [enemy.sheet])


def clear_threat(game: Game) -> None:
    """Discard every die on the threat track."""
    if game.state.tracks.get(THREAT):
        game.advance(THREAT, -game.state.tracks[THREAT])
