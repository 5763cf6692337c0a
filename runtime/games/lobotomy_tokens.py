"""Lobotomy's board tokens: lockers and bodies to search, doors to open, the imaginary locker.

A token is a card of the pack (`locker`, `body`, `door`) lying on the board: on the floor of
its space (`GameState.floor`), a door on the floors of both spaces it stands between. Played
(a card test's `play`, `pillbox play`), a token comes onto the actor's space and is searched or
revealed at once, so its odds are those of being found. The rulebook's lines:

- Searching (464-490) costs 1 AP, and the token is discarded. A body draws a card of the deck
  it holds, or lets out its guard. A locker is the search test: imagination-many d6, 4 to 6
  succeed; the successes buy at most one card of each deck, each paid for apart; buying
  nothing fails the test and lets out the guard on the space. The dice decide which sets of
  cards can be bought (those to which no other card could be added); the player decides which
  set is (`choose "weapon + drug"`; without an answer, the most cards, then the most successes
  spent, then the ruleset's order).
- The imaginary locker (839-841): 1 insanity and 1 AP, once the Warden has reached B1 of the
  Insomnia Track: a random locker from off the board on your space; only you may search it.
- Doors (920-962): revealing costs 1 AP. An open door is then removed; a locked door gives one
  free unlocking test at once (the player may decline it); each further try costs 1 AP and
  needs 1 more success for each earlier try *of the same character* this turn (950-952: "every
  previous attempt by this character this turn"; the example of 954-958 has a second character
  at the printed strength). A barricade takes damage tokens, 1 AP each or one wear on a weapon
  of yours each (free; a weapon without durability cannot), and opens at its strength.
- A door stands between its two spaces. A character cannot move from one to the other while
  its token is on the board, face down or revealed and shut (922): it must be opened first (an
  ethereal one walks through, 331). A monster that is not ethereal is stopped only by a
  revealed, shut door (960-962), and goes round; one that can reach no character moves
  towards the nearest as far as the doors let it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Branch, CheckCall, CheckProcedure, Rolled
from runtime.decisions import YES_NO
from runtime.game import Game
from runtime.games.lobotomy_attack import wear_out
from runtime.games.lobotomy_clash import defies_gravity
from runtime.games.lobotomy_dice import (
    IMAGINATION_SUCCESS,
    roll_search,
    roll_unlock,
    search_distribution,
    search_purchases,
    unlock_distribution,
    unlock_strength,
)
from runtime.module import GameModule, ValueDef
from runtime.rules import ProcedureRule
from runtime.state import Actor

LOCKER = "locker"
BODY = "body"
DOOR = "door"
SEARCHED = (LOCKER, BODY)
"""The token kinds a character searches."""

MONSTER = "monster"
CHARACTER = "character"
AP = "ap"
WEAR = "wear"
BATTERED = "battered"
"""The token kind of the damage on a barricade."""

SEARCH_PROCEDURE = "lobotomy-search"
UNLOCK_PROCEDURE = "lobotomy-unlock"
ATTACK_PROCEDURE = "lobotomy-attack"

INSOMNIA = "insomnia"
IMAGINABLE_FROM = 12
"""The Insomnia Track's step of B1, from which a character may imagine a locker (841)."""

REVEALED = "revealed"
"""The flag of a door turned face up: `revealed:UID`."""

IMAGINED = "imagined"
"""The flag of a locker only one character may search: `imagined:UID:NAME`."""

TRIED = "tried"
"""The flags of one character's unlocking tests of a door this turn: `tried:UID:NAME:N`."""


# ---------------------------------------------------------------- tokens on the board


def place_token(game: Game, card: CardInstance, place: str) -> None:
    """Lay a token on a space (a door on both spaces it stands between)."""
    game.step()
    spaces = door_between(game, card, place) if card.kind == DOOR else (place,)
    for space in spaces:
        game.state.floor.setdefault(space, []).append(card)
    game.event("lay", f"{card.definition.label} on {' | '.join(spaces)}", uid=card.uid)


def door_between(game: Game, door: CardInstance, place: str) -> tuple[str, ...]:
    """The spaces a door stands between: its card's `between`, else this space and the next
    one on the board (or, from the last, the one before)."""
    between = door.definition.properties.get("between")
    if isinstance(between, dict):
        return tuple(str(between[key]) for key in ("place", "beyond"))
    board = game.rules.world.board
    near = board.neighbours(place)
    order = list(board.places)
    later = [p for p in order[order.index(place) + 1 :] if p in near] if place in order else []
    other = later[0] if later else min(near, key=order.index, default=None)
    return (place,) if other is None else (place, other)


def tokens_at(game: Game, place: str | None, kinds: Collection[str]) -> list[CardInstance]:
    """The tokens of these kinds on a space."""
    if place is None:
        return []
    return [card for card in game.state.floor.get(place, []) if card.kind in kinds]


def spaces_of(game: Game, card: CardInstance) -> list[str]:
    """The spaces a token lies on."""
    return [place for place, cards in game.state.floor.items() if card in cards]


def on_board(game: Game, token: CardInstance) -> bool:
    """Whether a token still lies on the board (else it has been searched or opened)."""
    if spaces_of(game, token):
        return True
    game.event("token", f"{token.definition.label} is no longer on the board")
    return False


def spend(game: Game, what: str) -> bool:
    """Pay 1 AP for an action, if the actor has it."""
    if game.stat(AP) < 1:
        game.event("action", f"{game.actor.name} has no AP left to {what}")
        return False
    game.change(AP, -1)
    return True


def found(game: Game, card: CardInstance) -> None:
    """A token played comes onto your space, and you search or reveal it at once."""
    place = game.actor.location or game.rules.start_place
    if place is None:
        game.event("lay", f"{card.definition.label} has no space to lie on")
        return
    place_token(game, card, place)
    if card.kind == DOOR and place not in spaces_of(game, card):
        game.event(
            "door", f"{card.definition.label} stands elsewhere: {game.actor.name} is not at it"
        )
    elif card.kind == DOOR:
        reveal(game, card)
    else:
        search(game, card)


# ---------------------------------------------------------------- searching


def search(game: Game, token: CardInstance) -> None:
    """Search a locker or body token (1 AP): discarded, then its search test or its card."""
    actor = game.actor
    if not on_board(game, token):
        return
    owner = next((f for f in game.state.flags if f.startswith(f"{IMAGINED}:{token.uid}:")), None)
    if owner is not None and owner != f"{IMAGINED}:{token.uid}:{actor.name}":
        game.event("search", f"only its dreamer may search {token.definition.label}")
        return
    if not spend(game, "search"):
        return
    game.state.flags.discard(f"{IMAGINED}:{token.uid}:{actor.name}")
    game.discard(token)
    if token.kind == LOCKER:
        rule = procedure_rule(game, SEARCH_PROCEDURE)
        if rule is None:
            game.event("search", "this game has no search test")
            return
        game.check(token, CheckCall(rule, (), (), "search test"))
        return
    deck = token.definition.properties.get("holds")
    if isinstance(deck, str):
        game.draw(deck)
    else:
        let_out(game, token)


def search_here(game: Game, card: CardInstance) -> None:
    """`search here`: search the first locker or body token on your space."""
    tokens = tokens_at(game, game.actor.location, SEARCHED)
    if not tokens:
        game.event("search", "there is nothing here to search")
        return
    search(game, tokens[0])


def let_out(game: Game, token: CardInstance) -> None:
    """The token's guard, if it has one, comes onto the searcher's space."""
    title = token.definition.properties.get("guard")
    if not isinstance(title, str):
        return
    monster = game.find(title)
    if monster is None or monster.kind != MONSTER:
        game.event("search", f"{token.definition.label}: no monster card is titled {title!r}")
        return
    place = game.actor.location
    game.event("search", f"{title} comes out of {token.definition.label}", place=place)
    game.spawn(MONSTER, place, monster)


def procedure_rule(game: Game, procedure: str) -> ProcedureRule | None:
    """The ruleset's check that this procedure runs."""
    return next((r for r in game.rules.procedures.values() if r.procedure == procedure), None)


# ---------------------------------------------------------------- the search test


@dataclass(frozen=True)
class Purchases:
    """What a search's successes can buy: each set of cards, best first; none, a failure."""

    options: tuple[tuple[str, ...], ...]
    guard: str | None

    @property
    def labels(self) -> list[str]:
        """`weapon + drug`, one a set."""
        return [" + ".join(option) for option in self.options]

    def __str__(self) -> str:
        if self.options:
            return " or ".join(self.labels)
        return f"nothing: {self.guard} comes out" if self.guard else "nothing"


@dataclass(frozen=True)
class Search:
    """A search test ready to roll: the dice, each card's deck and cost, the guard."""

    dice: int
    costs: tuple[tuple[str, str, int], ...]  # (what, deck, successes), in the ruleset's order
    guard: str | None

    def purchases(self, successes: int) -> Purchases:
        """The sets the successes can buy: the most cards, then the most spent, first."""
        order = [what for what, _, _ in self.costs]
        price = {what: cost for what, _, cost in self.costs}
        sets = [
            tuple(sorted(chosen, key=order.index)) for chosen in search_purchases(successes, price)
        ]
        sets.sort(key=lambda s: (-len(s), -sum(price[w] for w in s), [order.index(w) for w in s]))
        return Purchases(tuple(sets), self.guard)


def prepare_search(game: Game, card: CardInstance, call: CheckCall) -> Search:
    """The searcher's imagination, and the locker's costs and guard."""
    properties = card.definition.properties
    costs = tuple(
        (str(what), str(deck), properties[prop])
        for what, deck, prop in call.params.get("buys") or ()
        if isinstance(properties.get(prop), int)
    )
    guard = properties.get(str(call.params.get("guard", "guard")))
    dice = game.stat(str(call.params.get("dice", "imagination")))
    return Search(max(dice, 0), costs, guard if isinstance(guard, str) else None)


def roll_search_test(game: Game, search: Search) -> Rolled:
    """Roll the search test: passed when the successes buy a card."""
    rolled = roll_search(search.dice, game.dice)
    successes, text = rolled.outcome, rolled.text
    bought = search.purchases(successes)
    more = _a_die_short(rolled.faces) and search.purchases(successes + 1) != bought
    if more and defies_gravity(game, "buy more", default=1):  # 894
        successes += 1
        bought = search.purchases(successes)
        text += f"; a {IMAGINATION_SUCCESS - 1} turned up → {successes} successes"
    return Rolled(
        "pass" if bought.options else "fail",
        f"{text}: {bought}",
        after=bought,
        data=(("dice", list(rolled.faces)), ("successes", successes)),
    )


def _a_die_short(faces: Sequence[int]) -> bool:
    """Whether a die of a search or unlocking test is one from a success (Defy Gravity)."""
    return IMAGINATION_SUCCESS - 1 in faces


def search_odds(search: Search) -> list[Branch]:
    """The exact chance of each set of purchases the successes allow."""
    found: dict[Purchases, Fraction] = {}
    for successes, p in search_distribution(search.dice).items():
        bought = search.purchases(successes)
        found[bought] = found.get(bought, Fraction(0)) + p
    return [Branch("pass" if b.options else "fail", p, after=b) for b, p in found.items()]


def settle_search(
    game: Game, card: CardInstance, call: CheckCall, search: Search, rolled: Rolled
) -> None:
    """Buy the set the player picks, a card of each deck; with nothing bought, the guard."""
    bought = rolled.after
    if not isinstance(bought, Purchases) or not bought.options:
        let_out(game, card)
        return
    index = 0
    if len(bought.options) > 1:
        index = game.decide("option", "buy", bought.labels, default=0)
    decks = {what: deck for what, deck, _ in search.costs}
    for what in bought.options[index]:
        game.draw(decks[what])


def _dice_stat(params: Mapping[str, Any], args: Mapping[str, Any], rules: object) -> list[str]:
    """The stat a test of imagination-many dice rolls."""
    return [str(params.get("dice", "imagination"))]


def _validate_dice(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    if params.get("dice", "imagination") not in stats:
        return [f"dice names a stat, not {params.get('dice')!r}"]
    return []


def _validate_search(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = _validate_dice(params, stats)
    buys = params.get("buys")
    shaped = isinstance(buys, list) and 1 <= len(buys) <= 6
    if not shaped or not all(
        isinstance(b, list) and len(b) == 3 and all(isinstance(w, str) for w in b)
        for b in buys or ()
    ):
        problems.append("buys lists 1 to 6 entries, each [what, deck, cost property]")
    return problems


SEARCH = CheckProcedure(
    prepare_search,
    roll_search_test,
    search_odds,
    settle=settle_search,
    validate=_validate_search,
    cost=lambda search: search.dice,
    stats=_dice_stat,
    results=frozenset({"named"}),
)
"""`lobotomy-search`: the search test of a locker, with the exact odds of each purchase."""


# ---------------------------------------------------------------- the unlocking test


@dataclass(frozen=True)
class Unlock:
    """An unlocking test ready to roll: the dice, the lock, the earlier tries this turn."""

    dice: int
    strength: int
    earlier: int
    opened: str
    locked: str
    door: int | None  # the uid of the door tested, if one is


def prepare_unlock(game: Game, card: CardInstance, call: CheckCall) -> Unlock:
    """The tester's imagination, the door's lock, the tester's tries on it this turn: the door
    is the card tested, or (a card's own `check unlock`) the locked door on your space."""
    prop = str(call.params.get("strength", "locked"))
    door = card if card.kind == DOOR else shut_door(game, prop)
    printed = door.definition.properties.get(prop) if door is not None else None
    dice = game.stat(str(call.params.get("dice", "imagination")))
    opened, locked = (*call.rule.names, "opened", "locked")[:2]
    earlier = len(tries(game, door, game.actor)) if door is not None else 0
    lock = printed if isinstance(printed, int) else 0
    return Unlock(max(dice, 0), lock, earlier, opened, locked, door.uid if door else None)


def roll_unlock_test(game: Game, unlock: Unlock) -> Rolled:
    """Roll the unlocking test at the lock's strength, +1 for each earlier try."""
    rolled = roll_unlock(unlock.dice, unlock.strength, game.dice, unlock.earlier)
    opened, text = bool(rolled.outcome), rolled.text
    needed = unlock_strength(unlock.strength, unlock.earlier)
    successes = sum(1 for face in rolled.faces if face >= IMAGINATION_SUCCESS)
    near = not opened and successes + 1 >= needed and _a_die_short(rolled.faces)
    if near and defies_gravity(game, "open the lock", default=1):  # 894
        opened, text = True, f"{text}; a {IMAGINATION_SUCCESS - 1} turned up: opened"
    return Rolled(
        unlock.opened if opened else unlock.locked,
        text,
        data=(
            ("dice", list(rolled.faces)),
            ("strength", unlock_strength(unlock.strength, unlock.earlier)),
        ),
    )


def unlock_odds(unlock: Unlock) -> list[Branch]:
    """The exact chance the door opens, at this try's strength."""
    table = unlock_distribution(unlock.dice, unlock.strength, unlock.earlier)
    return [Branch(unlock.opened if k else unlock.locked, p) for k, p in table.items()]


def settle_unlock(
    game: Game, card: CardInstance, call: CheckCall, unlock: Unlock, rolled: Rolled
) -> None:
    """Count the try; an opened door is removed from the board."""
    placed = (c for cards in game.state.floor.values() for c in cards)
    door = next((c for c in placed if c.uid == unlock.door), None)
    if door is None:
        return
    earlier = len(tries(game, door, game.actor))
    game.state.flags.add(f"{TRIED}:{door.uid}:{game.actor.name}:{earlier + 1}")
    if rolled.result == unlock.opened:
        open_door(game, door)


UNLOCK = CheckProcedure(
    prepare_unlock,
    roll_unlock_test,
    unlock_odds,
    settle=settle_unlock,
    validate=_validate_dice,
    cost=lambda unlock: unlock.dice,
    stats=_dice_stat,
    results=frozenset({"named"}),
)
"""`lobotomy-unlock`: the unlocking test of a locked door, +1 strength a try this turn."""


# ---------------------------------------------------------------- doors


def strength(door: CardInstance, lock: str) -> int | None:
    """A door's `locked` or `barricaded` strength, if it has one."""
    value = door.definition.properties.get(lock)
    return value if isinstance(value, int) else None


def revealed(game: Game, door: CardInstance) -> bool:
    """Whether a door has been turned face up."""
    return f"{REVEALED}:{door.uid}" in game.state.flags


def reveal(game: Game, door: CardInstance) -> None:
    """Turn a door face up (1 AP): an open door goes, a locked one gives a free try."""
    if not on_board(game, door) or revealed(game, door) or not spend(game, "reveal the door"):
        return
    game.state.flags.add(f"{REVEALED}:{door.uid}")
    locked, barricaded = strength(door, "locked"), strength(door, "barricaded")
    what = f"locked, strength {locked}" if locked is not None else "open"
    if barricaded is not None:
        what = f"barricaded, strength {barricaded}"
    game.event("door", f"{door.definition.label} is {what}", uid=door.uid)
    if locked is None and barricaded is None:
        open_door(game, door)
    elif locked is not None:
        prompt = "try the lock for free"
        if game.decide("yes-no", prompt, YES_NO, default=0) == 0:
            unlock(game, door)


def unlock(game: Game, door: CardInstance) -> None:
    """An unlocking test on the door."""
    rule = procedure_rule(game, UNLOCK_PROCEDURE)
    if rule is None:
        game.event("door", "this game has no unlocking test")
        return
    game.check(door, CheckCall(rule, (), (), "unlocking test"))


def shut_door(game: Game, kind: str) -> CardInstance | None:
    """The revealed, shut door with a lock of this kind on your space, if there is one."""
    doors = tokens_at(game, game.actor.location, (DOOR,))
    return next((d for d in doors if revealed(game, d) and strength(d, kind) is not None), None)


def try_lock(game: Game, card: CardInstance) -> None:
    """`try the lock`: another unlocking test on the locked door here (1 AP)."""
    door = shut_door(game, "locked")
    if door is None:
        game.event("door", "there is no locked door here")
    elif spend(game, "try the lock"):
        unlock(game, door)


def batter(game: Game, card: CardInstance) -> None:
    """`batter the barricade`: a damage token on the barricade here (1 AP)."""
    door = shut_door(game, "barricaded")
    if door is None:
        game.event("door", "there is no barricade here")
    elif spend(game, "batter the barricade"):
        damage_barricade(game, door)


def wear_down(game: Game, door: CardInstance, weapon: CardInstance, times: int = 1) -> None:
    """Spend a weapon's durability on a barricade: a wear on it for each damage token (free);
    a weapon without durability cannot, and one that breaks gives no more."""
    rule = procedure_rule(game, ATTACK_PROCEDURE)
    params = rule.params if rule is not None else {}
    durability = weapon.definition.properties.get(str(params.get("durability", "durability")))
    if not isinstance(durability, int):
        game.event("door", f"{weapon.definition.label} has no durability to spend")
        return
    for _ in range(times):
        if weapon not in game.actor.items or not spaces_of(game, door):
            return
        wear_out(game, weapon, params)
        damage_barricade(game, door)


def damage_barricade(game: Game, door: CardInstance) -> None:
    """One damage token on the barricade; at its strength it opens."""
    game.add_tokens(door, BATTERED, 1)
    needed = strength(door, "barricaded")
    if needed is not None and door.tokens.get(BATTERED, 0) >= needed:
        open_door(game, door)


def open_door(game: Game, door: CardInstance) -> None:
    """An opened door is removed from the board."""
    game.event("door", f"{door.definition.label} opens", uid=door.uid)
    game.state.flags.discard(f"{REVEALED}:{door.uid}")
    game.discard(door)


def tries(game: Game, door: CardInstance, actor: Actor) -> list[str]:
    """The flags of the actor's unlocking tests of the door this turn."""
    prefix = f"{TRIED}:{door.uid}:{actor.name}:"
    return [flag for flag in game.state.flags if flag.startswith(prefix)]


def turn_ended(game: Game, actor: Actor) -> None:
    """The extra strength of a character's tries goes at the end of their turn (952)."""
    game.state.flags = {
        flag
        for flag in game.state.flags
        if not (flag.startswith(f"{TRIED}:") and flag.rsplit(":", 2)[-2] == actor.name)
    }


def walls(game: Game) -> set[frozenset[str]]:
    """The pairs of spaces a revealed, shut door stands between."""
    found: set[frozenset[str]] = set()
    for cards in game.state.floor.values():
        for door in cards:
            if door.kind == DOOR and revealed(game, door):
                spaces = spaces_of(game, door)
                if len(spaces) == 2:
                    found.add(frozenset(spaces))
    return found


def door_in_the_way(game: Game, actor: Actor, place: str) -> str | None:
    """A character cannot move between two spaces a door token stands between until it is
    opened: face down, locked or an unbroken barricade (922; "visible obstacles", 331). An
    ethereal one walks through (331); monsters go by `walls` instead (960-962)."""
    here = actor.location
    if actor.kind != CHARACTER or "ethereal" in actor.keywords or here is None:
        return None
    step = frozenset((here, place))
    doors = tokens_at(game, here, (DOOR,))
    door = next((d for d in doors if frozenset(spaces_of(game, d)) == step), None)
    if door is None:
        return None
    return f"{door.definition.label} stands between {here} and {place}, not yet opened"


def moves_to(game: Game, goal: str, blocked: set[frozenset[str]]) -> Mapping[str, int]:
    """The fewest moves from each space to `goal`, through no blocked pair."""
    board = game.rules.world.board
    if not blocked:  # the board's own walk, worked out once a place (most moves have no wall)
        return board.distances(goal) if goal in board.places else {goal: 0}
    found = {goal: 0}
    queue = deque([goal])
    while queue:
        place = queue.popleft()
        for near in board.neighbours(place):  # the fewest moves are the same in any order
            if near not in found and frozenset((place, near)) not in blocked:
                found[near] = found[place] + 1
                queue.append(near)
    return found


def monster_step(game: Game, monster: Actor, characters: Sequence[Actor]) -> str | None:
    """Where a monster moves next: a step on a shortest way to the nearest character it can
    reach (ties by seat, then board order), round the shut doors unless it is ethereal; if it
    can reach none, a step nearer the nearest one that no door bars, if there is one."""
    here = monster.location
    if here is None:
        return None
    blocked = set() if "ethereal" in monster.keywords else walls(game)
    ways = {c.name: moves_to(game, c.location or "", blocked) for c in characters}
    reachable = [c for c in characters if here in ways[c.name]]
    order = {place: index for index, place in enumerate(game.rules.world.board.places)}
    if reachable:
        nearest = min(reachable, key=lambda c: (ways[c.name][here], c.seat or 0))
        goal = ways[nearest.name]
    else:  # trapped: towards the nearest as the crow walks, as far as the doors let it
        open_ways = {c.name: moves_to(game, c.location or "", set()) for c in characters}
        known = [c for c in characters if here in open_ways[c.name]]
        if not known:
            return None
        nearest = min(known, key=lambda c: (open_ways[c.name][here], c.seat or 0))
        goal = open_ways[nearest.name]
    options = [
        p
        for p in game.rules.world.board.neighbours(here)
        if p in goal and goal[p] < goal[here] and frozenset((here, p)) not in blocked
    ]
    return min(options, key=lambda p: order.get(p, 0), default=None)


# ---------------------------------------------------------------- the imaginary locker


def can_imagine(game: Game) -> bool:
    """Whether the Warden has reached B1, from where a locker may be imagined (841)."""
    if game.state.tracks.get(INSOMNIA, 0) < IMAGINABLE_FROM:
        game.event("insane", "no imaginary locker before the Warden reaches B1")
        return False
    if game.stat(AP) < 1:
        game.event("insane", f"{game.actor.name} has no AP left to imagine a locker")
        return False
    return True


def imagine_locker(game: Game) -> None:
    """A random locker from off the board on your space, that only you may search (1 AP)."""
    pile = game.state.decks.get("lockers") or []
    place = game.actor.location
    if not pile or place is None:
        game.event("insane", "no locker is left to imagine")
        return
    game.change(AP, -1)
    card = game.from_deck(pile.pop())  # the deck is shuffled: its top is a random one
    game.state.flags.add(f"{IMAGINED}:{card.uid}:{game.actor.name}")
    place_token(game, card, place)


# ---------------------------------------------------------------- conditions and values


def door_shut(game: Game, card: CardInstance) -> bool:
    """`a door is shut here`: a revealed door on your space has not opened."""
    doors = tokens_at(game, game.actor.location, (DOOR,))
    return any(revealed(game, door) for door in doors)


def carried(game: Game, card: CardInstance, *, kind: str) -> int:
    """`carried weapon`: how many cards of a kind you carry."""
    return sum(1 for item in game.actor.items if item.kind == kind)


def tokens_here(game: Game, card: CardInstance) -> int:
    """`tokens here`: how many tokens lie on your space."""
    place = game.actor.location
    return len(game.state.floor.get(place, [])) if place is not None else 0


def laid(game: Game, card: CardInstance) -> bool:
    """A token drawn (a scenario's setup) is laid on the drawer's space, face down."""
    if game.actor.location is not None:
        place_token(game, card, game.actor.location)
    return True


def extend(module: GameModule) -> GameModule:
    """The module with the board tokens' verbs, checks, conditions and cards added."""
    kinds = (LOCKER, BODY, DOOR)
    return module.extend(
        module.name,
        verbs={"search_here": search_here, "try_lock": try_lock, "batter": batter},
        conditions={"door_shut": door_shut},
        values={"carried": ValueDef(carried), "tokens_here": ValueDef(tokens_here)},
        checks={SEARCH_PROCEDURE: SEARCH, UNLOCK_PROCEDURE: UNLOCK},
        drawn=dict.fromkeys(kinds, laid),
        played=dict.fromkeys(kinds, found),
        walked={LOCKER: "searched", BODY: "searched", DOOR: "revealed"},
        hooks={"turn_ended": turn_ended},
    )
