"""Coma Ward's cards: the pool check, clues and the phenomenon chart, carrying, rooms and quirks.

Only what differs from the base module is stated here; the numbers (faces, bounds, tables)
come from the ruleset's data. Readings of ambiguous rules: docs/readings.md#coma-ward.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Arm
from runtime.game import Game, RunEnded
from runtime.games.base import BASE, carry, narrate
from runtime.games.coma_ward_combat import COMBAT_PROCEDURES, hurt
from runtime.games.coma_ward_map import move_exactly, refused_move
from runtime.games.coma_ward_phenomena import CONDITIONS as ACT_CONDITIONS
from runtime.games.coma_ward_phenomena import TRIGGERS as ACT_TRIGGERS
from runtime.games.coma_ward_phenomena import VALUES as ACT_VALUES
from runtime.games.coma_ward_phenomena import VERBS as ACT_VERBS
from runtime.games.coma_ward_phenomena import act_turn_ended, dealt, set_up
from runtime.games.coma_ward_pool import POOL, passing, pool_rule, stat_check, waiting_prefix
from runtime.module import ValueDef
from runtime.state import Player

UNCOUNTED_TYPES = frozenset({"clothing"})
"""Item types that do not count toward the carry limit (clues are not carried at all)."""

KEPT_IN_FRONT = frozenset({"medicine"})
"""Item types that, when they have uses left for later (`charges`), are kept in front of the
player rather than carried, so they do not count toward the limit (the rulebook's medicines)."""

SEARCH_STAT = "focus"
"""The stat a search checks; the ruleset says how many successes pass it."""


def search_arms(game: Game) -> tuple[Arm, ...]:
    """How a search's check branches: failed below the successes that pass, found from them."""
    return _arms_passing_at(passing(pool_rule(game), SEARCH_STAT) or 1)


@lru_cache(maxsize=16)
def _arms_passing_at(needed: int) -> tuple[Arm, ...]:
    return (Arm(0, needed - 1, f"0..{needed - 1}"), Arm(needed, None, f"{needed}+"))


def focus_search(game: Game, card: CardInstance) -> bool:
    """The check of a search: pass and draw an item, fail and face a hallucination."""
    arms = search_arms(game)
    if arms[1].holds(stat_check(game, card, SEARCH_STAT, arms)):
        game.draw("item")
        return True
    game.draw("hallucination")
    return False


_SEARCHED: dict[str, str] = {}


def searched(place: str) -> str:
    """The flag of a place searched with success: made once a place, as it is asked of every
    slot before every move."""
    mark = _SEARCHED.get(place)
    if mark is None:
        if len(_SEARCHED) >= 10_000:  # the places of many boards: start again
            _SEARCHED.clear()
        mark = _SEARCHED[place] = f"searched:{place}"
    return mark


def rummage(game: Game, card: CardInstance) -> None:
    """`rummage`: search where the player is; a place searched with success is spent."""
    place = game.player.location or "nowhere"
    mark = searched(place)
    if mark in game.state.flags:
        game.event("search", f"{place} has a rummage token: nothing is left to find", place=place)
        return
    if focus_search(game, card):
        game.state.flags.add(mark)
        game.event("search", f"a rummage token on {place}", place=place)


def place_pill(game: Game, card: CardInstance) -> None:
    """`place pill on this`."""
    game.step()
    card.tokens["pill"] = card.tokens.get("pill", 0) + 1
    if game.hears("token"):
        game.event(
            "token", f"a pill on {card.title}: {card.tokens['pill']}", pills=card.tokens["pill"]
        )


def bonus_next(game: Game, card: CardInstance, *, check_name: str, modifier: int) -> None:
    """`bonus next attack +1`: extra dice on the next check of that kind, then gone.

    Bonuses of different cards add up, as the FAQ says; one card's bonus given again on a
    later turn, while the one it gave before still waits, replaces it (a `when your turn
    ends` bonus for a check never made would otherwise grow without end).
    """
    game.step()
    player = game.player
    prefix = f"{waiting_prefix(player, check_name)}{card.uid}:"
    turn = f"{game.state.round}.{game.state.current}"
    for earlier in [f for f in game.state.flags if f.startswith(prefix)]:
        given_on, dice = earlier[len(prefix) :].rsplit(":", 1)
        if given_on != turn and (check_name, int(dice)) in player.bonuses:
            game.state.flags.discard(earlier)
            player.bonuses.remove((check_name, int(dice)))
            game.event("bonus", f"{card.title}'s bonus still waits: it is given anew, not twice")
    player.bonuses.append((check_name, modifier))
    game.state.flags.add(f"{prefix}{turn}:{modifier}")
    if game.hears("bonus"):
        game.event("bonus", f"{modifier:+d} dice on the next {check_name} check", check=check_name)


def found_symbols(game: Game) -> list[str]:
    """The letters of the clues found, in the order found."""
    out = []
    for chart in game.rules.charts:
        for clue in game.state.found:
            if clue.kind == chart.symbol_kind and chart.symbol_property:
                out.append(str(clue.definition.properties.get(chart.symbol_property, "?")))
    return out


def reveal_phenomenon(game: Game, card: CardInstance) -> None:
    """Look up the phenomenon chart by the order the clues were found; end the prologue."""
    game.step()
    if "phenomenon_revealed" in game.state.flags:
        game.event("phenomenon", "the phenomenon is already revealed")
        return
    game.state.flags.add("phenomenon_revealed")
    order = found_symbols(game)
    revealed = None
    for chart in game.rules.charts:
        for definition in game.cards:
            key = definition.properties.get(chart.key)
            # The compiled property is a tuple and `order` a list: compare them as lists.
            if definition.kind == chart.kind and isinstance(key, list | tuple) and [*key] == order:
                revealed = game.new_instance(definition)
                break
    shown = " ".join(order) or "(none)"
    if revealed is None:
        game.event("phenomenon", f"clue order {shown}: no phenomenon on the chart", order=order)
    else:
        game.state.in_play["phenomenon"] = revealed
        number = revealed.definition.properties.get("number")
        game.event(
            "phenomenon",
            f"clue order {shown}: phenomenon {number}, “{revealed.title}”",
            order=order,
            phenomenon=revealed.title,
        )
    game.end_turn()
    listeners = [c for p in game.state.players for c in [*p.owned, *p.items]]
    game.fire("phenomenon_revealed", [*listeners, *([revealed] if revealed else [])])


def clues_found(game: Game, card: CardInstance) -> int:
    """`clues found`."""
    return len(game.state.found)


def set_clues_found(game: Game, card: CardInstance, value: int) -> None:
    """`given clues found 2`: the pack's first clues by letter are found, in that order."""
    clues = sorted(
        (d for d in game.cards if d.kind == "clue"), key=lambda d: str(d.properties.get("letter"))
    )
    game.state.found = [game.new_instance(d) for d in clues[:value]]
    shown = " ".join(found_symbols(game)) or "none"
    game.event("given", f"clues found: {shown}", order=found_symbols(game))


def bonus_waiting(game: Game, card: CardInstance, *, check_name: str) -> int:
    """`bonus on next focus`: the dice waiting for the next check of that name."""
    return sum(dice for name, dice in game.player.bonuses if name == check_name)


def set_pills_on_this(game: Game, card: CardInstance, value: int) -> None:
    """`given pills on this 2`."""
    card.tokens["pill"] = value
    game.event("given", f"{value} pills on {card.title}", pills=value)


def counts_toward_limit(card: CardInstance) -> bool:
    """Clothing, and medicine kept for later uses, do not count toward the carry limit."""
    properties = card.definition.properties
    kind = properties.get("type")
    return kind not in UNCOUNTED_TYPES and not (kind in KEPT_IN_FRONT and "charges" in properties)


def uncounted_reason(card: CardInstance) -> str:
    """Where an item that does not count toward the carry limit went, and why (for the log: a
    test expecting `items carried` to count it is told)."""
    kind = card.definition.properties.get("type")
    if kind in KEPT_IN_FRONT:
        return (
            f"is kept in front of the player, not carried: {kind} with charges"
            " does not count toward the carry limit"
        )
    return f"is {kind}: it does not count toward the carry limit"


def items_carried(game: Game, card: CardInstance) -> int:
    """`items carried`: the items that count toward the carry limit."""
    return sum(1 for item in game.player.items if counts_toward_limit(item))


def carry_limit(game: Game, card: CardInstance) -> int:
    """`carry limit`: strength, and what clothing (`carry limit +1`) adds."""
    return game.stat("strength") + game.stat_bonus(CARRY_LIMIT, game.player)


CARRY_LIMIT = "carry_limit"
"""What a `carry limit +1` modifier raises (it is read like a stat's bonus)."""


def carry_bonus(game: Game, player: Player, args: dict[str, Any]) -> tuple[str, int] | None:
    """`carry limit +1` while the block applies."""
    return CARRY_LIMIT, int(args["modifier"])


def take_damage(game: Game, card: CardInstance, *, amount: int) -> None:
    """`take 2 damage`: lose health to a blow, which protecting clothing can soften."""
    hurt(game, game.player, amount)


USES = "uses"
"""The token counting what is left of an item's `charges`."""


def spend_use(game: Game, card: CardInstance) -> None:
    """`spend a use`: one of the item's charges is gone; with the last, it is discarded."""
    game.step()
    charges = card.definition.properties.get("charges", 1)
    left = card.tokens.get(USES, charges if isinstance(charges, int) else 1) - 1
    card.tokens[USES] = left
    game.event("token", f"{card.title}: {left} {'use' if left == 1 else 'uses'} left", uses=left)
    if left <= 0:
        game.discard(card)


def move_away(game: Game, card: CardInstance, *, amount: int) -> None:
    """`move 3 spaces away`: exactly that many spaces, never into an unrevealed room."""
    game.step()
    move_exactly(game, game.player, amount)


def search_deck(game: Game, card: CardInstance, *, deck: str) -> None:
    """`search the item deck`: a card of the player's choice from the deck's draw pile (its
    discards left out), then the pile is shuffled without them; the card comes into play as a
    drawn one does (rulebook FAQ 344-346)."""
    game.step()
    pile = game.state.decks.get(deck)
    if not pile:
        game.event("search", f"the {deck} deck has nothing to search; its discards stay out")
        return
    titles = [c.title for c in reversed(pile)]  # the top of the deck first
    picked = game.decide("item", f"search the {deck} deck for", titles, default=0)
    found = game.from_deck(pile.pop(len(pile) - 1 - picked))
    game.shuffle(pile)
    game.event(
        "search",
        f"{found.title} is taken from the {deck} deck, which is shuffled without its discards",
        deck=deck,
        uid=found.uid,
    )
    handler = game.module.drawn.get(found.kind) or game.module.drawn["*"]
    handler(game, found)


def pills_on_this(game: Game, card: CardInstance) -> int:
    """`pills on this`."""
    return card.tokens.get("pill", 0)


def phenomenon_revealed(game: Game, card: CardInstance) -> bool:
    """`phenomenon revealed`."""
    return "phenomenon_revealed" in game.state.flags


def carry_within_limit(game: Game, card: CardInstance) -> bool:
    """Carry the item; past the carry limit the player drops items of their choice."""
    carry(game, card)
    if game.hears("kept") and card in game.player.items and not counts_toward_limit(card):
        game.event("kept", f"{card.title} {uncounted_reason(card)}", uid=card.uid)
    game.fire("item_drawn", list(game.player.owned))
    drop_to_limit(game, card)
    return True


def drop_to_limit(game: Game, card: CardInstance) -> None:
    """Past the carry limit, the player drops items of their choice on their space."""
    player = game.player
    while items_carried(game, card) > carry_limit(game, card):
        countable = [item for item in player.items if counts_toward_limit(item)]
        if not countable:
            break  # a limit below zero (a penalty while carried): nothing is left to drop
        drop = countable[
            game.decide("item", "over the carry limit: drop", [i.title for i in countable])
        ]
        player.items.remove(drop)
        game.state.floor.setdefault(player.location or "", []).append(drop)
        if game.hears("drop"):
            game.event("drop", f"drop {drop.definition.label}", uid=drop.uid)


CLUES_TO_REVEAL = 3
"""The clue whose discovery ends the prologue: the phenomenon is revealed from the chart."""


def discover_clue(game: Game, card: CardInstance) -> bool:
    """A clue ends the draw; before the phenomenon it is found, in order, then it resolves,
    and the third found reveals the phenomenon (if the clue's own text has not already)."""
    if "phenomenon_revealed" in game.state.flags:
        game.fire("drawn", [card])
        return False
    game.state.found.append(card)
    game.event(
        "clue",
        f"clue found: {card.title} (clue {len(game.state.found)})",
        clue=card.title,
        order=found_symbols(game),
    )
    game.fire("drawn", [card])
    revealed = "phenomenon_revealed" in game.state.flags
    if len(game.state.found) >= CLUES_TO_REVEAL and not revealed and not game.ended:
        reveal_phenomenon(game, card)
    return False


def reveal_room(game: Game, card: CardInstance) -> None:
    """A room revealed where the player stands: its reveal effects, the focus check of
    revealing a tile, then, if the player is still there, the end of the move. On a map the
    tile is laid on the slot the player stands on; without one, the room is a place itself."""
    here = game.player.location
    slots = game.rules.world.board.slots
    place = (
        here
        if here is not None and here in slots and here not in game.state.in_play
        else card.title
    )
    game.state.in_play[place] = card
    game.player.location = place
    game.event("reveal", f"reveal {card.definition.label}", room=card.title)
    game.fire("revealed", [card])
    focus_search(game, card)
    if game.player.location == place:
        game.fire("end_move", [card])


def reveal_room_drawn(game: Game, card: CardInstance) -> bool:
    """Drawing a room reveals it."""
    reveal_room(game, card)
    return True


def hallucinate(game: Game, card: CardInstance) -> bool:
    """A hallucination drawn is narrated and resolved, then discarded."""
    narrate(game, card)
    game.discard(card)
    return True


def deal(game: Game, card: CardInstance) -> bool:
    """A quirk (face down) or a neurosis strip is dealt to the player, who owns it."""
    game.player.owned.append(card)
    game.event("deal", f"{game.player.name} is dealt {card.definition.label}", uid=card.uid)
    return True


def deal_played(game: Game, card: CardInstance) -> None:
    """Playing a neurosis: the player owns it, then ends the turn, when strips are checked."""
    deal(game, card)
    game.end_turn()


def play_quirk(game: Game, card: CardInstance) -> None:
    """Playing a quirk: deal it, then end the turn so its end-of-turn condition is tested."""
    deal(game, card)
    game.end_turn()


def play_phenomenon(game: Game, card: CardInstance) -> None:
    """Playing a phenomenon card: it is revealed directly, whatever the clues."""
    game.state.flags.add("phenomenon_revealed")
    game.state.in_play["phenomenon"] = card
    game.event("phenomenon", f"phenomenon revealed: “{card.title}”", phenomenon=card.title)
    listeners = [c for p in game.state.players for c in [*p.owned, *p.items]]
    game.fire("phenomenon_revealed", [*listeners, card])
    set_up(game, game.player)  # played directly: the act begins, this player narrating


def play_clue(game: Game, card: CardInstance) -> None:
    """Playing a clue is drawing it."""
    game.event("play", f"play {card.definition.label}", uid=card.uid)
    discover_clue(game, card)


def drop_everything(game: Game, player: Player) -> None:
    """A dead character's items are left on the space where they died."""
    if not player.items:
        return
    dropped, player.items = player.items, []
    game.state.floor.setdefault(player.location or "", []).extend(dropped)
    titles = ", ".join(card.title for card in dropped)
    game.event("drop", f"{player.name}'s items are left here: {titles}", player=player.name)


def end_move(game: Game, player: Player) -> None:
    """Ending a move runs the room there, if one is revealed, then the player's own cards."""
    here = game.state.in_play.get(player.location or "")
    if here is not None:
        game.fire("end_move", [here])
    game.fire("moved", list(player.owned))


def turn_ends(game: Game, player: Player) -> None:
    """The end of a turn runs the player's own cards, what they carry, and the room there."""
    here = game.state.in_play.get(player.location or "")
    try:  # noqa: SIM105 - a card of this turn's end may end the game (a task done)
        game.fire("turn_ends", [*player.owned, *player.items, *([here] if here else [])])
    except RunEnded:  # not suppress(): on a hot path its context manager cost a call
        pass
    act_turn_ended(game, player)


COMA_WARD = BASE.extend(
    "coma-ward",
    words={"found": "clues found"},
    verbs={
        "rummage": rummage,
        "reveal_phenomenon": reveal_phenomenon,
        "place_pill": place_pill,
        "bonus_next": bonus_next,
        "take_damage": take_damage,
        "spend_use": spend_use,
        "move_away": move_away,
        "search_deck": search_deck,
        **ACT_VERBS,
    },
    modifiers={"carry_bonus": carry_bonus},
    values={
        "clues_found": ValueDef(clues_found, set_clues_found),
        "items_carried": ValueDef(items_carried),
        "carry_limit": ValueDef(carry_limit),
        "pills_on_this": ValueDef(pills_on_this, set_pills_on_this),
        "bonus_waiting": ValueDef(bonus_waiting),
        **ACT_VALUES,
    },
    conditions={"phenomenon_revealed": phenomenon_revealed, **ACT_CONDITIONS},
    checks={"coma-ward-pool": POOL, **COMBAT_PROCEDURES},
    drawn={
        "item": carry_within_limit,
        "clue": discover_clue,
        "room": reveal_room_drawn,
        "hallucination": hallucinate,
        "quirk": deal,
        "neurosis": deal,
        "record": dealt,
        "role": dealt,
        "special": carry_within_limit,
    },
    played={
        "room": reveal_room,
        "quirk": play_quirk,
        "phenomenon": play_phenomenon,
        "clue": play_clue,
        "neurosis": deal_played,
    },
    owned={"quirk": True, "neurosis": True, "role": True, "record": True},
    hooks={"death": drop_everything, "move_ended": end_move, "turn_ended": turn_ends},
    refusals={"move": refused_move},
    announces=frozenset(
        {
            "revealed",
            "end_move",
            "moved",
            "turn_ends",
            "phenomenon_revealed",
            "item_drawn",
            "focus_passed",
            "focus_failed",
            "use_as_attack",
            *ACT_TRIGGERS,
        }
    ),
)
