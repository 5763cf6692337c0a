"""Comanauts' tests as check procedures: dice spent from a pool by colour, summed, exact odds.

`comanauts-test` is every roll against a number: a skill test (`check skill yellow 7`), a
melee or ranged attack against the target's defense, a defense roll, a search (yellow, 4 or
more). The player spends any number of the dice of the test's colour, or purple dice in their
place (a decision: one path per number of dice in `pillbox odds`); with no fitting die the
test fails at once. A colour's bonus applies to each of its dice, a melee, ranged or defense
bonus to each die of that kind of roll; purple dice take only purple bonuses; a waiting
"double" multiplies a colour's dice first.

`comanauts-task` is a group task: the dice rolled are placed on the card's track (its
`progress` tokens), no bonus, nothing multiplied; when the track meets the task's number it is
done. It cannot fail: a turn short of the number leaves it open for the next contribution.

The ruleset's `params:` say which: `colour` (slots and colour words: the first that names a
colour), `target` (an amount: slots, stats, numbers), `against` (the target actor's stat the
roll must meet, for attacks), `roll` (melee, ranged, defense: the bonuses it takes), `defeats`
(a pass defeats the target), `reach` (spaces a ranged attack reaches without a weapon's range),
`range` (the card property that reaches farther), `tokens` / `searched` (the card property of
search tokens, the token kind that counts those used), `progress` (the group task's token
kind), and where the page is silent, `faces` (colour -> its die's faces), `wild` (purple) and
`aim` (the chance whose fewest dice the spend question names): designer values.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Branch, CheckCall, CheckProcedure, Rolled
from runtime.dice import pool_size
from runtime.game import Game
from runtime.games.base_checks import amount
from runtime.games.comanauts_dice import (
    D6,
    DieGroup,
    fewest_dice,
    pass_chance,
    roll_groups,
    spend,
    total_distribution,
)
from runtime.games.comanauts_items import ENEMY, ITEM, defeat, equipped
from runtime.state import Actor

WILD = "purple"
"""The colour that stands in for any other, unless the params name another."""

SEEN_THROUGH = "blocked"
"""The flag prefix of a place no clear sight reaches (`block sight to {place}`)."""

DOUBLED = "doubled"
"""The prefix under which a waiting multiplier of a colour's dice is kept among bonuses."""

DIE_BONUS = "die_bonus"
ROLL_BONUS = "roll_bonus"
"""The ruleset's modifiers the tests read: `{colour} dice +N`, `{roll} +N`."""


@dataclass(frozen=True)
class SkillTest:
    """A test ready to roll: the dice spent, the number to meet, or why it fails at once."""

    groups: tuple[DieGroup, ...]
    target: int
    passed: str
    failed: str
    label: str
    refused: str | None = None  # why no dice are rolled: the test fails at once


@dataclass(frozen=True)
class Placed:
    """What a group task's dice put on its track (what else the dice decided)."""

    total: int

    def __str__(self) -> str:
        return f"+{self.total} on the track"


@dataclass(frozen=True)
class TaskRoll:
    """A contribution to a group task: the dice, what the track holds, what it needs."""

    groups: tuple[DieGroup, ...]
    progress: int
    target: int
    done: str
    open: str
    label: str


# ---------------------------------------------------------------- the pool


def colour_of(game: Game, call: CheckCall) -> str:
    """The test's colour: the first part of `colour` that is a slot's colour or a colour."""
    slots = dict(call.args)
    colours = colours_of(game)
    for part in _parts(call.params.get("colour")):
        value = slots.get(part, part)
        if isinstance(value, str) and value in colours:
            return value
    return wild_of(call.params)


def _parts(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def wild_of(params: Mapping[str, Any]) -> str:
    """The wild colour."""
    return str(params.get("wild", WILD))


_COLOURS: dict[int, tuple[object, dict[str, tuple[int, ...]]]] = {}
"""The colours of each ruleset's dice, read once: a whole game asks hundreds of times a turn."""


def colours_of(game: Game) -> dict[str, tuple[int, ...]]:
    """Every colour of die with its faces, in alphabetical order (the order the bag's dice are
    counted in): the designer values of the first check that gives `faces`."""
    procedures = game.rules.procedures
    kept = _COLOURS.get(id(procedures))
    if kept is not None and kept[0] is procedures:
        return kept[1]
    found: dict[str, tuple[int, ...]] = {}
    for rule in procedures.values():
        faces = rule.params.get("faces")
        if isinstance(faces, dict) and faces:
            found = {str(c): tuple(int(f) for f in faces[c]) for c in sorted(faces)}
            break
    if len(_COLOURS) > 16:  # a few rulesets a process: keep the table small
        _COLOURS.clear()
    _COLOURS[id(procedures)] = (procedures, found)
    return found


def in_force(game: Game, card: CardInstance) -> bool:
    """Whether a card's bonuses count: an item only while equipped, anything else held."""
    return card.kind != ITEM or equipped(game, game.actor, card) is not None


def bonus(game: Game, actor: Actor, modifier: str, word: str) -> int:
    """What the cards in force give a die of a colour (or a kind of roll)."""
    total = 0
    for card in [*actor.items, *actor.owned]:
        if not in_force(game, card):
            continue
        for block in card.definition.blocks:
            rule = game.rules.blocks.get(block.name)
            if rule is None or rule.body != "modifiers" or not game.holds(card, block, rule, actor):
                continue
            for found in block.modifiers:
                args = found.args
                if found.name == modifier and word in (args.get("colour"), args.get("roll")):
                    total += int(args.get("modifier", 0))
    return total


def take_doubling(actor: Actor, colour: str) -> int:
    """The multiplier waiting for a colour's next dice, used up (1: none)."""
    key = f"{DOUBLED}:{colour}"
    times = 1
    for name, factor in actor.bonuses:
        if name == key:
            times *= factor
    actor.bonuses = [(name, factor) for name, factor in actor.bonuses if name != key]
    return max(times, 1)


def spend_dice(
    game: Game, call: CheckCall, colour: str, bonuses: bool, target: int | None = None
) -> tuple[DieGroup, ...]:
    """Ask how many fitting dice to spend (naming the fewest that reach the `aim` chance of
    meeting `target`), take them from the pool, and make the groups."""
    actor = game.actor
    wild = wild_of(call.params)
    faces = colours_of(game)
    roll = call.params.get("roll")
    counts = max(game.stat(colour), 0), max(game.stat(wild), 0) if wild != colour else 0
    fitting = pool_size(sum(counts), call.header)  # a ruleset's pool of millions is refused
    if fitting == 0:
        return ()
    own_bonus = wild_bonus = 0
    own_times = wild_times = 1
    if bonuses:
        own_bonus = bonus(game, actor, DIE_BONUS, colour)
        own_bonus += bonus(game, actor, ROLL_BONUS, str(roll)) if roll else 0
        wild_bonus = bonus(game, actor, DIE_BONUS, wild)
        own_times = take_doubling(actor, colour)
        wild_times = take_doubling(actor, wild) if wild != colour else own_times
    own = DieGroup(colour, counts[0], faces.get(colour, D6), own_times, own_bonus)
    extra = DieGroup(wild, counts[1], faces.get(wild, D6), wild_times, wild_bonus)
    choices = [f"{n} {'die' if n == 1 else 'dice'}" for n in range(1, fitting + 1)]
    prompt = f"{call.header}: spend how many {colour} or {wild} dice"
    if target is not None:
        wanted = Fraction(str(call.params.get("aim", "1/2")))
        fewest = fewest_dice(own, extra, target, wanted)
        prompt += f" (fewest for {float(wanted):.0%}: {fewest or 'none'})"
    count = game.decide("spend", prompt, choices) + 1
    groups = spend(own, extra, count)
    for group in groups:
        game.change(group.colour, -group.count, actor)
    return groups


# ---------------------------------------------------------------- a test against a number


def prepare_test(game: Game, card: CardInstance, call: CheckCall) -> SkillTest:
    """The colour, the number to meet (a target's defense for an attack), the dice spent."""
    passed, failed = (*call.rule.names, "pass", "fail")[:2]
    colour = colour_of(game, call)
    refused: str | None = None
    if "against" in call.params:
        foe = foe_in_reach(game, card, call)
        if foe is None:
            return SkillTest((), 0, passed, failed, call.header, "no enemy in reach")
        game.target(foe)
        target = game.stat(str(call.params["against"]), foe)
    else:
        target = amount(game, call, "target")
    left = search_tokens_left(card, call.params)
    if left is not None and left <= 0:
        refused = "no search token is left here"
    if refused is not None:
        return SkillTest((), target, passed, failed, call.header, refused)
    groups = spend_dice(game, call, colour, bonuses=True, target=target)
    if not groups:
        refused = f"no {colour} or {wild_of(call.params)} dice: an automatic fail"
    return SkillTest(groups, target, passed, failed, call.header, refused)


def roll_test(game: Game, test: SkillTest) -> Rolled:
    """Roll the dice spent and sum them; meeting the number passes."""
    if test.refused is not None:
        return Rolled(test.failed, f"{test.label}: {test.refused} → {test.failed}")
    rolled = roll_groups(test.groups, game.dice)
    outcome = test.passed if rolled.total >= test.target else test.failed
    text = f"{test.label} ({test.target} or more): {rolled.explain(test.groups)} → {outcome}"
    faces = [face for group in rolled.faces for face in group]
    return Rolled(outcome, text, data=(("dice", faces), ("total", rolled.total)))


def skill_odds(test: SkillTest) -> list[Branch]:
    """The chance the dice spent meet the number."""
    passed = Fraction(0) if test.refused is not None else pass_chance(test.groups, test.target)
    return [Branch(n, p) for n, p in ((test.passed, passed), (test.failed, 1 - passed)) if p]


def settle_test(
    game: Game, card: CardInstance, call: CheckCall, test: SkillTest, rolled: Rolled
) -> None:
    """A passed attack defeats its target; a passed search uses up one of the card's tokens."""
    if rolled.result != test.passed:
        return
    if call.params.get("defeats") and game.state.target is not None:
        defeat(game, game.state.target)
    if search_tokens_left(card, call.params) is not None:
        game.add_tokens(card, str(call.params.get("searched", "searched")), 1)


def search_tokens_left(card: CardInstance, params: Mapping[str, Any]) -> int | None:
    """The search tokens left on the card searched (None: the test uses none)."""
    if "tokens" not in params:
        return None
    tokens = card.definition.properties.get(str(params["tokens"]))
    if not isinstance(tokens, int):
        return None
    return tokens - card.tokens.get(str(params.get("searched", "searched")), 0)


def weapon_range(game: Game, actor: Actor, prop: str = "range") -> int:
    """The longest range of the ranged weapons the actor has equipped (0: none)."""
    longest = 0
    for held in actor.items:
        reach = held.definition.properties.get(prop)
        ranged = isinstance(reach, int) and reach > longest and held.kind == ITEM
        if ranged and isinstance(reach, int) and equipped(game, actor, held) is not None:
            longest = reach
    return longest


def ranged_reach(game: Game, actor: Actor) -> int:
    """How far a ranged attack of the actor's reaches: the ruleset's ranged check's `reach`,
    or the range of a ranged weapon it has equipped."""
    for rule in game.rules.procedures.values():
        if rule.params.get("roll") == "ranged" and "range" in rule.params:
            reach = int(rule.params.get("reach", 0))
            return max(reach, weapon_range(game, actor, str(rule.params["range"])))
    return 0


def foe_in_reach(game: Game, card: CardInstance, call: CheckCall) -> Actor | None:
    """The enemy an attack aims at: the target if it can be reached, else the nearest that
    can (a melee attack reaches its own space; a ranged one the spaces next to it, or the
    range of the weapon making it while equipped, or of another ranged weapon equipped, in
    clear sight)."""
    where = game.actor.location
    reach = int(call.params.get("reach", 0))
    prop = str(call.params.get("range", "range"))
    own_range = card.definition.properties.get(prop)
    if isinstance(own_range, int) and "range" in call.params and in_force(game, card):
        reach = max(reach, own_range)
    if "range" in call.params:
        reach = max(reach, weapon_range(game, game.actor, prop))
    if where is None:
        return None
    distances = game.rules.world.board.distances(where)

    def reachable(foe: Actor) -> bool:
        place = foe.location
        if place is None or distances.get(place, reach + 1) > reach:
            return False
        return place == where or f"{SEEN_THROUGH}:{place}" not in game.state.flags

    chosen = game.state.target
    if chosen is not None and not chosen.dead and chosen.kind == ENEMY and reachable(chosen):
        return chosen
    foes = [foe for foe in game.actors_of(ENEMY) if reachable(foe)]
    return min(foes, key=lambda foe: distances[foe.location or ""], default=None)


def _validate(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    faces = params.get("faces")
    if faces is not None:
        shaped = isinstance(faces, dict) and all(
            isinstance(values, list)
            and 1 <= len(values) <= 20
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 20 for v in values)
            for values in faces.values()
        )
        if not shaped:
            problems.append("faces gives each colour 1 to 20 faces, each a number from 0 to 20")
        for colour in faces if isinstance(faces, dict) else ():
            if colour not in stats:
                problems.append(f"faces names colour {colour!r}, which is no stat of the pool")
    reach = params.get("reach", 0)
    if isinstance(reach, bool) or not isinstance(reach, int) or not 0 <= reach <= 100:
        problems.append(f"reach is a number of spaces from 0 to 100, not {reach!r}")
    if params.get("roll") not in (None, "melee", "ranged", "defense"):
        problems.append(f"roll is melee, ranged or defense, not {params.get('roll')!r}")
    if "against" in params and params["against"] in stats:
        problems.append("against names the target's stat, not one of the players'")
    aim = params.get("aim")
    if aim is not None:
        try:
            wanted = Fraction(str(aim))
        except (ValueError, ZeroDivisionError):
            wanted = Fraction(-1)
        if not 0 < wanted <= 1:
            problems.append(f"aim is a chance above 0 and at most 1, not {aim!r}")
    return problems


TEST = CheckProcedure(
    prepare_test,
    roll_test,
    skill_odds,
    settle=settle_test,
    validate=_validate,
    cost=lambda test: sum(g.count * len(g.faces) for g in test.groups) ** 2 // 50,
    results=frozenset({"named"}),
)
"""`comanauts-test`: dice of a colour (or purple) spent, summed, against a number."""


# ---------------------------------------------------------------- the group task


def prepare_task(game: Game, card: CardInstance, call: CheckCall) -> TaskRoll:
    """The dice a player places on the task's track, and what the track holds already."""
    done, still = (*call.rule.names, "done", "open")[:2]
    token = str(call.params.get("progress", "progress"))
    progress = card.tokens.get(token, 0)
    target = amount(game, call, "target")
    groups = () if progress >= target else spend_dice(game, call, colour_of(game, call), False)
    return TaskRoll(groups, progress, target, done, still, call.header)


def roll_task(game: Game, task: TaskRoll) -> Rolled:
    """Roll the dice placed; the track's total decides whether the task is done."""
    rolled = roll_groups(task.groups, game.dice)
    total = task.progress + rolled.total
    outcome = task.done if total >= task.target else task.open
    text = (
        f"{task.label}: {rolled.explain(task.groups)}; the track holds {total} of "
        f"{task.target} → {outcome}"
    )
    faces = [face for group in rolled.faces for face in group]
    return Rolled(outcome, text, after=Placed(rolled.total), data=(("dice", faces),))


def task_odds(task: TaskRoll) -> list[Branch]:
    """Each total the dice place, done or still open."""
    if not task.groups:
        outcome = task.done if task.progress >= task.target else task.open
        return [Branch(outcome, Fraction(1), Placed(0))]
    return [
        Branch(task.done if task.progress + total >= task.target else task.open, p, Placed(total))
        for total, p in total_distribution(task.groups)
    ]


def settle_task(
    game: Game, card: CardInstance, call: CheckCall, task: TaskRoll, rolled: Rolled
) -> None:
    """The dice's total goes onto the card's track."""
    if isinstance(rolled.after, Placed) and rolled.after.total:
        game.add_tokens(card, str(call.params.get("progress", "progress")), rolled.after.total)


TASK = CheckProcedure(
    prepare_task,
    roll_task,
    task_odds,
    settle=settle_task,
    validate=_validate,
    cost=lambda task: sum(g.count * len(g.faces) for g in task.groups) ** 2 // 50,
    results=frozenset({"named"}),
)
"""`comanauts-task`: a group task's contribution, placed on its track; it cannot fail."""
