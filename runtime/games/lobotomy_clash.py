"""Lobotomy: the end of the Warden's patrol. Defy Gravity, the Final Clash, the game's end.

- **Defy Gravity** (rulebook 892-898), an insomnia shift: after a roll, one die turned up or
  down by 1 (never a Chaos or Defense Die), for a space of the Warden's patrol. It is offered
  where it helps: after an imagination test that a die turned by one would pass. The test is
  the base `target` procedure with that decision in its `settle` step, so play, card tests
  (`choose yes`) and the odds walk ask it alike; its exact odds split the failures a die away
  from passing from the rest. During the Final Clash the patrol is over and it is not offered.
- **The Final Clash** (1009-1029, 1178): when the Warden is pushed past the end of the
  Insomnia Track (the track's `past_max`), he goes to the pentagram on the central piece and
  is a monster to defeat, with his kind's numbers (designer values in the ruleset); from then a
  character who dies is out of the game (918, 1023).
- **The end**: won when the Warden is defeated with a character alive, or when every
  scenario is done before the clash (`lobotomy_scenarios`); lost when every character has died
  in the clash. `Game.end_game` records it, and `play --json` shows it as `over`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from runtime.cards import CardInstance
from runtime.checks import ROLL, ROLL_TABLE, Branch, CheckCall, Result, Rolled
from runtime.decisions import YES_NO
from runtime.distributions import roll_outcomes
from runtime.game import Game
from runtime.games.base_checks import TARGET, Target, roll_target, target_odds
from runtime.state import Actor

INSOMNIA = "insomnia"
MONSTER = "monster"
WARDEN = "warden"
WARDEN_NAME = "the Warden"
IMAGINATION_PROCEDURE = "lobotomy-imagination"

CLASH = "final clash"
"""The flag of a game whose Final Clash has begun."""

DEFY_GRAVITY = "defy gravity"
"""The decision's kind: the odds walk names its answers `defy gravity: yes`."""

D3 = 3
"""A three-sided die, which Lobotomy rolls as a d6 halved."""

A_DIE_AWAY = "a die from passing"
"""What the dice decided besides a failure: a die turned by one would pass the test."""

WON, LOST = "won", "lost"


def clash_begun(game: Game) -> bool:
    """Whether the Final Clash has begun."""
    return CLASH in game.state.flags


# ---------------------------------------------------------------- Defy Gravity


def _a_die_away(target: Target, total: int) -> bool:
    """A failed total that one die turned by one makes pass: one over (under) the target, with
    a die above 1 (below its top) to turn."""
    if target.at_most:
        return total == target.target + 1 and total > target.count
    return total == target.target - 1 and total < target.count * target.sides


def roll_imagination(game: Game, target: Target) -> Rolled:
    """The test rolled as the base procedure rolls it, a failure a die away marked so."""
    rolled = roll_target(game, target)
    total = dict(rolled.data).get("total")
    if rolled.result == target.failed and isinstance(total, int) and _a_die_away(target, total):
        return replace(rolled, after=A_DIE_AWAY)
    return rolled


def imagination_odds(target: Target) -> list[Branch]:
    """The base test's exact odds, its failure split: a die from passing, and the rest."""
    away = sum(
        (p for total, p in roll_outcomes(target.count, target.sides) if _a_die_away(target, total)),
        Fraction(0),
    )
    branches = []
    for branch in target_odds(target):
        if branch.result == target.failed and away:
            branches.append(Branch(target.failed, away, A_DIE_AWAY))
            if branch.probability > away:
                branches.append(Branch(target.failed, branch.probability - away))
        else:
            branches.append(branch)
    return branches


def defies_gravity(game: Game, what: str, default: int | None = None) -> bool:
    """Whether the player turns a die by one for `what` (the Warden walks a space for it).
    Never offered in the Final Clash, when the patrol is over. Any roll may offer it where a
    turned die would help: the imagination test's, the attack's, the search's and the
    unlocking test's do (894; `default`: a card test's answer when it gives none)."""
    if clash_begun(game) or INSOMNIA not in game.state.tracks:
        return False
    prompt = f"defy gravity: turn a die by one to {what}, the Warden a space on"
    if game.decide(DEFY_GRAVITY, prompt, YES_NO, default) != 0:
        return False
    game.event("shift", f"{game.actor.name} defies gravity: a die turned by one to {what}")
    game.advance(INSOMNIA, 1)
    return True


def defy_gravity(
    game: Game, card: CardInstance, call: CheckCall, target: Target, rolled: Rolled
) -> Result | None:
    """A failure a die from passing: the player may turn the die, and then it passes."""
    if rolled.after == A_DIE_AWAY and defies_gravity(game, "pass"):
        return target.passed
    return None


IMAGINATION = replace(TARGET, roll=roll_imagination, odds=imagination_odds, settle=defy_gravity)
"""The imagination test: 2d6 at most imagination and its modifier, then Defy Gravity."""


def _roll_table(game: Game, prepared: tuple[int, int]) -> Rolled:
    """A card's `roll` table: a d3 is a d6 halved, rounded up (1097); other dice as rolled."""
    count, sides = prepared
    if sides != D3:
        return ROLL.roll(game, prepared)
    sixes = game.roll_dice(count, 2 * D3).faces
    faces = [(face + 1) // 2 for face in sixes]
    total = sum(faces)
    shown = " ".join(f"{six}→{face}" for six, face in zip(sixes, faces, strict=True))
    notation = f"{count if count != 1 else ''}d{D3}"
    return Rolled(
        total,
        f"roll {notation} (a d6 halved, up): {shown} → {total}",
        data=(("dice", faces), ("total", total)),
        kind="roll",
    )


ROLL_TABLES = replace(ROLL, roll=_roll_table)
"""The roll tables of Lobotomy's cards: as every game's, but a d3 rolled on a d6."""


# ---------------------------------------------------------------- the Final Clash


def begin_clash(game: Game) -> None:
    """The Warden pushed past the end of his patrol: onto the pentagram, a monster to defeat."""
    if clash_begun(game):
        return
    game.state.flags.add(CLASH)
    found = [a for a in game.state.others if a.kind == WARDEN and not a.dead]
    pentagram = game.rules.start_place
    walker = found[0] if found else game.spawn(WARDEN, pentagram, name=WARDEN_NAME)
    walker.location = pentagram
    walker.kind = MONSTER
    walker.keywords = game.rules.world.actors[WARDEN].keywords
    game.event(
        "clash",
        f"{walker.name} steps onto the pentagram at {pentagram}: the Final Clash begins",
        actor=walker.name,
        place=pentagram,
    )


def is_warden(actor: Actor) -> bool:
    """Whether this actor is the Warden (a monster since the clash began)."""
    return actor.name == WARDEN_NAME and actor.seat is None


def clash_death(game: Game, actor: Actor) -> bool:
    """A death during the Final Clash is for good; the Warden's wins the game, the last
    character's loses it. False when the clash has no say (a death before it, a monster's)."""
    if not clash_begun(game):
        return False
    if is_warden(actor):
        actor.location = None
        if game.state.target is actor:
            game.state.target = None
        if living_characters(game):
            game.end_game(WON, f"{actor.name} is defeated")
        return True
    if actor.seat is None:
        return False
    actor.location = None
    game.event("death", f"{actor.name} is dead for good: the Final Clash has begun")
    if not living_characters(game):
        game.end_game(LOST, "every character died in the Final Clash")
    return True


def living_characters(game: Game) -> list[Actor]:
    """The players' characters still in the game."""
    return [player for player in game.state.players if not player.dead]


def game_over(game: Game, card: CardInstance, *, result: str) -> bool:
    """`the game is won`."""
    return game.state.over == result


def final_clash_begun(game: Game, card: CardInstance) -> bool:
    """`the final clash has begun`."""
    return clash_begun(game)


CLASH_TABLES: dict[str, object] = {
    "checks": {IMAGINATION_PROCEDURE: IMAGINATION, ROLL_TABLE.procedure: ROLL_TABLES},
    "conditions": {"game_over": game_over, "clash_begun": final_clash_begun},
    "reactions": {"final_clash": begin_clash},
}
"""What the module adds for the end of the patrol."""
