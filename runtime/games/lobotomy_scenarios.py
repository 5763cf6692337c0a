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
  movement cards are revealed (1017).
"""

from __future__ import annotations

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

JUMPED = "scenario jumped"
"""The flag of a scenario whose jump has happened, with its card's number."""

STARTS, HANDICAP, CHECKED, DONE = "scenario_starts", "handicap", "scenario_checked", "scenario_done"
MOST_CHARACTERS = 5
"""The most characters a game seats (a handicap is for fewer than five, 1203)."""

REWARD_INSANITY = 1
"""The insanity each character regains when a scenario is done before the clash (1003)."""


def active(game: Game) -> list[CardInstance]:
    """The scenarios in play, in the order they came."""
    return [card for slot, card in game.state.in_play.items() if slot.startswith(IN_PLAY)]


def scenario_begins(game: Game, card: CardInstance) -> bool:
    """A scenario card comes into play, and no copy of it stays in the deck for a jump to
    start again: its setup, its handicaps, then its checks."""
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
    "values": {
        "characters": ValueDef(characters, seat_characters),
        "monsters_on_board": ValueDef(monsters_on_board),
        "scenarios_in_play": ValueDef(scenarios_in_play),
    },
    "drawn": {SCENARIO: scenario_begins},
    "hooks": {"turn_ended": turn_ended},
    "reactions": {"round_starts": check_scenarios},
    "announces": frozenset({STARTS, HANDICAP, CHECKED, DONE}),
}
"""What the module adds for the campaign."""
