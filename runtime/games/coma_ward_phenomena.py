"""Coma Ward's phenomenon act: the setup, the rules of a round and a turn, and the goals of
each phenomenon card, played as the card's own blocks (`when set up`, `each round`, `when a
turn ends`, `when an attack is won`, `goals`, `round goals`), with the enemies of
`coma_ward_enemies`.

Readings taken here (the rulebook leaves them to each phenomenon box):
- After the prologue the introduction is read (an event), then the setup runs with the
  narrator as "you"; the first turn of the act is the next seat's, and every round after goes
  round the table in the same order. Turns are the prologue's; a dead character stays dead.
- `goals` are checked after every turn and as every round ends; `round goals` only as a round
  ends ("end a round on the roof"). A round ends with its rules (`each round`), then its goals.
  A run of one turn (a card test, `pillbox play`) has no rounds: its turn ends a round too.
- Deaths that count for a goal ("if a character dies") are those of the act; those of the
  prologue do not. When every character is dead the game is lost, whatever the mode.
- Cooperative: "everyone wins" names every seat, the dead too. Secret: the players dealt a role
  card win together. Competitive: one player wins. A game lost has no winners.
- Roles are dealt face down and change nothing in how a turn is played: a role's goal is its
  phenomenon's or its own card's (`when your turn ends`), checked as any other. A card's own
  goal (a Record card's task, six pills on a mat, the Discharge card at the nurses' station)
  is checked at the end of its holder's turn, so "the first" to reach it is the first whose
  turn ends with it done.
- "Wins an attack" is winning any fight (an attack, a steal, medicine) by more successes, the
  attacker or the defender; a tie is won by nobody. A player's mat is their role card: the
  pills on it.
- A deck "runs out" when its draw pile is empty as the goals are checked.
- An act still going after `ACT_ROUND_LIMIT` rounds is stopped (an outcome with no result).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from runtime.cards import CardInstance
from runtime.game import Game, RunEnded
from runtime.games.coma_ward_enemies import ENEMY_VERBS, actor_at, everyone_on
from runtime.identity_cache import IdentityCache
from runtime.module import ValueDef
from runtime.rounds import take_turn as round_turn
from runtime.state import Player, seat_index
from runtime.world import SEATED, Board

PHENOMENON = "phenomenon"
"""The slot of the phenomenon card among the cards in play."""

ACT = "phenomenon_act"
"""The flag of a game whose phenomenon has been set up: the act's rules are in force."""

NARRATOR = "narrator:"
BEFORE = "died before the act:"
"""Flags naming the phenomenon narrator and the characters dead before the act began."""

ROUND_TRACK = "rounds"
"""The game track counting the rounds of the act played (its goals read it)."""

SETUP, ROUND_ENDS, ANY_TURN_ENDS, ATTACK_WON = (
    "phenomenon_setup",
    "round_ends",
    "any_turn_ends",
    "attack_won",
)
GOALS, ROUND_GOALS = "goals_checked", "round_goals_checked"
TRIGGERS = frozenset({SETUP, ROUND_ENDS, ANY_TURN_ENDS, ATTACK_WON, GOALS, ROUND_GOALS})
"""The triggers the act fires on the phenomenon card."""

ROLE = "role"
"""The kind of the cards dealt face down; the pills on one are its holder's mat."""

PILL = "pill"
ACT_ROUND_LIMIT = 40
"""An act still going after this many rounds is stopped."""


# -- the state of the act ---------------------------------------------------------------
def phenomenon(game: Game) -> CardInstance | None:
    """The phenomenon in play, if one is."""
    return game.state.in_play.get(PHENOMENON)


def narrator_of(game: Game) -> Player | None:
    """The phenomenon narrator, once the act is set up."""
    for player in game.state.players:
        if f"{NARRATOR}{player.name}" in game.state.flags:
            return player
    return None


@contextmanager
def acting_as(game: Game, player: Player) -> Iterator[None]:
    """Make `player` the "you" of the effects resolved inside, then give the turn back."""
    turn = game.state.current
    game.state.current = seat_index(game.state.players, player)
    try:
        yield
    finally:
        game.state.current = turn


def finish(game: Game, result: str, winners: list[Player], why: str) -> None:
    """The game ends with these winners (none when it is lost)."""
    if game.ended:
        return
    game.state.winners = [player.name for player in winners]
    game.end_game(result, why)


def act_goals(game: Game) -> set[str]:
    """Where the players head by default in the act: the spaces of the place the phenomenon
    `heads for`, or where the actors of the kind it heads for stand (none: no such aim)."""
    if ACT not in game.state.flags:  # asked before every move: the cheaper test first
        return set()
    card = phenomenon(game)
    if card is None:
        return set()
    properties = card.definition.properties
    place, kind = properties.get("heads_for"), properties.get("heads_for_actor")
    aims = set(_spaces_in(game.rules.world.board, place)) if isinstance(place, str) else set()
    if isinstance(kind, str):
        aims |= {actor.location for actor in game.actors_of(kind) if actor.location}
    return aims


def _spaces_in(board: Board, place: str) -> tuple[str, ...]:
    """The spaces of a place (or the place itself), in board order: asked before every move
    of the act, and worked out once, as a board never changes."""
    known = _spaces_of_board(board)
    spaces = known.get(place)
    if spaces is None:
        spaces = known[place] = tuple(s for s in board.places if board.is_in(s, place))
    return spaces


_spaces_of_board: IdentityCache[Board, dict[str, tuple[str, ...]]] = IdentityCache(lambda board: {})


# -- the act's moments ------------------------------------------------------------------
def set_up(game: Game, narrator: Player) -> None:
    """The introduction read, then the phenomenon's setup with the narrator as "you"."""
    card = phenomenon(game)
    if card is None or ACT in game.state.flags:
        return
    game.state.flags |= {ACT, f"{NARRATOR}{narrator.name}"}
    game.state.flags |= {f"{BEFORE}{p.name}" for p in game.state.players if p.dead}
    properties = card.definition.properties
    game.event(
        "introduction",
        f"“{properties.get('introduction', card.title)}”",
        phenomenon=card.title,
        mode=str(properties.get("mode", "")),
        narrator=narrator.name,
    )
    with acting_as(game, narrator), suppress(RunEnded):
        game.fire(SETUP, [card])


def act_turn_ended(game: Game, player: Player) -> None:
    """The end of a turn in the act: the phenomenon's turn rules, then its goals; in a run of
    one turn, the end of the round too."""
    card = phenomenon(game)
    if card is None or ACT not in game.state.flags or game.ended:
        return
    with suppress(RunEnded):
        if not player.dead:
            game.fire(ANY_TURN_ENDS, [card])
        check_goals(game, card)
        if game.state.round == 0:
            round_ends(game)


def check_goals(game: Game, card: CardInstance, trigger: str = GOALS) -> None:
    """The phenomenon's goals; a table with no one alive has lost."""
    if not game.ended and all(p.dead for p in game.state.players):
        finish(game, "lost", [], "every character is dead")
    if not game.ended:
        game.fire(trigger, [card])


def round_ends(game: Game) -> None:
    """A round of the act ends: its count, its rules, then its goals."""
    card = phenomenon(game)
    if card is None or game.ended:
        return
    with suppress(RunEnded):
        if ROUND_TRACK in game.state.tracks:
            game.advance(ROUND_TRACK, 1)
        game.fire(ROUND_ENDS, [card])
        check_goals(game, card)
        check_goals(game, card, ROUND_GOALS)


def fought(game: Game, winner: Player | None, loser: Player | None) -> None:
    """A fight of the act was won (by more successes): the winner is "you", the loser the
    target, while the phenomenon's `when an attack is won` runs."""
    card = phenomenon(game)
    if card is None or ACT not in game.state.flags or winner is None or loser is None:
        return
    with acting_as(game, winner), suppress(RunEnded):
        game.target(loser)
        game.fire(ATTACK_WON, [card])


def play_act(game: Game, round_limit: int = ACT_ROUND_LIMIT) -> None:
    """After the prologue: the phenomenon set up, then rounds of turns from the seat after
    the narrator until a goal ends the game or the round limit; then the epilogue."""
    card = phenomenon(game)
    if card is None or game.ended:
        return
    narrator = game.player
    set_up(game, narrator)
    phase = game.rules.world.turns.phases[0]
    seats = game.state.players
    first = (seat_index(seats, narrator) + 1) % len(seats)
    order = [*seats[first:], *seats[:first]]
    played = 0
    while not game.ended and played < round_limit:
        played += 1
        game.state.round += 1
        game.event("round", f"round {game.state.round} begins", round=game.state.round)
        for actor in order:
            if actor.dead or actor.kind != (phase.actors or SEATED):
                continue
            with suppress(RunEnded):
                round_turn(game, actor, phase)
            if game.ended:
                break
        round_ends(game)
    if not game.ended:
        game.event("act", f"the act is stopped after {played} rounds", rounds=played)
    winners = ", ".join(game.state.winners) or "nobody"
    game.event(
        "epilogue",
        f"epilogue of “{card.title}”: {game.state.over or 'no end'}, won by {winners}",
        result=game.state.over,
        winners=list(game.state.winners),
    )


# -- verbs: setups ----------------------------------------------------------------------
def _deal(game: Game, player: Player, card: CardInstance) -> None:
    """A card dealt face down: its holder owns it, and its `when dealt` runs for them."""
    player.owned.append(card)
    game.event("deal", f"{player.name} is dealt a card face down", uid=card.uid, role=card.title)
    with acting_as(game, player):
        game.fire("drawn", [card])


def dealt(game: Game, card: CardInstance) -> bool:
    """A role or Record card drawn or played: dealt face down to the player."""
    _deal(game, game.player, card)
    return True


def _new(game: Game, title: str) -> CardInstance | None:
    definition = game.find(title)
    if definition is None:
        game.event("deal", f"the pack has no card {title!r}")
        return None
    return game.new_instance(definition)


def _deal_roles(game: Game, one: str, rest: str, seats: list[Player]) -> None:
    if not seats:
        return
    cards = [c for c in [_new(game, one), *(_new(game, rest) for _ in seats[1:])] if c]
    game.shuffle(cards)
    for player, card in zip(seats, cards, strict=False):
        _deal(game, player, card)


def deal_roles_others(game: Game, card: CardInstance, *, one: str, rest: str) -> None:
    """`deal "Understudy" and "Patient" to the others`: everyone but the narrator, alive."""
    game.step()
    narrator = narrator_of(game) or game.player
    seats = [p for p in game.state.players if p is not narrator and not p.dead]
    _deal_roles(game, one, rest, seats)


def deal_roles_all(game: Game, card: CardInstance, *, one: str, rest: str) -> None:
    """`deal "Investigator" and "Subject" to everyone`: one of the first, the rest of the other."""
    game.step()
    _deal_roles(game, one, rest, [p for p in game.state.players if not p.dead])


def deal_role(game: Game, card: CardInstance, *, role: str) -> None:
    """`deal "A Name on the List" to everyone`: a copy each."""
    game.step()
    for player in [p for p in game.state.players if not p.dead]:
        dealt = _new(game, role)
        if dealt is not None:
            _deal(game, player, dealt)


def deal_deck(game: Game, card: CardInstance, *, deck: str) -> None:
    """`deal each player a record`: each living player draws the top card of the deck."""
    game.step()
    for player in [p for p in game.state.players if not p.dead]:
        with acting_as(game, player):
            game.draw(deck)


def carry_special(game: Game, card: CardInstance, *, special: str) -> None:
    """`carry "Discharge"`: the player takes a new copy of the card."""
    game.step()
    taken = _new(game, special)
    if taken is not None:
        game.player.items.append(taken)
        game.event("carry", f"{game.player.name} takes {taken.title}", uid=taken.uid)


def shuffle_bottom(game: Game, card: CardInstance, *, special: str, deck: str) -> None:
    """`shuffle "Last Dose" into the bottom half of the item deck` (the top card is last)."""
    game.step()
    added = _new(game, special)
    pile = game.state.decks.get(deck)
    if added is None or pile is None:
        return
    half = len(pile) // 2
    bottom = [*pile[:half], added]
    game.shuffle(bottom)
    pile[:half] = bottom
    game.event("shuffle", f"{added.title} is shuffled into the bottom half of the {deck} deck")


# -- verbs and conditions: turns --------------------------------------------------------
def _room_here(game: Game) -> CardInstance | None:
    here = game.player.location or ""
    room = game.state.in_play.get(here)
    return room if here in game.rules.world.board.slots else None


def room_without_pill(game: Game, card: CardInstance) -> bool:
    """`in a room without a pill`."""
    room = _room_here(game)
    return room is not None and room.tokens.get(PILL, 0) == 0


def place_pill_here(game: Game, card: CardInstance) -> None:
    """`place pill here`: on the room the player is in."""
    room = _room_here(game)
    if room is None:
        game.event("token", "not in a room: the pill stays in hand")
        return
    game.add_tokens(room, PILL, 1)


def rooms_with_pills(game: Game, card: CardInstance) -> int:
    """`rooms with pills`: the room tiles with a pill on them."""
    slots = game.rules.world.board.slots
    return sum(
        1
        for place, room in game.state.in_play.items()
        if place in slots and room.tokens.get(PILL, 0) > 0
    )


def _item_type(item: CardInstance) -> object:
    return item.definition.properties.get("type")


def carrying_type(game: Game, card: CardInstance, *, item_type: str) -> bool:
    """`carrying a food`."""
    return any(_item_type(item) == item_type for item in game.player.items)


def discard_type(game: Game, card: CardInstance, *, item_type: str) -> None:
    """`discard a food`: the first carried item of that type."""
    item = next((i for i in game.player.items if _item_type(i) == item_type), None)
    if item is None:
        game.event("discard", f"no {item_type} item to discard")
        return
    game.discard(item)


def _mat(player: Player) -> CardInstance | None:
    return next((card for card in player.owned if card.kind == ROLE and PILL in card.tokens), None)


def take_pill(game: Game, card: CardInstance) -> None:
    """`take a pill from the loser`: from the target's mat to the player's."""
    loser = game.state.target
    theirs, mine = (_mat(loser) if loser else None), _mat(game.player)
    if theirs is None or mine is None or theirs.tokens.get(PILL, 0) <= 0:
        game.event("token", "no pill to take")
        return
    game.add_tokens(theirs, PILL, -1)
    game.add_tokens(mine, PILL, 1)


# -- goals ------------------------------------------------------------------------------
def _holders(game: Game, role: str) -> list[Player]:
    return [p for p in game.state.players if any(c.title == role for c in p.owned)]


def everyone_ends(game: Game, card: CardInstance, *, result: str) -> None:
    """`everyone has won` (every seat wins) or `everyone has lost` (no one does)."""
    winners = list(game.state.players) if result == "won" else []
    finish(game, result, winners, f"{card.title}: everyone has {result}")


def you_win(game: Game, card: CardInstance) -> None:
    """`you win`: the player alone."""
    finish(game, "won", [game.player], f"{card.title}: {game.player.name} wins")


def side_wins(game: Game, card: CardInstance, *, role: str) -> None:
    """`holders of "Understudy" win`."""
    finish(game, "won", _holders(game, role), f"{card.title}: {role} wins")


def others_win(game: Game, card: CardInstance, *, role: str) -> None:
    """`everyone but "Understudy" wins`."""
    holders = _holders(game, role)
    others = [p for p in game.state.players if p not in holders]
    finish(game, "won", others, f"{card.title}: everyone but {role} wins")


def last_alive_wins(game: Game, card: CardInstance) -> None:
    """`the last one alive wins`."""
    alive = [p for p in game.state.players if not p.dead]
    finish(game, "won" if alive else "lost", alive[:1], f"{card.title}: the last one alive")


def everyone_at(game: Game, card: CardInstance, *, place: str) -> bool:
    """`everyone living is at roof`."""
    alive = [p for p in game.state.players if not p.dead]
    return bool(alive) and all(game.at_place(p.location, place) for p in alive)


def narrator_dead(game: Game, card: CardInstance) -> bool:
    """`the narrator is dead`."""
    narrator = narrator_of(game)
    return narrator is not None and narrator.dead


def holder_dead(game: Game, card: CardInstance, *, role: str) -> bool:
    """`a holder of "Subject" is dead`."""
    return any(p.dead for p in _holders(game, role))


def deck_empty(game: Game, card: CardInstance, *, deck: str) -> bool:
    """`the item deck is empty`: its draw pile has run out."""
    return deck in game.state.decks and not game.state.decks[deck]


def phenomenon_is(game: Game, card: CardInstance, *, title: str) -> bool:
    """`the phenomenon is "High Water"`: its act is under way."""
    found = phenomenon(game)
    return found is not None and found.title == title and ACT in game.state.flags


def game_over(game: Game, card: CardInstance, *, result: str) -> bool:
    """`the game is won`."""
    return game.state.over == result


def you_won(game: Game, card: CardInstance) -> bool:
    """`you are a winner`."""
    return game.player.name in game.state.winners


def act_deaths(game: Game, card: CardInstance) -> int:
    """`deaths this act`."""
    flags = game.state.flags
    return sum(1 for p in game.state.players if p.dead and f"{BEFORE}{p.name}" not in flags)


def living(game: Game, card: CardInstance) -> int:
    """`living characters`."""
    return sum(1 for p in game.state.players if not p.dead)


VERBS: dict[str, Callable[..., None]] = {
    **ENEMY_VERBS,
    "place_pill_here": place_pill_here,
    "deal_roles_others": deal_roles_others,
    "deal_roles_all": deal_roles_all,
    "deal_role": deal_role,
    "deal_deck": deal_deck,
    "carry_special": carry_special,
    "shuffle_bottom": shuffle_bottom,
    "discard_type": discard_type,
    "take_pill": take_pill,
    "everyone_ends": everyone_ends,
    "you_win": you_win,
    "side_wins": side_wins,
    "others_win": others_win,
    "last_alive_wins": last_alive_wins,
}
"""The act's verbs, for the Coma Ward module."""

CONDITIONS: dict[str, Callable[..., bool]] = {
    "everyone_at": everyone_at,
    "everyone_on": everyone_on,
    "actor_at": actor_at,
    "narrator_dead": narrator_dead,
    "holder_dead": holder_dead,
    "room_without_pill": room_without_pill,
    "carrying_type": carrying_type,
    "deck_empty": deck_empty,
    "game_over": game_over,
    "you_won": you_won,
    "phenomenon_is": phenomenon_is,
}
"""The act's conditions."""

VALUES = {
    "rooms_with_pills": ValueDef(rooms_with_pills),
    "act_deaths": ValueDef(act_deaths),
    "living": ValueDef(living),
}
"""The act's values."""
