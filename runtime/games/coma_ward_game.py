"""Coma Ward as a whole game: the procedures its ruleset's `game:` names, for what its data
cannot say: the rulebook's setup, the players' actions (the turn around them, free actions
then one main action, is the data's: `runtime.datagame`), the FAQ's fallback, the prologue
played to the phenomenon, the phenomenon act, and the figures it notes.

Every choice goes through the game's decision maker with a default (`runtime.decisions.Defaults`
plays a game with no answers at all). Readings taken here, beside those of the map
(`coma_ward_map`) and of combat (`coma_ward_combat`):
- The first seat takes the first turn (the rulebook's "most recently in hospital" is no rule a
  program can apply); the narrator of a hallucination is the next seat, the player to the left.
- A free action is taken at most once a turn, in the order the player picks; moving onto a room
  slot with no tile ends the free actions, and revealing it is the main action.
- Trading is one exchange with one willing player on the space: at most one item each way,
  never past the receiver's carry limit; a player traded with cannot be attacked that turn.
- The FAQ's fallback: a player on a room tile with no other main action rummages it again,
  though it has a rummage token; anywhere else the turn has no main action, and that is logged.
- End-of-turn effects and the neurosis check and flip are the cards' own `when your turn ends`
  blocks, run when the turn ends.
- After the third clue, quirks are revealed (their `when phenomenon revealed` blocks reward
  them); a quirk with no pill on it goes back to the box. An order of clues not on the chart
  gets a phenomenon picked at random, as the guest-writer note suggests, and the game is
  flagged `phenomenon_off_chart` so it can be counted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from runtime.cards import CardDef, CardInstance
from runtime.decisions import reads_defaults
from runtime.dice import shuffle
from runtime.game import Game
from runtime.games.coma_ward_combat import attack
from runtime.games.coma_ward_map import board, is_hidden, walk
from runtime.games.coma_ward_phenomena import ACT, act_goals, fought, phenomenon, play_act
from runtime.games.coma_ward_rules import (
    CARRY_LIMIT,
    counts_toward_limit,
    drop_to_limit,
    focus_search,
    hallucinate,
    rummage,
    searched,
)
from runtime.rounds import rounds_until
from runtime.state import Player, seat_index

PLAYERS = (2, 6)
"""The fewest and most players the rulebook allows."""

DONE = "done"
TRADED = "traded with:"
"""The turn's mark of a player traded with (`GameState.marks`)."""
OFF_CHART = "phenomenon_off_chart"
QUIRK_KEPT = "quirk revealed:"
"""The flag of a quirk revealed at the end of the prologue, then its title and how it did."""
REVEALED = "phenomenon_revealed"
ROUND_LIMIT = 200
"""A prologue still going after this many rounds is stopped (a pack with too few clues)."""


def narrator(game: Game, player: Player) -> Player:
    """The living player to the left of `player`, who reads their hallucinations."""
    seats = game.state.players
    seat = seat_index(seats, player)
    for step in range(1, len(seats) + 1):
        other = seats[(seat + step) % len(seats)]
        if not other.dead:
            return other
    return player


def setup(game: Game) -> None:
    """The rulebook's prologue setup on a new game: neuroses and quirks dealt; the decks,
    stats and starting space are the ruleset's (shuffled, clues into the top items)."""
    deal_strips_and_quirks(game, game.state.players[0])
    game.event("setup", f"{len(game.state.players)} players at {game.rules.start_place}")


def deal_strips_and_quirks(game: Game, player: Player) -> None:
    """The whole game's `setup: procedure`: each seat a neurosis strip and a quirk."""
    low, high = PLAYERS
    if not low <= len(game.state.players) <= high:
        raise ValueError(f"Coma Ward is played by {low} to {high} players")
    strips = _shuffled(game, [c for c in game.cards if c.kind == "neurosis"])
    for seat, seated in enumerate(game.state.players):
        game.state.current = seat
        if strips:
            strip = game.new_instance(strips[seat % len(strips)])
            seated.owned.append(strip)  # its three-ability side up: not flipped
            game.event("deal", f"{seated.name} takes neurosis {strip.title}", uid=strip.uid)
        game.draw("quirk")
    game.state.current = 0


def _shuffled(game: Game, cards: Sequence[CardDef]) -> list[CardDef]:
    order = list(cards)
    shuffle(order, random.Random(f"neuroses:{game.seed}"))
    return order


def move(game: Game, player: Player) -> None:
    """The free action `move`: up to dexterity moves, each step the player's decision; the
    data's `then:` reveals the slot it ended on, if it has no room tile yet."""
    # Where to head is worked out only for a maker that reads the rules' answers (a random
    # one does not).
    goals = _goals(game, player) if reads_defaults(game.decisions) else set()
    walk(game, player, game.stat("dexterity", player), goals)


def on_hidden_slot(game: Game, player: Player) -> bool:
    """Whether the player stands on a slot whose room tile is not laid: revealing it is the
    turn's main action."""
    here = player.location
    return here is not None and is_hidden(game, here)


def reveal(game: Game, player: Player) -> None:
    """The main action after a move onto a slot with no tile: its room drawn and laid."""
    game.draw(board(game).slots[player.location or ""])


def can_trade(game: Game, player: Player) -> bool:
    """Whether another living player is on the space to trade with."""
    return bool(_others_here(game, player))


def can_use(game: Game, player: Player) -> bool:
    """Whether the player carries an item that can be used."""
    for item in player.items:  # noqa: SIM110 - asked before every free action: no generator
        if game.usable(item):
            return True
    return False


def can_drop(game: Game, player: Player) -> bool:
    """Whether the player carries anything to drop."""
    return bool(player.items)


def _goals(game: Game, player: Player) -> set[str]:
    """Where the default player heads: slots to reveal, rooms to search, items on the floor
    they have room for; with none of those left, any room (to rummage it again). In the
    phenomenon act, where its phenomenon heads them, if it says."""
    aims = act_goals(game)
    if aims:
        return aims
    state = game.state
    laid, flags, decks = state.in_play, state.flags, state.decks
    rooms: set[str] = set()
    wanted: set[str] = set()  # the slots to reveal and the rooms to search
    for slot, deck in board(game).slots.items():
        if slot in laid:
            rooms.add(slot)
            if searched(slot) not in flags:
                wanted.add(slot)
        elif decks.get(deck):
            wanted.add(slot)
    dropped = {place for place, items in state.floor.items() if items and place not in wanted}
    if dropped and _fits(game, player):
        wanted |= dropped
    return wanted or rooms


def anywhere_to_go(game: Game, player: Player) -> bool:
    """Whether `_goals` has any place, without working them out: any room laid (to rummage
    again at worst), a slot to reveal, or an item on the floor there is room for."""
    if act_goals(game):
        return True
    laid, decks = game.state.in_play, game.state.decks
    for slot, deck in board(game).slots.items():
        if slot in laid or decks.get(deck):
            return True  # a room laid, or a slot to lay one on: the first slot mostly says
    return any(game.state.floor.values()) and _fits(game, player)


def _others_here(game: Game, player: Player) -> list[Player]:
    here = player.location
    return [
        other
        for other in game.state.players
        if other.location == here and other is not player and not other.dead
    ]


def trade(game: Game, player: Player) -> set[str]:
    """One exchange with a willing player here; the names of those traded with."""
    others = _others_here(game, player)
    picked = game.decide("trade", "trade with", [DONE, *(o.name for o in others)], default=0)
    if picked == 0:
        return set()
    partner = others[picked - 1]
    give = _pick_item(game, player, f"give {partner.name}", _fits(game, partner))
    take = _pick_item(game, partner, f"ask {partner.name} for", _fits(game, player))
    if give is None and take is None:
        return set()
    asked = f"{partner.name}: trade with {player.name}"
    if game.decide("yes-no", asked, ("yes", "no"), default=0, asked=partner) != 0:
        game.event("trade", f"{partner.name} will not trade")
        return set()
    for item, source, target in ((give, player, partner), (take, partner, player)):
        if item is not None:
            source.items.remove(item)
            target.items.append(item)
            game.event("trade", f"{source.name} gives {target.name} {item.title}", uid=item.uid)
    return {partner.name}


def trade_action(game: Game, player: Player) -> None:
    """The free action `trade`: one exchange; the player traded with is marked for the rest of
    the turn, as no target of an attack or a theft."""
    for name in trade(game, player):
        game.state.marks.add(f"{TRADED}{name}")


def room_to_carry(game: Game, player: Player) -> bool:
    """Whether the player can carry one more item (the default picks up only then)."""
    return _fits(game, player)


def _fits(game: Game, player: Player) -> bool:
    limit = game.stat("strength", player) + game.stat_bonus(CARRY_LIMIT, player)
    return sum(1 for item in player.items if counts_toward_limit(item)) < limit


def _pick_item(game: Game, owner: Player, prompt: str, room: bool) -> CardInstance | None:
    items = [i for i in owner.items if room or not counts_toward_limit(i)]
    picked = game.decide("item", prompt, [DONE, *(i.title for i in items)], default=0)
    return None if picked == 0 else items[picked - 1]


def use_items(game: Game, player: Player) -> None:
    """Use any number of carried items, one after another, until the player is done."""
    while not game.ended and not player.turn_over:
        usable = [item for item in player.items if game.usable(item)]
        if not usable:
            return
        picked = game.decide("item", "use", [DONE, *(i.title for i in usable)], default=0)
        if picked == 0:
            return
        game.use(usable[picked - 1])


def drop_items(game: Game, player: Player) -> None:
    """Drop any number of carried items on this space."""
    while player.items:
        picked = game.decide("item", "drop", [DONE, *(i.title for i in player.items)], default=0)
        if picked == 0:
            return
        item = player.items.pop(picked - 1)
        game.state.floor.setdefault(player.location or "", []).append(item)
        if game.hears("drop"):
            game.event("drop", f"drop {item.definition.label}", uid=item.uid)


def _room_here(game: Game, player: Player) -> CardInstance | None:
    here = player.location or ""
    return game.state.in_play.get(here) if here in board(game).slots else None


def can_rummage(game: Game, player: Player) -> bool:
    """Whether the player is in a room not yet searched."""
    return _room_here(game, player) is not None and searched(player.location or "") not in (
        game.state.flags
    )


def rummage_here(game: Game, player: Player) -> None:
    """The main action `rummage`: search the room the player is in."""
    room = _room_here(game, player)
    assert room is not None, "rummage is offered in a room only"
    rummage(game, room)


def can_pick_up(game: Game, player: Player) -> bool:
    """Whether there is anything on the floor here."""
    return bool(game.state.floor.get(player.location or ""))


def opponents(game: Game, player: Player) -> list[Player]:
    """Whom the player can attack or steal from: the living players here not traded with
    this turn."""
    others = _others_here(game, player)
    marks = game.state.marks
    if not marks:  # most turns trade with no one
        return others
    return [o for o in others if f"{TRADED}{o.name}" not in marks]


def attack_target(game: Game, player: Player) -> None:
    """The main action `attack` on its target."""
    _fight(game, player, "attack")


def steal_from_target(game: Game, player: Player) -> None:
    """The main action `steal from` its target."""
    _fight(game, player, "steal")


def _fight(game: Game, player: Player, how: str) -> None:
    defender = game.state.aim
    assert defender is not None, "an attack is offered on its target"
    fight = attack(game, player, defender, how)
    if not fight.tie:
        won = fight.winner == "attacker"
        fought(game, player if won else defender, defender if won else player)


def no_main_action(game: Game, player: Player) -> None:
    """The FAQ's fallback: on a room tile with no other main action, rummage it again though it
    has a rummage token; anywhere else the turn has no main action, and that is logged."""
    room = _room_here(game, player)
    if room is not None:
        if game.hears("main"):
            game.event("main", "no main action is possible: rummage the searched room again")
        focus_search(game, room)
    elif game.hears("main"):
        game.event("main", f"no main action is possible at {player.location or ''}")


def pick_up(game: Game, player: Player) -> None:
    """Pick up every item on the space, then drop down to the carry limit."""
    here = player.location or ""
    items, game.state.floor[here] = game.state.floor.get(here, []), []
    for item in items:
        player.items.append(item)
        if game.hears("pick up"):
            game.event("pick up", f"pick up {item.definition.label}", uid=item.uid)
    if items:
        drop_to_limit(game, items[0])


def end_prologue(game: Game) -> None:
    """After the third clue: quirks revealed and the unrewarded returned, and an order the
    chart does not have given a phenomenon at random (and flagged). The player who found the
    clue narrates the phenomenon."""
    game.event(
        "narrator", f"{game.player.name} is the phenomenon narrator", narrator=game.player.name
    )
    for player in game.state.players:
        for quirk in [card for card in player.owned if card.kind == "quirk"]:
            pills = quirk.tokens.get("pill", 0)
            game.event(
                "quirk",
                f"{player.name} reveals {quirk.title}: {pills} pills",
                title=quirk.title,
                pills=pills,
            )
            # Kept in the state, not only the log: a game played with the log off counts it too.
            game.state.flags.add(f"{QUIRK_KEPT}{quirk.title}:{'rewarded' if pills else 'returned'}")
            if pills == 0:
                game.take(quirk)
    if "phenomenon" in game.state.in_play:
        return
    phenomena = [c for c in game.cards if c.kind == "phenomenon"]
    if not phenomena:
        return
    picked = random.Random(f"phenomenon:{game.seed}").choice(phenomena)
    card = game.new_instance(picked)
    game.state.flags.add(OFF_CHART)
    game.state.in_play["phenomenon"] = card
    game.event("phenomenon", f"not on the chart: “{card.title}” is picked at random")
    game.fire(REVEALED, [card])


def play_prologue(game: Game, round_limit: int = ROUND_LIMIT) -> None:
    """Set the game up and play rounds of turns until the third clue ends the prologue: the
    turn that finds it is the last, the rest of its round is not played. (A whole game plays
    its ruleset's `parts: prologue:`, these same rounds.)"""
    setup(game)
    rounds_until(game, prologue_over, game.state.players[0], round_limit)
    reveal_the_phenomenon(game, game.state.players[0])


def prologue_over(game: Game, player: Player) -> bool:
    """The prologue's `until:`: the third clue found, or everyone dead (or the game ended)."""
    return _prologue_over(game)


def reveal_the_phenomenon(game: Game, player: Player) -> None:
    """The prologue's `then:`: once the third clue was found, the quirks revealed and the
    phenomenon picked (`end_prologue`)."""
    if REVEALED in game.state.flags:
        end_prologue(game)


def _prologue_over(game: Game) -> bool:
    if REVEALED in game.state.flags or game.ended:
        return True
    # Asked after every turn: mypyc makes this generator a loop, not map(attrgetter()).
    return all(player.dead for player in game.state.players)


def narrated(game: Game, card: CardInstance) -> bool:
    """A hallucination, read by the player to the left of the one it happens to."""
    reader = narrator(game, game.player)
    if game.hears("narrator"):
        game.event("narrator", f"{reader.name} narrates", narrator=reader.name)
    return hallucinate(game, card)


WHOLE_TABLES: dict[str, object] = {"drawn": {"hallucination": narrated}}
"""What a game at the table adds to the cards' module: a narrator for each hallucination drawn
(the players' turns are the ruleset's `game: turn:` and `actions:`)."""


def phenomenon_act(game: Game, player: Player) -> None:
    """The whole game's second part: the phenomenon act the prologue revealed, to the end."""
    play_act(game)


def act_revealed(game: Game, player: Player) -> bool:
    """Whether the prologue revealed a phenomenon: its act can be played."""
    return REVEALED in game.state.flags


def note_the_game(game: Game, player: Player) -> None:
    """The whole game's `notes:`: the phenomenon the prologue picked (whether the chart had
    its order) and its mode, the quirks revealed, the neuroses flipped, and where the game was
    cut short."""
    card = phenomenon(game)
    labels = game.state.labels
    labels["phenomenon"] = card.title if card else "none"
    if card is not None:  # a game that revealed none had no order to find on the chart
        labels["order on the chart"] = "no" if OFF_CHART in game.state.flags else "yes"
    labels["mode"] = str(card.definition.properties.get("mode", "none")) if card else "none"
    for flag in sorted(game.state.flags):
        if flag.startswith(QUIRK_KEPT):
            title, kept = flag[len(QUIRK_KEPT) :].rsplit(":", 1)
            labels[f"quirk {title}"] = kept
    stopped = None
    if REVEALED not in game.state.flags:
        everyone_dead = all(p.dead for p in game.state.players)
        stopped = "everyone died" if everyone_dead else "round limit"
    elif ACT in game.state.flags and game.state.over is None:
        stopped = "round limit"
    game.state.stopped = stopped
    game.state.tallies["neuroses flipped"] = sum(
        1 for p in game.state.players for c in p.owned if c.kind == "neurosis" and c.flipped
    )


PROCEDURES = {
    "deal_strips_and_quirks": deal_strips_and_quirks,
    "move": move,
    "trade": trade_action,
    "use_items": use_items,
    "drop_items": drop_items,
    "reveal": reveal,
    "rummage": rummage_here,
    "pick_up": pick_up,
    "attack": attack_target,
    "steal_from": steal_from_target,
    "no_main_action": no_main_action,
    "reveal_the_phenomenon": reveal_the_phenomenon,
    "phenomenon_act": phenomenon_act,
    "note_the_game": note_the_game,
}
"""The procedures Coma Ward's `game:` names: its setup, the players' actions and the fallback
of a turn with no main action, its two parts, its figures."""

CAN = {
    "prologue_over": prologue_over,
    "phenomenon_act": act_revealed,
    "trade": can_trade,
    "use_items": can_use,
    "drop_items": can_drop,
    "reveal": on_hidden_slot,
    "rummage": can_rummage,
    "pick_up": can_pick_up,
    "anywhere_to_go": anywhere_to_go,
    "room_to_carry": room_to_carry,
}
"""Whether a part can be played (the act only once the prologue revealed its phenomenon) or
an action taken, and the checks that make an action the default answer."""

TARGETS = {"opponents": opponents}
"""Whom an attack or a theft can be taken on."""
