"""Coma Ward as a whole game: the rulebook's setup, a turn of free and main actions, and the
prologue played to the phenomenon; the procedures its ruleset's `game:` names (its setup, its
two parts, the prologue and the phenomenon act, and the figures it notes).

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
from runtime.game import Game, RunEnded
from runtime.games.coma_ward_combat import attack
from runtime.games.coma_ward_map import board, walk
from runtime.games.coma_ward_phenomena import ACT, act_goals, fought, phenomenon, play_act
from runtime.games.coma_ward_rules import (
    CARRY_LIMIT,
    COMA_WARD,
    counts_toward_limit,
    drop_to_limit,
    focus_search,
    hallucinate,
    rummage,
    searched,
)
from runtime.module import GameModule
from runtime.rounds import take_turn as round_turn
from runtime.rules import GameRules
from runtime.state import Player, seat_index
from runtime.world import SEATED

PLAYERS = (2, 6)
"""The fewest and most players the rulebook allows."""

FREE_ACTIONS = ("move", "trade", "use items", "drop")
MAIN = "main action"
DONE = "done"
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


def take_turn(game: Game, player: Player) -> None:
    """One turn: free actions once each, then one main action (the round loop ends it)."""
    if REVEALED in game.state.flags and ACT not in game.state.flags:
        return  # the third clue ended the prologue earlier in this round
    done: set[str] = set()
    traded: set[str] = set()
    revealing = None
    # Where to head is worked out only for a move, and only for a maker that reads the
    # rules' answers (a random one does not); the default needs only whether there is
    # anywhere (a move is first in `free` when it is there).
    heads = reads_defaults(game.decisions)
    while not game.ended and not player.turn_over and not player.dead:
        free = _free_actions(game, player, done)
        if not free:
            break
        default = 1 if heads and free[0] == "move" and _anywhere_to_go(game, player) else 0
        picked = game.decide("free", "a free action, or on", [MAIN, *free], default=default)
        if picked == 0:
            break
        action = free[picked - 1]
        done.add(action)
        if action == "move":
            goals = _goals(game, player) if heads else set()
            revealing = walk(game, player, game.stat("dexterity", player), goals)
            if revealing is not None:
                break
        elif action == "trade":
            traded |= trade(game, player)
        elif action == "use items":
            use_items(game, player)
        else:
            drop_items(game, player)
    if not game.ended and not player.turn_over and not player.dead:
        main_action(game, player, revealing, traded)


def _free_actions(game: Game, player: Player, done: set[str]) -> list[str]:
    """The free actions the player has not taken this turn and can take, in their order."""
    # Asked before every free action of every turn: each test is the cheapest that answers.
    move, trade, use, drop = FREE_ACTIONS
    items = player.items
    free = [] if move in done else [move]
    if trade not in done and _others_here(game, player):
        free.append(trade)
    if items and use not in done and any(game.usable(item) for item in items):
        free.append(use)
    if items and drop not in done:
        free.append(drop)
    return free


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


def _anywhere_to_go(game: Game, player: Player) -> bool:
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


def main_action(game: Game, player: Player, revealing: str | None, traded: set[str]) -> None:
    """Reveal the slot the move ended on, or one of the main actions the space allows."""
    if revealing is not None:
        game.draw(board(game).slots[revealing])
        return
    here = player.location or ""
    room = game.state.in_play.get(here) if here in board(game).slots else None
    choices: list[str] = []
    if room is not None and searched(here) not in game.state.flags:
        choices.append("rummage")
    if game.state.floor.get(here):
        choices.append("pick up")
    targets = [o for o in _others_here(game, player) if o.name not in traded]
    choices += [f"{verb} {o.name}" for o in targets for verb in ("attack", "steal from")]
    if not choices:
        if room is not None:
            if game.hears("main"):
                game.event("main", "no main action is possible: rummage the searched room again")
            focus_search(game, room)
        else:
            if game.hears("main"):
                game.event("main", f"no main action is possible at {here}")
        return
    # By default: search, then pick up what fits; a fight only when nothing else is left.
    default = 1 if choices[0] == "pick up" and not _fits(game, player) and len(choices) > 1 else 0
    picked = choices[game.decide("main", "main action", choices, default=default)]
    if picked == "rummage" and room is not None:
        rummage(game, room)
    elif picked == "pick up":
        pick_up(game, player)
    else:
        defender = next(o for o in targets if picked.endswith(f" {o.name}"))
        fight = attack(game, player, defender, "steal" if picked.startswith("steal") else "attack")
        if not fight.tie:
            won = fight.winner == "attacker"
            fought(game, player if won else defender, defender if won else player)


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
    turn that finds it is the last, the rest of its round is not played."""
    setup(game)
    prologue(game, game.state.players[0], round_limit)


def prologue(game: Game, player: Player, round_limit: int = ROUND_LIMIT) -> None:
    """The whole game's first part: rounds of turns until the third clue (or everyone's
    death, or the round limit), then the quirks revealed and the phenomenon picked."""
    phase = game.rules.world.turns.phases[0]
    while not _prologue_over(game) and game.state.round < round_limit:
        game.state.round += 1
        game.event("round", f"round {game.state.round} begins", round=game.state.round)
        for actor in game.actors_of(phase.actors or SEATED):
            try:  # noqa: SIM105
                round_turn(game, actor, phase)
            except RunEnded:  # not suppress(): on a hot path its context manager cost a call
                pass
            if _prologue_over(game):
                break
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


WHOLE_TABLES: dict[str, object] = {
    "turns": {SEATED: take_turn},
    "drawn": {"hallucination": narrated},
}
"""What a game at the table adds to the cards' module: the players' turns, and a narrator for
each hallucination drawn."""


def new_game(rules: GameRules, cards: Sequence[CardDef], players: int, seed: int) -> Game:
    """A whole game of Coma Ward, not yet set up, under the module with turns."""
    return Game(rules, cards, WHOLE_GAME, seed=seed, players=players)


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
    "prologue": prologue,
    "phenomenon_act": phenomenon_act,
    "note_the_game": note_the_game,
}
"""The procedures Coma Ward's `game:` names: its setup, its two parts, its figures."""

CAN = {"phenomenon_act": act_revealed}
"""Whether a part can be played: the act only once the prologue revealed its phenomenon."""

WHOLE_GAME: GameModule = COMA_WARD.extend(
    "coma-ward", procedures=PROCEDURES, can=CAN, **WHOLE_TABLES
)
"""The Coma Ward module with the players' turns and the whole game's procedures: what a
whole game is played with (`runtime.games.coma_ward.MODULE` adds the turns when it is)."""
