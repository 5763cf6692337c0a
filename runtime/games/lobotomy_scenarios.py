"""Lobotomy's scenarios: a campaign of scenario cards, each set up, checked, jumped from and done.

The rulebook's Scenario Specifications (975-1010, 1185-1210) read as a card's blocks:

- `setup` runs when the scenario comes into play (drawn from the scenario deck, or played);
- `handicap for N characters` runs with it when N characters or fewer play: with 3, both the
  3-character and the 4-character handicaps (1203);
- `objective` and `scenario jump` are checked at the end of each character's turn and at the
  start of each round: their effects say the condition (`if ... { complete this scenario }`);
- a scenario complete leaves play with its tokens, set aside; before the Final Clash every character
  regains 1 insanity, draws a card of each of their Mental Disorder Decks and keeps one
  (1005), and its `reward` runs (1001-1008);
- the jump draws the next card of the scenario deck, once a scenario, and only while fewer
  scenarios have started than the difficulty plays (the `scenarios` track's most, 4 with the
  track to D12). A scenario done without its jump jumps then: the jump "always happens before
  the scenario is finished" (1192), so the next one is never skipped;
- when every scenario is done before the Final Clash, the game is won (1021); in it, no more
  movement cards are revealed (1017);
- the pack's quarter tiles (cards of the kind `quarter_tile`) are laid when the first
  scenario comes: the one it `needs` at corner A, three more at random; a later scenario that
  needs a quarter not on the board is set aside and the next card comes instead (229, 988).
  The tiles are names on the same rows of twelve spaces (the board's walls are not modelled).
"""

from __future__ import annotations

import random

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.lobotomy_clash import WON, clash_begun
from runtime.games.lobotomy_inventory import disorder_reward
from runtime.module import ValueDef
from runtime.state import Player

SCENARIO = "scenario"
SCENARIOS = "scenarios"
"""The track of the scenarios done; its most is how many the difficulty plays."""

MONSTER = "monster"
MOVEMENT = "movement"
"""The in-play slot of the movement card revealed this monsters' turn."""
INSANITY = "insanity"
IN_PLAY = "scenario:"
"""The prefix of a scenario's slot among the cards in play."""

QUARTERS_DECK = "quarters"
QUARTER_TILE = "quarter_tile"
QUARTER = "quarter"
"""A scenario card's property: the quarter tile it needs on the board (229)."""
TILE = "quarter "
"""The in-play slot of the quarter tile at a corner (`quarter A`)."""
CORNERS = ("A", "B", "C", "D")

JUMPED = "scenario jumped"
"""The flag of a scenario whose jump has happened, with its card's number."""

STARTS, HANDICAP, CHECKED, DONE = "scenario_starts", "handicap", "scenario_checked", "scenario_done"
INTERACTED = "interacted"
MOST_CHARACTERS = 5
"""The most characters a game seats (a handicap is for fewer than five, 1203)."""

REWARD_INSANITY = 1
"""The insanity each character regains when a scenario is done before the clash (1003)."""


def active(game: Game) -> list[CardInstance]:
    """The scenarios in play, in the order they came."""
    return [card for slot, card in game.state.in_play.items() if slot.startswith(IN_PLAY)]


def quarters_in_play(game: Game) -> dict[str, str]:
    """The quarter tiles on the board, by the corner they lie at (A-D)."""
    return {
        slot[len(TILE) :]: tile.title
        for slot, tile in game.state.in_play.items()
        if slot.startswith(TILE)
    }


def lay_quarters(game: Game, needed: str | None) -> None:
    """The quarter tiles laid at the four corners (229-230): the one the first scenario needs
    at A, the others picked at random from the pack's; the rest stay in the box."""
    box = list(game.state.decks.get(QUARTERS_DECK) or [])
    first = [tile for tile in box if tile.title == needed][:1]
    rest = [tile for tile in box if tile not in first]
    picked = random.Random(f"board:{game.seed}:quarters").sample(
        rest, min(len(rest), 4 - len(first))
    )
    laid = first + picked
    for corner, tile in zip(CORNERS, laid, strict=False):
        game.state.in_play[f"{TILE}{corner}"] = game.from_deck(tile)
        game.event("quarter", f"quarter {corner}: {tile.definition.label}", uid=tile.uid)
    game.state.decks[QUARTERS_DECK] = [tile for tile in box if tile not in laid]


def quarter_at(game: Game, card: CardInstance, *, corner: str, title: str) -> bool:
    """`the quarter at A is "The Long Ward"`."""
    return quarters_in_play(game).get(corner) == title


def tile_drawn(game: Game, card: CardInstance) -> bool:
    """A quarter tile is laid by the first scenario, never drawn into a hand."""
    game.event("quarter", f"{card.definition.label} is a quarter tile: the board's, not a hand's")
    return True


def fits_the_board(game: Game, card: CardInstance) -> bool:
    """Whether the board has the quarter a scenario needs: the first scenario lays the tiles
    (its own at A); a later one needing a quarter not in play does not come (988)."""
    needed = card.definition.properties.get(QUARTER)
    laid = quarters_in_play(game)
    if not laid and game.state.decks.get(QUARTERS_DECK):
        lay_quarters(game, needed if isinstance(needed, str) else None)
        return True
    return not isinstance(needed, str) or not laid or needed in laid.values()


def scenario_begins(game: Game, card: CardInstance) -> bool:
    """A scenario card comes into play, and no copy of it stays in the deck for a jump to
    start again: its setup, its handicaps, then its checks. One that needs a quarter not in
    play is set aside, and the next card of the deck comes instead (988)."""
    if not fits_the_board(game, card):
        needed = card.definition.properties.get(QUARTER)
        game.event(
            "scenario", f"{card.definition.label} needs {needed}, not on the board: set aside"
        )
        game.draw(SCENARIO)
        return True
    game.state.in_play[f"{IN_PLAY}{card.uid}"] = card
    deck = game.state.decks.get(SCENARIO)
    if deck is not None:
        deck[:] = [other for other in deck if other.title != card.title]
    game.event("reveal", f"scenario: {card.definition.label}", uid=card.uid)
    game.fire(STARTS, [card])
    seated = len(game.state.players)
    for block in card.definition.blocks:
        rule = game.rules.blocks.get(block.name)
        if rule is None or rule.trigger != HANDICAP or block.run is None:
            continue
        most = block.args.get("players")
        if isinstance(most, int) and seated <= most:
            game.resolve(card, block.run, rule.written(block.args))
    game.fire(CHECKED, [card])
    return True


def interactive(game: Game) -> list[CardInstance]:
    """The scenarios in play whose objective a character may interact with."""
    return [
        card
        for card in active(game)
        if any(
            (rule := game.rules.blocks.get(block.name)) is not None and rule.trigger == INTERACTED
            for block in card.definition.blocks
        )
    ]


def interact(game: Game, player: Player) -> None:
    """Interact with a scenario's objective (323, 1 AP, paid by the action): the `when you
    interact` block of a scenario in play runs (the player picks which, when several)."""
    cards = interactive(game)
    if cards:
        titles = [c.title for c in cards]
        picked = game.decide("option", "interact with", titles) if len(cards) > 1 else 0
        game.fire(INTERACTED, [cards[picked]])


def can_interact(game: Game, player: Player) -> bool:
    """Whether a scenario in play has an objective to interact with."""
    return bool(interactive(game))


def check_scenarios(game: Game) -> None:
    """Each scenario in play checks its objective and its jump."""
    for card in active(game):
        game.fire(CHECKED, [card])


def turn_ended(game: Game, player: Player) -> None:
    """A character's turn is over: the scenarios are checked."""
    check_scenarios(game)


def complete_scenario(game: Game, card: CardInstance) -> None:
    """`complete this scenario`: it leaves play with its tokens; its reward before the clash."""
    if card not in active(game):
        return
    game.take(card)  # set aside, not discarded: a jump never draws it again
    card.tokens.clear()
    game.event("scenario", f"{card.definition.label} is complete", uid=card.uid)
    if SCENARIOS in game.state.tracks:
        game.advance(SCENARIOS, 1)
    jump_scenario(game, card)
    if clash_begun(game):
        game.event("scenario", "no reward: the Final Clash has begun")
        return
    for character in list(game.state.players):
        if not character.dead:
            game.change(INSANITY, -REWARD_INSANITY, character)
            disorder_reward(game, character)
    game.fire(DONE, [card])
    rule = game.rules.world.tracks.get(SCENARIOS)
    if rule is not None and game.state.tracks[SCENARIOS] >= rule.high:
        game.end_game(WON, "every scenario is done before the Final Clash")


def jump_scenario(game: Game, card: CardInstance) -> None:
    """`start the next scenario`: the next scenario card, once a scenario, while any is left."""
    flag = f"{JUMPED}:{card.uid}"
    if flag in game.state.flags:
        return
    game.state.flags.add(flag)
    rule = game.rules.world.tracks.get(SCENARIOS)
    started = game.state.tracks.get(SCENARIOS, 0) + len(active(game))
    if rule is None or started >= rule.high:
        game.event("scenario", "the scenario jump: no scenario is left to start")
        return
    game.event("scenario", f"the scenario jump of {card.definition.label}", uid=card.uid)
    game.draw(SCENARIO)


def movement_stopped(game: Game) -> bool:
    """Whether no more movement cards are revealed: every scenario is done, in the Final Clash
    (1017); the last one revealed leaves play, so its steps do not run again."""
    rule = game.rules.world.tracks.get(SCENARIOS)
    if rule is None or game.state.tracks[SCENARIOS] < rule.high:
        return False
    revealed = game.state.in_play.get(MOVEMENT)
    if revealed is not None:
        game.discard(revealed)
    game.event("scenario", "every scenario is done: no more movement cards are revealed")
    return True


# ---------------------------------------------------------------- values


def characters(game: Game, card: CardInstance) -> int:
    """How many characters play."""
    return len(game.state.players)


def seat_characters(game: Game, card: CardInstance, value: int) -> None:
    """`given characters 3`: so many characters play (1 to 5), each new one a fresh one."""
    value = max(1, min(value, MOST_CHARACTERS))
    players = game.state.players
    while len(players) < value:
        player = game.new_player(f"player {len(players) + 1}")
        player.seat = len(players)
        players.append(player)
    del players[value:]
    game.event("given", f"{len(players)} characters play", value=len(players))


def monsters_on_board(game: Game, card: CardInstance) -> int:
    """The living monsters on the board."""
    return sum(1 for monster in game.actors_of(MONSTER) if monster.location is not None)


def scenarios_in_play(game: Game, card: CardInstance) -> int:
    """The scenarios in play."""
    return len(active(game))


SCENARIO_TABLES: dict[str, object] = {
    "verbs": {"complete_scenario": complete_scenario, "jump_scenario": jump_scenario},
    "conditions": {"quarter_at": quarter_at},
    "values": {
        "characters": ValueDef(characters, seat_characters),
        "monsters_on_board": ValueDef(monsters_on_board),
        "scenarios_in_play": ValueDef(scenarios_in_play),
    },
    "drawn": {SCENARIO: scenario_begins, QUARTER_TILE: tile_drawn},
    "hooks": {"turn_ended": turn_ended},
    "reactions": {"round_starts": check_scenarios},
    "announces": frozenset({STARTS, HANDICAP, CHECKED, DONE, INTERACTED}),
}
"""What the module adds for the campaign."""
