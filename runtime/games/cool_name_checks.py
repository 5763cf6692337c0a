"""Cool Name RPG action checks as check procedures: one die against a difficulty, exact odds.

Every check of the injury rules is an action check: the action score (an attribute plus its
modifiers) picks one die from the ruleset's table (a score of 3 rolls a d8), and the check
succeeds when the die meets or beats the difficulty (the page's only example, Wargar's 2 on a
d8 against 3, fails; a difficulty of 0 or 1 always passes). The procedures differ in whose
score and whose wounds they read, and in what their result does:

- `cool-name-action`: a plain check, `score` and `difficulty` added up from the phrase and the
  stats; with `helpless: N` (an attack) the difficulty is N against an incapacitated target.
- `cool-name-death`: the wounded character's attribute for that type of wound against every
  wound they have, no other modifiers; a failure starts their dying.
- `cool-name-stabilise`: the healer's intellect against the target's total wounds; a success
  stops the dying and leaves them unconscious, a failure changes nothing.
- `cool-name-heal`: intellect against 6 + the patient's wounds of the type, + 1 healing
  yourself, + the ruleset's amounts for lacking tools or an unfit place, and the time chart
  (each step below the base time +1 difficulty, each step above +1 action score); a success
  heals one wound of the type.
- `cool-name-natural`: a week's rest, the type's attribute against its wounds plus what harsh
  places and conditions add; a success heals one.

An incapacitated character makes no action check (the page: only a recovery action), so
their action, attack, stabilising and healing checks fail; a death check is no action.
The injury table (each vitality's wound stat and attribute, the dying stat, the die of each
score) is the death check's `params:`, which every procedure reads; the card properties read
are the ruleset's `heals` (proper tools), `unfit` (a place unfit to heal) and `harsh`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Branch, CheckCall, CheckProcedure, Rolled, RulesView
from runtime.game import Game
from runtime.games.base_checks import amount
from runtime.identity_cache import IdentityCache
from runtime.rules import GameRules
from runtime.state import Actor

DEATH = "cool-name-death"
"""The procedure whose params hold the injury table."""

NATURAL = "cool-name-natural"

DICE = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12, 6: 20}
"""The die of each action score, where a ruleset gives none (the bundled one's values)."""

VITALITY = {
    "body": ("body_wounds", "toughness"),
    "mind": ("mind_wounds", "willpower"),
    "spirit": ("spirit_wounds", "resilience"),
}
"""Each vitality: its wound stat and its attribute, where a ruleset gives none."""

DYING = "dying"
HEALS = "heals"
"""The tool property naming the wounds it is proper for."""
UNFIT = "unfit"
"""The environment property naming the wounds it is unfit to heal."""
HARSH = "harsh"
ENVIRONMENT = "environment"
"""The in-play slot of the environment the characters are in."""
UNCONSCIOUS = "unconscious"
"""The flag of a character stabilised, out until the encounter ends."""
DEATH_CHECKS_FAILED = "death checks failed"
STABILISED = "stabilisations"
DYING_ROUNDS = "dying rounds"
"""What an encounter counts, for the figures of a simulation."""
DYING_SINCE = "dying since round"
"""The name under which the round a character began dying is kept among its bonuses."""


@dataclass(frozen=True)
class Injuries:
    """The injury table: each vitality's wound stat and attribute, dying, the dice."""

    vitality: Mapping[str, tuple[str, str]]
    dying: str
    dice: Mapping[int, int]

    def sides(self, score: int) -> int:
        """The die an action score rolls: below the table its first, above it its last."""
        scores = sorted(self.dice)
        fitting = [s for s in scores if s <= score]
        return self.dice[fitting[-1] if fitting else scores[0]]

    def wounds(self, actor: Actor) -> int:
        """Every wound of an actor, of all types."""
        return sum(actor.stats.get(w) for w, _ in self.vitality.values() if has(actor, w))


def injuries(rules: GameRules) -> Injuries:
    """The ruleset's injury table (its death check's params), or the bundled one: read once a
    ruleset (every check of who is standing asks, thousands of times a game: reading it each
    time was half of a game's time), as a ruleset's params do not change in play."""
    return _injuries_of(rules)


def _read_injuries(rules: GameRules) -> Injuries:
    rule = next((r for r in rules.procedures.values() if r.procedure == DEATH), None)
    params: Mapping[str, Any] = rule.params if rule is not None else {}
    table = params.get("vitality") or {}
    vitality = {
        str(name): (str(entry["wounds"]), str(entry["attribute"])) for name, entry in table.items()
    } or VITALITY
    dice = {int(score): int(sides) for score, sides in (params.get("dice") or {}).items()}
    return Injuries(vitality, str(params.get("dying", DYING)), dice or DICE)


_injuries_of: IdentityCache[GameRules, Injuries] = IdentityCache(_read_injuries)


def has(actor: Actor, stat: str) -> bool:
    """Whether an actor has that stat at all."""
    return stat in actor.stats.rules


def incapacitated(game: Game, actor: Actor) -> bool:
    """Any vitality at 0."""
    table = injuries(game.rules)
    return any(has(actor, v) and actor.stats.get(v) == 0 for v in table.vitality)


def unconscious(game: Game, actor: Actor) -> bool:
    """Dying, or stabilised and out until the encounter ends."""
    return actor_dying(game, actor) > 0 or f"{UNCONSCIOUS}:{actor.name}" in game.state.flags


def helpless(game: Game, actor: Actor) -> str | None:
    """Why an actor can make no action check now, if it cannot."""
    if unconscious(game, actor):
        return f"{actor.name} is unconscious"
    if incapacitated(game, actor):
        return f"{actor.name} is incapacitated"
    return None


def carried_properties(actor: Actor, name: str) -> list[Any]:
    """The values of one property on the cards an actor carries and owns."""
    return [
        card.definition.properties[name]
        for card in [*actor.items, *actor.owned]
        if name in card.definition.properties
    ]


def environment_property(game: Game, name: str) -> Any:
    """A property of the environment in play, if there is one and it has it."""
    place = game.state.in_play.get(ENVIRONMENT)
    return place.definition.properties.get(name) if place is not None else None


def _words(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


# ---------------------------------------------------------------- the prepared check


@dataclass(frozen=True)
class ActionCheck:
    """One die against a difficulty, its outcomes' names, and whom it is about (the patient)."""

    score: int
    sides: int
    difficulty: int
    label: str
    passed: str = "pass"
    failed: str = "fail"
    patient: str | None = None
    blocked: str | None = None  # why it cannot pass: the roller cannot act

    @property
    def chance(self) -> Fraction:
        """The exact chance that the die meets or beats the difficulty."""
        if self.blocked is not None:
            return Fraction(0)
        hits = self.sides - max(self.difficulty, 1) + 1
        return Fraction(max(0, min(hits, self.sides)), self.sides)


def action_check(
    game: Game,
    call: CheckCall,
    roller: Actor,
    score: int,
    difficulty: int,
    patient: Actor | None = None,
    *,
    action: bool = True,
    needs_patient: bool = False,
) -> ActionCheck:
    """The prepared check of `roller` with that score against that difficulty; an action
    (every check but the death check) cannot pass while the roller is incapacitated."""
    sides = injuries(game.rules).sides(score)
    passed, failed = (*call.rule.names, "pass", "fail")[:2]
    blocked = helpless(game, roller) if action else None
    if needs_patient and patient is None:
        blocked = "there is no one to treat"
    label = f"{call.header} (score {score}: d{sides} against {difficulty})"
    patient_name = patient.name if patient is not None else None
    return ActionCheck(score, sides, difficulty, label, passed, failed, patient_name, blocked)


def roll_action(game: Game, check: ActionCheck) -> Rolled:
    """Roll the die (none when the roller cannot act) and compare it with the difficulty."""
    if check.blocked is not None:
        return Rolled(check.failed, f"{check.label}: {check.blocked} → {check.failed}")
    face = game.roll_dice(1, check.sides).total
    result = check.passed if face >= check.difficulty else check.failed
    return Rolled(result, f"{check.label}: {face} → {result}", data=(("dice", [face]),))


def action_odds(check: ActionCheck) -> list[Branch]:
    """Pass with the die's exact chance, fail with the rest."""
    chance = check.chance
    outcomes = ((check.passed, chance), (check.failed, 1 - chance))
    return [Branch(name, p) for name, p in outcomes if p]


def patient_of(game: Game, call: CheckCall) -> Actor | None:
    """Whom a check is about: the actor a rule names (a death check's), else the target."""
    name = call.arg("patient")
    if isinstance(name, str):
        return next((a for a in game.state.actors if a.name == name), None)
    return game.state.target


def _attribute(game: Game, vitality: str) -> str:
    return injuries(game.rules).vitality.get(vitality, ("", ""))[1]


def _wound_stat(game: Game, vitality: str) -> str:
    return injuries(game.rules).vitality.get(vitality, ("", ""))[0]


def _stat(game: Game, name: str, actor: Actor | None) -> int:
    return game.stat(name, actor) if actor is not None and has(actor, name) else 0


# ---------------------------------------------------------------- the procedures


def prepare_action(game: Game, card: CardInstance, call: CheckCall) -> ActionCheck:
    """A plain action check; an attack on an incapacitated target has its own difficulty."""
    difficulty = amount(game, call, "difficulty")
    helpless = call.params.get("helpless")
    target = game.state.target
    if isinstance(helpless, int) and target is not None and incapacitated(game, target):
        difficulty = helpless
    return action_check(game, call, game.actor, amount(game, call, "score"), difficulty)


def _wounded(game: Game, call: CheckCall) -> Actor:
    """Whose death check it is: the actor the rule names, else whoever acts."""
    named = patient_of(game, call) if call.arg("patient") else None
    return named or game.actor


def prepare_death(game: Game, card: CardInstance, call: CheckCall) -> ActionCheck:
    """The wounded character's attribute for the wound's type against every wound they have."""
    table = injuries(game.rules)
    wounded = _wounded(game, call)
    score = _stat(game, _attribute(game, str(call.arg("vitality"))), wounded)
    difficulty = table.wounds(wounded)
    return action_check(game, call, wounded, score, difficulty, wounded, action=False)


def settle_death(
    game: Game, card: CardInstance, call: CheckCall, check: ActionCheck, rolled: Rolled
) -> None:
    """A failed death check: the character collapses and is dying."""
    if rolled.result == check.failed:
        game.state.count(DEATH_CHECKS_FAILED)
        start_dying(game, _wounded(game, call), str(call.arg("vitality")))


def start_dying(game: Game, actor: Actor, vitality: str) -> None:
    """Dying for as many rounds as the attribute that heals that type of wound; counted from
    the next round (a new failure while dying never gives more time)."""
    table = injuries(game.rules)
    if not has(actor, table.dying):
        return
    rounds = max(_stat(game, _attribute(game, vitality), actor), 1)
    left = actor.stats.get(table.dying)
    if left:
        rounds = min(rounds, left)
    actor.bonuses = [b for b in actor.bonuses if b[0] != DYING_SINCE]
    actor.bonuses.append((DYING_SINCE, game.state.round))
    game.event("dying", f"{actor.name} collapses, dying: {rounds} rounds left", actor=actor.name)
    game.change(table.dying, rounds - left, actor)


def prepare_stabilise(game: Game, card: CardInstance, call: CheckCall) -> ActionCheck:
    """The healer's intellect (the params' score) against the target's total wounds."""
    patient = game.state.target
    difficulty = injuries(game.rules).wounds(patient) if patient is not None else 0
    score = amount(game, call, "score")
    return action_check(game, call, game.actor, score, difficulty, patient, needs_patient=True)


def settle_stabilise(
    game: Game, card: CardInstance, call: CheckCall, check: ActionCheck, rolled: Rolled
) -> None:
    """A success stops the dying; the patient stays unconscious until the encounter ends."""
    patient = patient_of(game, call)
    if patient is None or rolled.result != check.passed:
        return
    table = injuries(game.rules)
    left = actor_dying(game, patient)
    if left:
        game.change(table.dying, -left, patient)
        patient.bonuses = [b for b in patient.bonuses if b[0] != DYING_SINCE]
    game.state.flags.add(f"{UNCONSCIOUS}:{patient.name}")
    game.state.count(STABILISED)
    game.event("stabilise", f"{patient.name} is stable, unconscious until the encounter ends")


def actor_dying(game: Game, actor: Actor) -> int:
    """The rounds a dying actor has left (0: not dying)."""
    dying = injuries(game.rules).dying
    return actor.stats.get(dying) if has(actor, dying) else 0


def _heal_patient(game: Game, call: CheckCall) -> Actor | None:
    return game.actor if call.arg("patient") else game.state.target


def prepare_heal(game: Game, card: CardInstance, call: CheckCall) -> ActionCheck:
    """Intellect against 6 + the patient's wounds of the type and the modifiers."""
    healer, patient = game.actor, _heal_patient(game, call)
    vitality = str(call.arg("vitality"))
    params = call.params
    difficulty = int(params.get("base", 6)) + _stat(game, _wound_stat(game, vitality), patient)
    if patient is healer:
        difficulty += int(params.get("self_care", 1))
    tools = [w for value in carried_properties(healer, HEALS) for w in _words(value)]
    if vitality not in tools:
        difficulty += int(params.get("no_tools", 0))
    unfit = environment_property(game, UNFIT)
    if unfit is not None and vitality in _words(unfit):
        difficulty += int(params.get("unfit_place", 0))
    score = amount(game, call, "score")
    chart = [str(step) for step in params.get("chart") or ()]
    span, base = call.arg("span"), params.get("base_time")
    if span in chart and base in chart:
        moves = chart.index(span) - chart.index(base)
        score, difficulty = score + max(moves, 0), difficulty + max(-moves, 0)
    return action_check(game, call, healer, score, difficulty, patient, needs_patient=True)


def settle_heal(
    game: Game, card: CardInstance, call: CheckCall, check: ActionCheck, rolled: Rolled
) -> None:
    """A success heals one wound of the type, whatever the margin."""
    patient = _heal_patient(game, call)
    heal_one(game, patient, str(call.arg("vitality")), rolled.result == check.passed)


def heal_one(game: Game, patient: Actor | None, vitality: str, passed: bool) -> None:
    """One wound of the type less, on a success."""
    stat = _wound_stat(game, vitality)
    if passed and patient is not None and has(patient, stat) and patient.stats.get(stat) > 0:
        game.change(stat, -1, patient)


def prepare_natural(game: Game, card: CardInstance, call: CheckCall) -> ActionCheck:
    """The type's attribute against its wounds and what harsh places and conditions add."""
    actor = game.actor
    vitality = str(call.arg("vitality"))
    harsh = [environment_property(game, HARSH), *carried_properties(actor, HARSH)]
    difficulty = _stat(game, _wound_stat(game, vitality), actor) + sum(
        value for value in harsh if isinstance(value, int)
    )
    score = _stat(game, _attribute(game, vitality), actor)
    return action_check(game, call, actor, score, difficulty, actor, action=False)


def settle_natural(
    game: Game, card: CardInstance, call: CheckCall, check: ActionCheck, rolled: Rolled
) -> None:
    """A success heals one wound of the type."""
    heal_one(game, game.actor, str(call.arg("vitality")), rolled.result == check.passed)


# ---------------------------------------------------------------- validation and reading


def _validate_injuries(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    table = params.get("vitality")
    if table is not None:
        entries = table.items() if isinstance(table, dict) else []
        if not entries:
            problems.append("vitality maps each vitality stat to {wounds: STAT, attribute: STAT}")
        for name, entry in entries:
            fields = entry if isinstance(entry, dict) else {}
            for stat in (name, fields.get("wounds"), fields.get("attribute")):
                if stat not in stats:
                    problems.append(f"vitality {name!r}: {stat!r} is not a stat")
    if "dying" in params and params["dying"] not in stats:
        problems.append(f"dying names a stat, not {params['dying']!r}")
    dice = params.get("dice")
    if dice is not None:
        good = isinstance(dice, dict) and bool(dice)
        for score, sides in dice.items() if good else []:
            good = good and str(score).lstrip("-").isdigit()
            good = good and isinstance(sides, int) and not isinstance(sides, bool)
            good = good and 2 <= sides <= 1000
        if not good:
            problems.append("dice maps action scores to dice sides, from 2 to 1000")
    return problems


def _validate_heal(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    for key in ("base", "self_care", "no_tools", "unfit_place"):
        value = params.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 30:
            problems.append(f"{key} is a difficulty modifier from 0 to 30, not {value!r}")
    chart = params.get("chart") or []
    if not isinstance(chart, list) or params.get("base_time", "hour") not in chart:
        problems.append("chart lists the time chart's steps, shortest first, base_time among them")
    return problems


def _validate_amount_stats(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    for key in ("score", "difficulty"):
        for part in params.get(key) or []:
            if isinstance(part, bool) or not isinstance(part, int | str):
                problems.append(f"{key} adds up slots, stats and numbers, not {part!r}")
    return problems


def _score_read(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> list[str]:
    """The stats a healer's score adds up."""
    return [p for p in params.get("score") or [] if isinstance(p, str) and p in rules.stat_names]


def _attribute_read(
    params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView
) -> list[str]:
    """The attribute a death or natural healing check rolls, by the type its phrase names."""
    table = params.get("vitality") or {}
    entry = table.get(str(args.get("vitality"))) if isinstance(table, dict) else None
    attribute = entry.get("attribute") if isinstance(entry, dict) else None
    attribute = attribute or VITALITY.get(str(args.get("vitality")), ("", ""))[1]
    return [attribute] if attribute in rules.stat_names else []


def _procedure(
    prepare: Callable[[Game, CardInstance, CheckCall], ActionCheck],
    settle: Callable[[Game, CardInstance, CheckCall, ActionCheck, Rolled], None] | None,
    validate: Callable[[Mapping[str, Any], Collection[str]], list[str]],
    stats: Callable[[Mapping[str, Any], Mapping[str, Any], RulesView], list[str]] | None = None,
) -> CheckProcedure:
    extra: dict[str, Any] = {"stats": stats} if stats is not None else {}
    return CheckProcedure(
        prepare,
        roll_action,
        action_odds,
        settle=settle,
        validate=validate,
        results=frozenset({"named"}),
        **extra,
    )


CHECKS = {
    "cool-name-action": _procedure(prepare_action, None, _validate_amount_stats),
    DEATH: _procedure(prepare_death, settle_death, _validate_injuries, _attribute_read),
    "cool-name-stabilise": _procedure(
        prepare_stabilise, settle_stabilise, _validate_amount_stats, _score_read
    ),
    "cool-name-heal": _procedure(prepare_heal, settle_heal, _validate_heal, _score_read),
    NATURAL: _procedure(prepare_natural, settle_natural, _validate_injuries, _attribute_read),
}
"""The module's check procedures, by the names a ruleset's `procedure:` gives."""
