"""Comanauts' adventure book and the seats' actions: what the ruleset's `game:` section names.

The adventure is pages of the pack, one open at a time. Opening a page (`turn to page "..."`,
or `turn the page`, to the page its `leads to` names) closes the one before: its enemies leave
play without being defeated, its environment cards are discarded, the threat track is cleared
and the situation is safe again; the avatars go to the space the new page names (`avatars start
at`) and its `when the page is read` block runs. Enemies brought in without a space come at the
page's `enemies come at` space. Environment cards lie on spaces (`lay "Supply Locker" at
cargo`): an avatar interacts with those on its own space, and works on the page's group task
from anywhere.

The procedures a seat's actions name: `move` (spend a die of the seat's choosing, then a space
next to it), `interact` (a card on the avatar's space), `work` (the page's group task, which
its `group task` property sets, or else its `use` block), `equip` (an item from the
inventory, once a turn and free), `focus` (two dice of the pool spent for one of the discard
pool) and `reserve` (a die onto the reserve slot); each with the test of whether it can be
taken now. The
values the actions' conditions read: enemies here, enemies a ranged attack reaches, the dice
that fit a colour's test.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.cards import CardDef, CardInstance, Effect
from runtime.checks import CheckCall
from runtime.game import Game
from runtime.games.comanauts_checks import SEEN_THROUGH, colours_of, ranged_reach, wild_of
from runtime.games.comanauts_items import ASIDE, ENEMY, HOSTILE, equip, inventory, ways
from runtime.games.comanauts_mind import (
    clear_criticals,
    put_in_reserve,
    reserve_room,
    reserved,
    reveal_vitals,
)
from runtime.games.comanauts_turn import LAIR, PAGE, bag_track, clear_threat
from runtime.rules import GameRules
from runtime.state import Actor, Player

START = "start"
LEADS_TO = "leads_to"
TASK = "task"
"""A page's properties: where the avatars start, the page it leads to, its group task."""

TASK_DONE = "task_done"
"""The trigger fired on a page when its group task is done."""

TASK_PROCEDURE = "comanauts-task"
"""The check procedure a page's group task is made with."""

PROGRESS = "progress"
"""The tokens on a page that count its group task's dice (the task check's `progress`)."""

ENVIRONMENT = "environment"
SEARCH_TOKENS = "tokens"
SEARCHED = "searched"
"""An environment's search tokens (a property) and those used (tokens on the card)."""

PAGES_TURNED = "pages turned"
AVATARS_OUT = "avatars out"
"""What the module counts as it happens, for the figures of a simulation."""


# ---------------------------------------------------------------- the pages


def page_of(game: Game) -> CardInstance | None:
    """The page the adventure book is open at."""
    return game.state.in_play.get(PAGE)


def named_card(game: Game, title: str, kind: str) -> CardDef | None:
    """The pack's card of that title and kind; None (and a line in the log) if it has none."""
    game.step()
    found = game.find(title)
    if found is None or found.kind != kind:
        game.event(kind, f"the pack has no {kind} {title!r}")
        return None
    return found


def turn_to(game: Game, card: CardInstance, *, title: str) -> None:
    """`turn to page "Frosted Airlock"`: the book opens at that page."""
    found = named_card(game, title, PAGE)
    if found is not None:
        open_page(game, game.new_instance(found))


def turn_page(game: Game, card: CardInstance) -> None:
    """`turn the page`: the book opens at the page the one open leads to."""
    page = page_of(game)
    leads = page.definition.properties.get(LEADS_TO) if page is not None else None
    if not isinstance(leads, str):
        game.event(PAGE, "this page leads to no other")
        return
    game.state.count(PAGES_TURNED)
    turn_to(game, card, title=leads)


def open_page(game: Game, page: CardInstance) -> None:
    """The page is the one open: the one before is closed, the avatars go to its start and
    its setup is read."""
    game.step()
    old = page_of(game)
    if old is not None and old is not page:
        close_page(game, old)
    game.state.in_play[PAGE] = page
    clear_criticals(game)
    game.event("reveal", f"the adventure book opens at {page.definition.label}", uid=page.uid)
    start = page.definition.properties.get(START)
    if isinstance(start, str):
        for avatar in game.state.players:
            if not avatar.dead and avatar.location != start:
                game.event("move", f"{avatar.name} starts the page at {start}", to=start)
                avatar.location = start
    game.fire("drawn", [page])  # the page's special rules: read as it opens


def page_drawn(game: Game, card: CardInstance) -> bool:
    """A page drawn or played is the page the book is open at."""
    open_page(game, card)
    return True


def close_page(game: Game, page: CardInstance) -> None:
    """The page's enemies leave play undefeated, its environments are discarded, no defeated
    hostile waits to return, sight is clear, the threat track empty and the situation safe."""
    game.discard(page)
    for enemy in game.actors_of(ENEMY):
        game.event("leave", f"{enemy.name} stays behind on the page", actor=enemy.name)
        enemy.stats.dead = True
        enemy.location = None
        if enemy.sheet is not None:
            game.discard(enemy.sheet)
    for place in sorted(game.state.floor):
        for laid in [c for c in game.state.floor[place] if c.kind == ENVIRONMENT]:
            game.discard(laid)
    game.state.flags = {
        flag for flag in game.state.flags if not flag.startswith((f"{ASIDE}:", f"{SEEN_THROUGH}:"))
    }
    if game.state.target is not None and game.state.target.dead:
        game.state.target = None
    clear_threat(game)
    if game.state.tracks.get(HOSTILE):
        game.advance(HOSTILE, -game.state.tracks[HOSTILE])


def lay(game: Game, card: CardInstance, *, title: str, place: str) -> None:
    """`lay "Supply Locker" at cargo`: the environment card lies on that space."""
    found = named_card(game, title, ENVIRONMENT)
    if found is None:
        return
    laid = game.new_instance(found)
    game.state.floor.setdefault(place, []).append(laid)
    game.event("reveal", f"{found.label} lies at {place}", uid=laid.uid, place=place)


def lair_of(game: Game) -> str | None:
    """The space where the open page's enemies come into play, if it names one."""
    page = page_of(game)
    place = page.definition.properties.get(LAIR) if page is not None else None
    return place if isinstance(place, str) else None


def page_is(game: Game, card: CardInstance, *, title: str) -> bool:
    """`the page is "Frosted Airlock"`: the book is open at that page."""
    page = page_of(game)
    return page is not None and page.title == title


# ---------------------------------------------------------------- the page's group task


def task_of(page: CardInstance) -> tuple[str, int] | None:
    """The colour and number of the page's group task (`group task red 12`), if it has one."""
    task = page.definition.properties.get(TASK)
    if not isinstance(task, dict):
        return None
    colour, target = task.get("colour"), task.get("target")
    return (colour, target) if isinstance(colour, str) and isinstance(target, int) else None


def group_task(game: Game, page: CardInstance) -> None:
    """Dice placed on the page's group task (the player picks how many); done, the page's
    `when the task is done` block runs."""
    task = task_of(page)
    rule = next((r for r in game.rules.procedures.values() if r.procedure == TASK_PROCEDURE), None)
    if task is None or rule is None:
        game.event(PAGE, f"{page.definition.label} has no group task")
        return
    colour, target = task
    call = CheckCall(rule, (("colour", colour), ("target", target)), (), f"group task {colour}")
    done = (*rule.names, "done")[0]
    if game.check(page, call) == done:
        game.fire(TASK_DONE, [page])


def use_page(game: Game, page: CardInstance, run: Callable[[], None]) -> None:
    """Using a page works on its group task; a page without one runs its `use` blocks."""
    if task_of(page) is not None:
        group_task(game, page)
    else:
        run()


def page_task(rules: GameRules, card: CardDef) -> list[tuple[str, Effect]]:
    """The group task a page's property sets, for `pillbox odds` to walk."""
    return [("group task", group_task)] if isinstance(card.properties.get(TASK), dict) else []


# ---------------------------------------------------------------- values the actions read


def enemies_here(game: Game, card: CardInstance) -> int:
    """The enemies on your space."""
    return len(game.actors_of(ENEMY, game.actor.location)) if game.actor.location else 0


def enemies_in_range(game: Game, card: CardInstance) -> int:
    """The enemies a ranged attack of yours reaches: the next spaces, or the range of a ranged
    weapon you have equipped, in clear sight."""
    where = game.actor.location
    if where is None:
        return 0
    distances = game.rules.world.board.distances(where)
    reach = ranged_reach(game, game.actor)
    count = 0
    for enemy in game.actors_of(ENEMY):
        place = enemy.location
        if place is None or distances.get(place, reach + 1) > reach:
            continue
        if place == where or f"{SEEN_THROUGH}:{place}" not in game.state.flags:
            count += 1
    return count


def fitting(game: Game, card: CardInstance, *, colour: str) -> int:
    """`fitting red dice`: your dice of the colour and the purple ones standing in for it."""
    return fitting_dice(game, game.actor, colour)


def fitting_dice(game: Game, actor: Actor, colour: str) -> int:
    """An actor's dice of the colour and the purple ones standing in for it."""
    wild = _wild(game)
    extra = dice_of(actor, wild) if wild != colour else 0
    return dice_of(actor, colour) + extra


def dice_of(actor: Actor, colour: str) -> int:
    """The dice of a colour in an actor's pool (a pool's stat takes no modifier)."""
    return actor.stats.values.get(colour, 0)


def _wild(game: Game) -> str:
    for rule in game.rules.procedures.values():
        if "wild" in rule.params:
            return wild_of(rule.params)
    return wild_of({})


# ---------------------------------------------------------------- the seats' procedures


def move(game: Game, player: Player) -> None:
    """`procedure: move`: spend a die the seat picks, then step to a space next to this one."""
    dice = [colour for colour in colours_of(game) if game.stat(colour, player) > 0]
    here = player.location
    places = sorted(game.rules.world.board.neighbours(here)) if here is not None else []
    if not dice or not places:
        game.event("move", "no die to spend or no space to move to")
        return
    wild = _wild(game)
    most = max(range(len(dice)), key=lambda i: (dice[i] != wild, dice_of(player, dice[i])))
    picked = game.decide("spend", "spend which die to move", dice, default=most)
    game.change(dice[picked], -1, player)
    toward = _toward(game, player, places)
    if len(places) > 1:
        toward = game.decide("step", "move to", places, default=toward)
    game.move(places[toward])


def _toward(game: Game, player: Player, places: list[str]) -> int:
    """The rule's answer for a move: a step toward the nearest enemy, else toward the nearest
    card to interact with, else the first space."""
    board = game.rules.world.board
    goals = [e.location for e in game.actors_of(ENEMY) if e.location is not None]
    if not goals:
        floor = game.state.floor.items()
        goals = [place for place, cards in floor if any(_still(game, c) for c in cards)]
    best, shortest = 0, None
    for index, place in enumerate(places):
        near = [d for goal in goals if (d := board.distance(place, goal)) is not None]
        if near and (shortest is None or min(near) < shortest):
            best, shortest = index, min(near)
    return best


def can_move(game: Game, player: Player) -> bool:
    """Whether the seat has a die to spend and a space next to its own."""
    here = player.location
    return (
        here is not None
        and bool(game.rules.world.board.neighbours(here))
        and any(game.stat(colour, player) > 0 for colour in colours_of(game))
    )


def cards_here(game: Game, player: Player) -> list[CardInstance]:
    """The cards on the avatar's space it can interact with."""
    place = player.location
    cards = game.state.floor.get(place, []) if place is not None else []
    return [card for card in cards if game.usable(card) and _still(game, card)]


def _still(game: Game, card: CardInstance) -> bool:
    """Whether a card has a use not spent (an `interact` is once) and a search token left."""
    started = game.blocks.of(card.definition).started.get("use", ())
    if started and all(s.rule.once and s.block.name in card.spent for s in started):
        return False
    tokens = card.definition.properties.get(SEARCH_TOKENS)
    return not isinstance(tokens, int) or card.tokens.get(SEARCHED, 0) < tokens


def interact(game: Game, player: Player) -> None:
    """`procedure: interact`: use a card on the avatar's space, picked by the seat."""
    cards = cards_here(game, player)
    if not cards:
        game.event("use", "nothing here to interact with")
        return
    picked = game.decide("item", "interact with", [c.title for c in cards], default=0)
    game.use(cards[picked])


def can_interact(game: Game, player: Player) -> bool:
    """Whether a card on the avatar's space can be used."""
    return bool(cards_here(game, player))


def work(game: Game, player: Player) -> None:
    """`procedure: work`: dice on the page's group task, from anywhere (or its `use`)."""
    page = page_of(game)
    if page is not None:
        game.use(page)


def can_work(game: Game, player: Player) -> bool:
    """Whether the open page has a group task still open that the seat has dice for (or a
    `use` block not spent, and dice)."""
    page = page_of(game)
    if page is None:
        return False
    task = task_of(page)
    if task is None:
        started = game.blocks.of(page.definition).started.get("use", ())
        return bool(started) and _still(game, page) and pool(game, player) > 0
    colour, target = task
    return page.tokens.get(PROGRESS, 0) < target and fitting_dice(game, player, colour) > 0


def pool(game: Game, player: Actor) -> int:
    """Every die in the actor's pool."""
    values = player.stats.values
    return sum(values.get(colour, 0) for colour in colours_of(game))


def equip_item(game: Game, player: Player) -> None:
    """`procedure: equip`: an item from the inventory into its slots."""
    stowed = [card for card in inventory(game, player) if ways(card)]
    if not stowed:
        return
    picked = game.decide("item", "equip", [c.title for c in stowed], default=0)
    equip(game, player, stowed[picked])


def can_equip(game: Game, player: Player) -> bool:
    """Whether an item in the inventory fits a slot."""
    return any(ways(card) for card in inventory(game, player))


def avatar_out(game: Game, actor: Actor) -> None:
    """An avatar at 0 health is out of the adventure (counted): sent to the Morass, which this
    pack has not, it reveals a vital signs card."""
    if actor.seat is not None:
        game.state.count(AVATARS_OUT)
        reveal_vitals(game)


# ---------------------------------------------------------------- focus and reserve


def discard_pool(game: Game) -> dict[str, int]:
    """The dice of each pool colour in the discard pool: neither in the bag, nor in a pool,
    nor on a reserve slot."""
    found: dict[str, int] = {}
    for colour in colours_of(game):
        track = bag_track(colour)
        rule = game.rules.world.tracks.get(track)
        if rule is None:
            continue
        players = game.state.players
        held = sum(dice_of(p, colour) for p in players)
        held += sum(reserved(p).get(colour, 0) for p in players)
        found[colour] = max(rule.start - held - game.state.tracks.get(track, 0), 0)
    return found


def _pool_dice(game: Game, player: Player) -> list[str]:
    return [colour for colour in colours_of(game) if dice_of(player, colour) > 0]


def _spend_one(game: Game, player: Player, why: str) -> None:
    """The seat spends a die of its choosing (the most plentiful non-purple by default)."""
    dice = _pool_dice(game, player)
    wild = _wild(game)
    most = max(range(len(dice)), key=lambda i: (dice[i] != wild, dice_of(player, dice[i])))
    picked = game.decide("spend", why, dice, default=most)
    game.change(dice[picked], -1, player)


def focus(game: Game, player: Player) -> None:
    """`procedure: focus`: two dice of the pool are discarded, then one die of the discard
    pool (any colour in it, the two just spent among them) joins the pool."""
    if pool(game, player) < 2:
        game.event("focus", "focus needs two dice")
        return
    for _ in range(2):
        _spend_one(game, player, "discard which die to focus")
    there = [colour for colour, n in discard_pool(game).items() if n > 0]
    if not there:
        return
    wild = _wild(game)
    default = there.index(wild) if wild in there else 0
    picked = game.decide("take", "take which die from the discard pool", there, default=default)
    game.change(there[picked], 1, player)
    game.event("focus", f"{player.name} focuses: a {there[picked]} die from the discard pool")


def can_focus(game: Game, player: Player) -> bool:
    """Whether the seat has two dice to spend."""
    return pool(game, player) >= 2


def reserve(game: Game, player: Player) -> None:
    """`procedure: reserve`: a die of the pool goes onto the reserve slot, kept past the
    discard for the seat's next turn."""
    dice = _pool_dice(game, player)
    if not dice or reserve_room(game, player) <= 0:
        game.event("reserve", "no die to reserve, or no room on the reserve slot")
        return
    wild = _wild(game)
    default = dice.index(wild) if wild in dice else 0
    picked = game.decide("spend", "reserve which die", dice, default=default)
    put_in_reserve(game, player, dice[picked])


def can_reserve(game: Game, player: Player) -> bool:
    """Whether the seat has a die and room on its reserve slot."""
    return pool(game, player) > 0 and reserve_room(game, player) > 0
