"""Lobotomy's dice: the attack test, the imagination, search and unlocking tests, the stomp.

Each procedure is rolled with a `DiceSource` (a `Rolled` value: the outcome, every face the
source gave in order, and the log line) and has an exact distribution, outcome -> `Fraction`,
that sums to 1 and leaves the impossible outcomes out. The line numbers below are those of the
rulebook's text; where it is silent, the reading taken
is said here, and the numbers it leaves open are parameters with a default.

The attack test (lines 621-755, 835-837, 843, 1107):
- A die succeeds when its face plus the bonus to attack rolls meets the attack rating (AR k+).
  Nothing else makes a success or a failure: the page knows no automatic 1 or 6, so a natural 6
  under a penalty can fail and a natural 1 with a bonus can succeed.
- A Chaos Die's skulls are successes that are no natural 6s (837); its "+1" face adds 1 to every
  attack die of the attack (835), and several such faces add up. The page says one face is the
  "+1" and the example of line 859 shows a face of two skulls, but not what the other faces
  show: `CHAOS_FACES` reads blank, blank, 1 skull, 1 skull, 2 skulls, +1 (a designer value,
  docs/readings.md#lobotomy-chaos-and-defense-dice; `Attack.chaos_faces` takes another die).
- The Defense Die's shields add to the target's Defense for the attack (843). The page does not
  say its faces; line 865 shows three shields: `DEFENSE_FACES` reads 0, 1, 1, 2, 2, 3 shields.
- Defense is modified after the shields are added (865: 1 + 1 + 3 shields, less 1 for Fire, is
  4): Fire takes 1 off; Holy against an ethereal target and Ghostly against a non-ethereal one
  make it 0, shields and all (689-691: "for the purposes of this attack"); never below 0.
- Defense takes the successes that are no natural 6s first, skulls among them (755: "starting
  with the lowest results"; the examples of lines 747 and 753 come to 2 damage each). With
  Precision natural 6s pass Defense (745); with Critical each natural 6 that passes deals 2.
- Avoidance (x): each point of damage that passes Defense is rolled for on a d6, and prevented
  on x or more (1107), the two points of a critical 6 separately.
- The dice are asked of the source in this order: each target's Defense Dice (rolled before the
  attack, 843), the attack dice, the Chaos Dice (rolled with them, 835), then each target's
  Avoidance dice. A Chaos or Defense Die is a die of as many sides as it has faces.
- An AoE attack of a character (737) is one roll whose successes are reduced by the highest
  Defense on the space, after modification; the outcome is the damage the attacker shares out
  (739, a decision, not dice), so Avoidance is left to each monster's share (`roll_avoidance`).
  A monster's AoE attack (811) is one roll that each target reduces by its own Defense: the
  outcome is the damage to each target, in order.
- A weapon wears when any attack die shows a natural 1 (659, 859): `attack_wear_distribution`
  gives (damage, rolled a 1) jointly. Chaos, Defense and Avoidance dice never wear it.

The imagination test (345) passes on 2d6 at most imagination + modifier. Insomnia Shift - Defy
Gravity (894) may then turn one of the two dice up or down by 1, at the cost of moving the
Warden; that is a decision after the roll, the game's (`lobotomy_clash`): with it a roll of
one over the value passes too (898: 2 and 6 against 7, the 6 made a 5).

The search test (480) and the unlocking test (946) roll imagination-many d6, each 4 or more a
success. A search passes when the successes buy at least one card on the token (484); an
unlocking test when they reach the lock's strength, plus 1 for each earlier attempt of the same
character this turn (950-952). The Warden's stomp (906) rolls the Chaos Die twice: a point of
damage per skull, prevented by nothing; its "+1" face does nothing, as there are no other dice.

Outcomes are enumerated by how many dice show each kind of face (multinomial counts over face
classes, never every tuple of faces), in integers over one denominator per table, so that a
test of 20 attack dice with every modifier takes some 20 ms, worked out cold.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb

from runtime.dice import DiceError, DiceSource, roll_dice
from runtime.distributions import ranges_probability, sum_distribution

SIDES = 6
"""Attack, imagination and Avoidance dice are d6."""

MAX_DICE = 60
"""The most attack dice an attack rolls, and the most d6 a search or unlocking test rolls, as
`runtime.dice.MAX_POOL_DICE` for pools: a character has an imagination of about 7 and a weapon
a handful of dice (an AoE of five monsters 20), so past this a runaway is refused, not rolled."""

MAX_SPECIAL_DICE = 10
"""The most Chaos Dice an attack or a stomp rolls, and the most Defense Dice a target rolls.
The rules give one of each (835, 843), some cards a few more; their faces multiply the tables,
so the cap is lower than for d6s (60 attack dice, 10 of each and Avoidance: half a second)."""

MAX_TARGETS = 60
"""The most targets one AoE attack may have."""

MAX_FACES = 20
"""The most faces a Chaos or Defense Die given as a parameter may have."""

MAX_FACE_VALUE = 6
"""The most skulls, shields or bonus (either way) one face of such a die may show."""

MAX_DAMAGE = 2 * MAX_DICE + MAX_SPECIAL_DICE * MAX_FACE_VALUE
"""The most damage one attack can deal: every attack die a critical 6, every Chaos Die its most
skulls. Avoidance is rolled for no more points than this."""

FIRE = 1
"""What Fire takes off the target's Defense (687)."""

EACH_TARGET_WORK = 1_000_000
"""The most steps the joint table of a monster's AoE attack may take (each a joint outcome met
with one value of a target's Defense or Avoidance) before it is refused: about a second."""


class TooManyDice(DiceError, ValueError):
    """A test of more dice, or more targets, than any test of the game may roll."""

    def __init__(self, label: str, dice: int, most: int) -> None:
        super().__init__(label, dice, most)
        self.label, self.dice, self.most = label, dice, most

    def __str__(self) -> str:
        return f"{self.label}: {self.dice} is more than the {self.most} a test may have"


class TooManyOutcomes(DiceError, ValueError):
    """An AoE attack whose targets' own dice make more joint outcomes than are worked out."""

    def __init__(self, work: int) -> None:
        super().__init__(work)
        self.work = work

    def __str__(self) -> str:
        return (
            f"the attack's joint table would take over {self.work} steps, more than the "
            f"{EACH_TARGET_WORK} its odds may take"
        )


def _checked(count: int, most: int, label: str) -> int:
    """Dice to roll: none for a count under one; TooManyDice past `most`."""
    if count > most:
        raise TooManyDice(label, count, most)
    return max(count, 0)


@dataclass(frozen=True)
class ChaosFace:
    """One face of the Chaos Die: skulls (successes) and a bonus to the attack's other dice."""

    skulls: int = 0
    bonus: int = 0

    @property
    def label(self) -> str:
        """How the log shows it: `2 skulls`, `+1`, `blank`."""
        parts = [_count(self.skulls, "skull", "skulls")] if self.skulls else []
        if self.bonus:
            parts.append(f"{self.bonus:+d}")
        return " and ".join(parts) or "blank"


CHAOS_FACES = (
    ChaosFace(),
    ChaosFace(),
    ChaosFace(skulls=1),
    ChaosFace(skulls=1),
    ChaosFace(skulls=2),
    ChaosFace(bonus=1),
)
"""The Chaos Die, in face order (face 5 is 2 skulls, face 6 the +1): a designer's reading."""

DEFENSE_FACES = (0, 1, 1, 2, 2, 3)
"""The shields on each face of the Defense Die, in face order: a designer's reading."""


@dataclass(frozen=True)
class Attack:
    """An attack test's dice and what modifies them."""

    dice: int
    rating: int  # AR k+: a die succeeds on k or more, bonus included
    bonus: int = 0  # to attack rolls, added to every attack die
    chaos_dice: int = 0
    fire: bool = False
    holy: bool = False
    ghostly: bool = False
    precision: bool = False
    critical: bool = False
    chaos_faces: tuple[ChaosFace, ...] = CHAOS_FACES

    def __post_init__(self) -> None:
        _check_faces(
            "Chaos Die",
            [v for f in self.chaos_faces for v in (f.skulls, abs(f.bonus))],
            len(self.chaos_faces),
        )


@dataclass(frozen=True)
class Target:
    """What an attack meets: Defense, Defense Dice rolled against it, Avoidance."""

    defense: int = 0
    ethereal: bool = False
    defense_dice: int = 0
    avoidance: int | None = None  # Avoidance (x): a point is prevented on x or more
    defense_faces: tuple[int, ...] = DEFENSE_FACES

    def __post_init__(self) -> None:
        _check_faces("Defense Die", self.defense_faces, len(self.defense_faces))


def _check_faces(die: str, values: Iterable[int], faces: int) -> None:
    """Refuse a die of no faces or too many, or a face showing less than 0 or too much."""
    if not 1 <= faces <= MAX_FACES:
        raise ValueError(f"a {die} has 1 to {MAX_FACES} faces, not {faces}")
    if any(not 0 <= value <= MAX_FACE_VALUE for value in values):
        raise ValueError(f"a face of a {die} shows 0 to {MAX_FACE_VALUE} of a symbol, no more")


@dataclass(frozen=True)
class Rolled:
    """A test rolled: its outcome (damage, successes, or 1 for a test passed), every face the
    source gave, in order, and the log line. Not generic: mypyc compiles no generic class."""

    outcome: int
    faces: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class AttackRolled(Rolled):
    """An attack test rolled, and whether an attack die showed a natural 1 (the weapon wears)."""

    rolled_a_one: bool = False


@dataclass(frozen=True)
class EachRolled:
    """A monster's AoE attack rolled: the damage to each target, the faces, the log line, and
    whether an attack die showed a natural 1."""

    outcome: tuple[int, ...]
    faces: tuple[int, ...]
    text: str
    rolled_a_one: bool = False


class _Recording:
    """A source that keeps every face it gives, so a result can show them all."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        """One die's face, from 1 to `sides`, kept."""
        face = self.source.roll(sides)
        self.faces.append(face)
        return face

    def many(self, count: int, sides: int) -> list[int]:
        """`count` dice of `sides` sides."""
        return [self.roll(sides) for _ in range(count)]


# --- the attack test, face by face -------------------------------------------------------------


def _threshold(rating: int, bonus: int) -> int:
    """The least natural face that succeeds, kept to 1..7 (7: none does)."""
    return min(max(rating - bonus, 1), SIDES + 1)


def _damage(plain: int, sixes: int, defense: int, attack: Attack) -> int:
    """Damage past Defense, which takes the successes that are no natural 6s first (755)."""
    plain_through = max(plain - defense, 0)
    sixes_through = sixes if attack.precision else max(sixes - max(defense - plain, 0), 0)
    return plain_through + (2 if attack.critical else 1) * sixes_through


def _defense(total: int, target: Target, attack: Attack) -> int:
    """The target's Defense against this attack, shields added: Holy, Ghostly, then Fire."""
    if (attack.holy and target.ethereal) or (attack.ghostly and not target.ethereal):
        return 0
    return max(total - (FIRE if attack.fire else 0), 0)


@dataclass(frozen=True)
class _Throw:
    """The dice of one attack roll, rolled: shields per target, then what succeeded."""

    shields: tuple[int, ...]
    plain: int  # successes that are no natural 6s: other faces and skulls
    sixes: int  # natural 6s that succeeded
    rolled_a_one: bool
    text: str


def _throw(attack: Attack, targets: Sequence[Target], source: _Recording) -> _Throw:
    """Roll the Defense Dice, the attack dice and the Chaos Dice, in that order."""
    dice = _checked(attack.dice, MAX_DICE, "attack dice")
    chaos = _checked(attack.chaos_dice, MAX_SPECIAL_DICE, "Chaos Dice")
    parts = []
    shields = []
    for number, target in enumerate(targets, 1):
        count = _checked(target.defense_dice, MAX_SPECIAL_DICE, "Defense Dice")
        shown = [target.defense_faces[f - 1] for f in source.many(count, len(target.defense_faces))]
        shields.append(sum(shown))
        if count:
            whose = f" of target {number}" if len(targets) > 1 else ""
            labels = ", ".join(_count(s, "shield", "shields") for s in shown)
            parts.append(f"defense die{whose}: {labels}")
    faces = source.many(dice, SIDES)
    chaos_faces = [attack.chaos_faces[f - 1] for f in source.many(chaos, len(attack.chaos_faces))]
    bonus = attack.bonus + sum(face.bonus for face in chaos_faces)
    least = _threshold(attack.rating, bonus)
    sixes = sum(1 for f in faces if f == SIDES and f >= least)
    plain = sum(1 for f in faces if f != SIDES and f >= least)
    plain += sum(face.skulls for face in chaos_faces)
    rolled = (
        f"attack {dice}d{SIDES} (AR {attack.rating}+{_plus(attack.bonus)}): "
        f"{_faces(faces) or 'no dice'}"
    )
    if chaos_faces:
        rolled += f"; chaos: {', '.join(face.label for face in chaos_faces)}"
    rolled += f" → {_count(plain + sixes, 'success', 'successes')}"
    if sixes and (attack.precision or attack.critical):
        rolled += f" ({_count(sixes, 'natural 6', 'natural 6s')})"
    parts.append(rolled)
    return _Throw(tuple(shields), plain, sixes, 1 in faces, "; ".join(parts))


def _defense_text(total: int, target: Target, attack: Attack) -> str:
    """`defense 5, 4 against fire`: the Defense, and what the attack made of it."""
    effective = _defense(total, target, attack)
    if attack.holy and target.ethereal:
        why = "a holy attack"
    elif attack.ghostly and not target.ethereal:
        why = "a ghostly attack"
    elif attack.fire and total > 0:
        why = "fire"
    else:
        return f"defense {effective}"
    return f"defense {total}, {effective} against {why}"


def _avoid(damage: int, avoidance: int | None, source: _Recording) -> tuple[int, str]:
    """Damage left after Avoidance, each point rolled for, and the log's words."""
    if avoidance is None or damage == 0:
        return damage, ""
    faces = source.many(damage, SIDES)
    avoided = sum(1 for f in faces if f >= avoidance)
    return damage - avoided, f"; avoidance {avoidance}+: {_faces(faces)} → {avoided} avoided"


def roll_attack(attack: Attack, target: Target, source: DiceSource) -> AttackRolled:
    """Roll an attack test against one target: the damage dealt."""
    recording = _Recording(source)
    thrown = _throw(attack, (target,), recording)
    total = target.defense + thrown.shields[0]
    dealt = _damage(thrown.plain, thrown.sixes, _defense(total, target, attack), attack)
    damage, avoided = _avoid(dealt, target.avoidance, recording)
    text = f"{thrown.text}; {_defense_text(total, target, attack)}{avoided} → {damage} damage"
    return AttackRolled(damage, tuple(recording.faces), text, thrown.rolled_a_one)


def roll_area_attack(attack: Attack, targets: Sequence[Target], source: DiceSource) -> AttackRolled:
    """Roll a character's AoE attack (737): the damage to share out among the targets."""
    _checked(len(targets), MAX_TARGETS, "AoE targets")
    recording = _Recording(source)
    thrown = _throw(attack, targets, recording)
    defenses = [
        _defense(target.defense + shields, target, attack)
        for target, shields in zip(targets, thrown.shields, strict=True)
    ]
    highest = max(defenses, default=0)
    damage = _damage(thrown.plain, thrown.sixes, highest, attack)
    text = f"{thrown.text}; highest defense {highest} → {damage} damage to share"
    return AttackRolled(damage, tuple(recording.faces), text, thrown.rolled_a_one)


def roll_attack_on_each(
    attack: Attack, targets: Sequence[Target], source: DiceSource
) -> EachRolled:
    """Roll a monster's AoE attack (811): the damage to each target, by its own Defense."""
    _checked(len(targets), MAX_TARGETS, "AoE targets")
    recording = _Recording(source)
    thrown = _throw(attack, targets, recording)
    damages, parts = [], [thrown.text]
    for number, (target, shields) in enumerate(zip(targets, thrown.shields, strict=True), 1):
        total = target.defense + shields
        dealt = _damage(thrown.plain, thrown.sixes, _defense(total, target, attack), attack)
        damage, avoided = _avoid(dealt, target.avoidance, recording)
        damages.append(damage)
        defense = _defense_text(total, target, attack)
        parts.append(f"target {number}: {defense}{avoided} → {damage} damage")
    return EachRolled(tuple(damages), tuple(recording.faces), "; ".join(parts), thrown.rolled_a_one)


def roll_avoidance(damage: int, avoidance: int, source: DiceSource) -> Rolled:
    """Roll Avoidance (x) for each point of damage (1107): the damage left."""
    recording = _Recording(source)
    left, text = _avoid(_checked(damage, MAX_DAMAGE, "damage"), avoidance, recording)
    return Rolled(left, tuple(recording.faces), f"{damage} damage{text} → {left} damage")


# --- the attack test, exactly -------------------------------------------------------------------

_Ways = tuple[tuple[tuple[int, ...], int], ...]
"""Outcome -> ways, as pairs; the denominator is known from how the table was made."""


@lru_cache(maxsize=256)
def _face_sums(count: int, faces: tuple[tuple[int, ...], ...]) -> _Ways:
    """Ways (among len(faces)**count) `count` dice add up to each sum of their faces' vectors."""
    kinds = Counter(faces)
    ways: dict[tuple[int, ...], int] = {tuple(0 for _ in faces[0]): 1}
    for _ in range(count):
        grown: dict[tuple[int, ...], int] = {}
        for total, number in ways.items():
            for face, times in kinds.items():
                key = tuple(a + b for a, b in zip(total, face, strict=True))
                grown[key] = grown.get(key, 0) + number * times
        ways = grown
    return tuple(ways.items())


@lru_cache(maxsize=256)
def _attack_dice(dice: int, least: int) -> _Ways:
    """Ways (among 6**dice) the attack dice give (successes no 6s, natural 6 successes, any 1).

    A d6 is one of four classes: a 1, a 6, a middle face that succeeds, one that fails; the
    dice are counted by class, as a multinomial, never face by face.
    """
    middle_hits = sum(1 for face in range(2, SIDES) if face >= least)
    middle_misses = SIDES - 2 - middle_hits
    one_hits, six_hits = least <= 1, least <= SIDES
    ways: dict[tuple[int, ...], int] = {}
    for ones in range(dice + 1):
        for sixes in range(dice - ones + 1):
            rest = dice - ones - sixes
            head = comb(dice, ones) * comb(dice - ones, sixes)
            for hits in range(rest + 1):
                number = (
                    head * comb(rest, hits) * middle_hits**hits * middle_misses ** (rest - hits)
                )
                if number:
                    key = (hits + ones * one_hits, sixes * six_hits, int(ones > 0))
                    ways[key] = ways.get(key, 0) + number
    return tuple(ways.items())


@lru_cache(maxsize=256)
def _successes(
    dice: int, need: int, chaos: int, chaos_faces: tuple[ChaosFace, ...]
) -> tuple[_Ways, int]:
    """Ways the attack roll gives (plain successes, natural 6 successes, any 1), and out of how
    many; `need` is the rating less the bonus, before the Chaos Dice's."""
    by_least: dict[int, Counter[int]] = {}  # ways of the Chaos Dice: least face -> skulls -> ways
    for (skulls, bonus), number in _face_sums(
        chaos, tuple((f.skulls, f.bonus) for f in chaos_faces)
    ):
        by_least.setdefault(_threshold(need, bonus), Counter())[skulls] += number
    ways: Counter[tuple[int, ...]] = Counter()
    for least, skull_ways in by_least.items():
        for (plain, sixes, one), number in _attack_dice(dice, least):
            for skulls, chaos_number in skull_ways.items():
                ways[plain + skulls, sixes, one] += number * chaos_number
    return tuple(ways.items()), SIDES**dice * len(chaos_faces) ** chaos


def _attack_successes(attack: Attack) -> tuple[_Ways, int]:
    dice = _checked(attack.dice, MAX_DICE, "attack dice")
    chaos = _checked(attack.chaos_dice, MAX_SPECIAL_DICE, "Chaos Dice")
    return _successes(dice, attack.rating - attack.bonus, chaos, attack.chaos_faces)


def _defense_ways(target: Target, attack: Attack) -> tuple[dict[int, int], int]:
    """Ways (and out of how many) the target's Defense against the attack is each value."""
    count = _checked(target.defense_dice, MAX_SPECIAL_DICE, "Defense Dice")
    ways: Counter[int] = Counter()
    for (shields,), number in _face_sums(count, tuple((s,) for s in target.defense_faces)):
        ways[_defense(target.defense + shields, target, attack)] += number
    return dict(ways), len(target.defense_faces) ** count


def _highest_defense_ways(targets: Sequence[Target], attack: Attack) -> tuple[dict[int, int], int]:
    """Ways (and out of how many) the highest Defense among the targets is each value."""
    _checked(len(targets), MAX_TARGETS, "AoE targets")
    highest, out_of = {0: 1}, 1
    for target in targets:
        ways, every = _defense_ways(target, attack)
        grown: Counter[int] = Counter()
        for a, first in highest.items():
            for b, second in ways.items():
                grown[max(a, b)] += first * second
        highest, out_of = dict(grown), out_of * every
    return highest, out_of


def _wear_table(
    attack: Attack, defenses: tuple[dict[int, int], int], avoidance: int | None
) -> dict[tuple[int, bool], Fraction]:
    """P(damage, rolled a 1) for an attack roll against a Defense of the given ways."""
    successes, out_of = _attack_successes(attack)
    defense_ways, every = defenses
    ways: Counter[tuple[int, int]] = Counter()
    for (plain, sixes, one), number in successes:
        for defense, defense_number in defense_ways.items():
            ways[_damage(plain, sixes, defense, attack), one] += number * defense_number
    table: defaultdict[tuple[int, bool], Fraction] = defaultdict(Fraction)
    for (damage, one), number in ways.items():
        p = Fraction(number, out_of * every)
        for left, q in _avoidance_table(damage, avoidance):
            table[left, bool(one)] += p * q
    return dict(table)


@lru_cache(maxsize=256)
def _avoidance_table(damage: int, avoidance: int | None) -> tuple[tuple[int, Fraction], ...]:
    """P(damage left) after Avoidance: each point prevented on `avoidance` or more."""
    if avoidance is None:
        return ((damage, Fraction(1)),)
    stops = min(max(SIDES + 1 - avoidance, 0), SIDES)
    every = SIDES**damage
    return tuple(
        (
            damage - avoided,
            Fraction(
                comb(damage, avoided) * stops**avoided * (SIDES - stops) ** (damage - avoided),
                every,
            ),
        )
        for avoided in range(damage + 1)
        if stops**avoided * (SIDES - stops) ** (damage - avoided)
    )


@lru_cache(maxsize=256)
def _single(attack: Attack, target: Target) -> tuple[tuple[tuple[int, bool], Fraction], ...]:
    table = _wear_table(attack, _defense_ways(target, attack), target.avoidance)
    return tuple(sorted(table.items()))


def attack_wear_distribution(attack: Attack, target: Target) -> dict[tuple[int, bool], Fraction]:
    """P(damage dealt, an attack die showed a natural 1) of an attack test on one target."""
    return dict(_single(attack, target))


def attack_distribution(attack: Attack, target: Target) -> dict[int, Fraction]:
    """P(damage dealt) of an attack test on one target, Defense Dice and Avoidance included."""
    return _damage_only(_single(attack, target))


@lru_cache(maxsize=256)
def _area(
    attack: Attack, targets: tuple[Target, ...]
) -> tuple[tuple[tuple[int, bool], Fraction], ...]:
    table = _wear_table(attack, _highest_defense_ways(targets, attack), None)
    return tuple(sorted(table.items()))


def area_wear_distribution(
    attack: Attack, targets: Sequence[Target]
) -> dict[tuple[int, bool], Fraction]:
    """P(damage to share out, an attack die showed a 1) of a character's AoE attack (737)."""
    return dict(_area(attack, tuple(targets)))


def area_distribution(attack: Attack, targets: Sequence[Target]) -> dict[int, Fraction]:
    """P(damage to share out) of a character's AoE attack (737), before anyone's Avoidance."""
    return _damage_only(_area(attack, tuple(targets)))


def _damage_only(table: Iterable[tuple[tuple[int, bool], Fraction]]) -> dict[int, Fraction]:
    found: defaultdict[int, Fraction] = defaultdict(Fraction)
    for (damage, _), p in table:
        found[damage] += p
    return dict(sorted(found.items()))


def each_target_distribution(
    attack: Attack, targets: Sequence[Target]
) -> dict[tuple[int, ...], Fraction]:
    """P(damage to each target) of a monster's AoE attack (811): one roll, each target's own
    Defense Dice, Defense and Avoidance (TooManyOutcomes if the joint table is too large)."""
    return dict(_each(attack, tuple(targets)))


@lru_cache(maxsize=64)
def _each(
    attack: Attack, targets: tuple[Target, ...]
) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The joint table, built target by target: first the damage each takes past its Defense,
    keyed by the roll while targets are left to add, then each target's Avoidance."""
    _checked(len(targets), MAX_TARGETS, "AoE targets")
    successes, out_of = _attack_successes(attack)
    split = attack.precision or attack.critical  # else only the successes' sum matters
    table: Counter[tuple[int, ...]] = Counter()  # (plain, sixes, damage of each target so far)
    for (plain, sixes, _), number in successes:  # whether a 1 showed does not matter here
        table[(plain, sixes) if split else (plain + sixes, 0)] += number
    work = _Work()
    for target in targets:
        ways, every = _defense_ways(target, attack)
        work.add(len(table) * len(ways))
        grown: Counter[tuple[int, ...]] = Counter()
        for key, number in table.items():
            for defense, defense_number in ways.items():
                dealt = _damage(key[0], key[1], defense, attack)
                grown[(*key, dealt)] += number * defense_number
        table, out_of = grown, out_of * every
    joint: dict[tuple[int, ...], Fraction] = {}
    for key, number in table.items():
        joint[key[2:]] = joint.get(key[2:], Fraction(0)) + Fraction(number, out_of)
    for index, target in enumerate(targets):
        if target.avoidance is None:
            continue
        work.add(sum(damages[index] + 1 for damages in joint))
        avoided: defaultdict[tuple[int, ...], Fraction] = defaultdict(Fraction)
        for damages, p in joint.items():
            for left, q in _avoidance_table(damages[index], target.avoidance):
                avoided[(*damages[:index], left, *damages[index + 1 :])] += p * q
        joint = avoided
    return tuple(sorted(joint.items()))


class _Work:
    """Steps taken so far by a table that may grow large; TooManyOutcomes past the budget."""

    def __init__(self) -> None:
        self.steps = 0

    def add(self, steps: int) -> None:
        """Count the steps about to be taken, refusing them past `EACH_TARGET_WORK`."""
        self.steps += steps
        if self.steps > EACH_TARGET_WORK:
            raise TooManyOutcomes(self.steps)


def avoidance_distribution(damage: int, avoidance: int) -> dict[int, Fraction]:
    """P(damage left) once Avoidance (x) is rolled for each point of `damage` (1107)."""
    return dict(_avoidance_table(_checked(damage, MAX_DAMAGE, "damage"), avoidance))


# --- the imagination, search and unlocking tests, and the stomp ---------------------------------

IMAGINATION_DICE = 2
"""An imagination test rolls 2d6 (347)."""

IMAGINATION_SUCCESS = 4
"""A search or unlocking test's die succeeds on 4, 5 or 6 (482, 948)."""


def roll_imagination(imagination: int, source: DiceSource, modifier: int = 0) -> Rolled:
    """Roll an imagination test (345): passed (outcome 1) on 2d6 at most imagination +
    modifier."""
    roll = roll_dice(IMAGINATION_DICE, SIDES, source)
    passed = roll.total <= imagination + modifier
    text = (
        f"imagination test ({imagination + modifier} or less): {_faces(roll.faces)} → "
        f"{roll.total}, {'passed' if passed else 'failed'}"
    )
    return Rolled(int(passed), roll.faces, text)


def imagination_distribution(imagination: int, modifier: int = 0) -> dict[bool, Fraction]:
    """P(passed) of an imagination test (345)."""
    passed = ranges_probability(
        sum_distribution(IMAGINATION_DICE, SIDES), 0, imagination + modifier
    )
    return _pass_fail(passed)


def _pass_fail(passed: Fraction) -> dict[bool, Fraction]:
    return {outcome: p for outcome, p in ((True, passed), (False, 1 - passed)) if p}


def _roll_successes(imagination: int, source: _Recording, label: str) -> tuple[int, str]:
    dice = _checked(imagination, MAX_DICE, label)
    faces = source.many(dice, SIDES)
    successes = sum(1 for f in faces if f >= IMAGINATION_SUCCESS)
    shown = _faces(faces) or "nothing to roll"
    return (
        successes,
        f"{label} ({dice}d{SIDES}): {shown} → {_count(successes, 'success', 'successes')}",
    )


def roll_search(imagination: int, source: DiceSource) -> Rolled:
    """Roll a search test (480): the successes, imagination-many d6 at 4 or more."""
    recording = _Recording(source)
    successes, text = _roll_successes(imagination, recording, "search test")
    return Rolled(successes, tuple(recording.faces), text)


def search_distribution(imagination: int) -> dict[int, Fraction]:
    """P(successes) of a search test; an unlocking test's successes are the same."""
    return dict(_successes_table(_checked(imagination, MAX_DICE, "search test")))


@lru_cache(maxsize=128)
def _successes_table(dice: int) -> tuple[tuple[int, Fraction], ...]:
    hits = SIDES + 1 - IMAGINATION_SUCCESS
    every = SIDES**dice
    return tuple(
        (k, Fraction(comb(dice, k) * hits**k * (SIDES - hits) ** (dice - k), every))
        for k in range(dice + 1)
    )


def search_purchases(successes: int, costs: Mapping[str, int]) -> list[frozenset[str]]:
    """The most a search's successes can buy (482): each set of categories, one card of each,
    paid for separately, to which no other category could be added."""
    names = sorted(costs)
    affordable = [
        frozenset(chosen)
        for size in range(len(names), 0, -1)
        for chosen in combinations(names, size)
        if sum(costs[name] for name in chosen) <= successes
    ]
    return [s for s in affordable if not any(s < other for other in affordable)]


def search_passed(successes: int, costs: Mapping[str, int]) -> bool:
    """Whether a search passes (484): the successes buy at least one card on the token."""
    return any(cost <= successes for cost in costs.values())


def search_pass_distribution(imagination: int, costs: Mapping[str, int]) -> dict[bool, Fraction]:
    """P(passed) of a search of a token with those costs (a failed one spawns its monster)."""
    passed = sum(
        (p for k, p in search_distribution(imagination).items() if search_passed(k, costs)),
        Fraction(0),
    )
    return _pass_fail(passed)


def unlock_strength(strength: int, earlier_attempts: int) -> int:
    """The successes an unlocking test needs: 1 more per earlier attempt this turn (952)."""
    return strength + max(earlier_attempts, 0)


def roll_unlock(
    imagination: int, strength: int, source: DiceSource, earlier_attempts: int = 0
) -> Rolled:
    """Roll an unlocking test (946): opened (outcome 1) when the successes reach the lock's
    strength."""
    recording = _Recording(source)
    successes, text = _roll_successes(imagination, recording, "unlocking test")
    needed = unlock_strength(strength, earlier_attempts)
    opened = successes >= needed
    text += f" against strength {needed}, {'opened' if opened else 'still locked'}"
    return Rolled(int(opened), tuple(recording.faces), text)


def unlock_distribution(
    imagination: int, strength: int, earlier_attempts: int = 0
) -> dict[bool, Fraction]:
    """P(opened) of an unlocking test."""
    needed = unlock_strength(strength, earlier_attempts)
    return _pass_fail(ranges_probability(search_distribution(imagination), needed, None))


STOMP_ROLLS = 2
"""The Warden's stomp rolls the Chaos Die twice (906)."""


def roll_stomp(
    source: DiceSource, rolls: int = STOMP_ROLLS, faces: tuple[ChaosFace, ...] = CHAOS_FACES
) -> Rolled:
    """Roll the Warden's stomp (906): a point of damage per skull, prevented by nothing."""
    _check_faces("Chaos Die", [f.skulls for f in faces], len(faces))
    recording = _Recording(source)
    count = _checked(rolls, MAX_SPECIAL_DICE, "stomp")
    shown = [faces[f - 1] for f in recording.many(count, len(faces))]
    damage = sum(face.skulls for face in shown)
    text = f"stomp: {', '.join(face.label for face in shown) or 'nothing'} → {damage} damage"
    return Rolled(damage, tuple(recording.faces), text)


def stomp_distribution(
    rolls: int = STOMP_ROLLS, faces: tuple[ChaosFace, ...] = CHAOS_FACES
) -> dict[int, Fraction]:
    """P(damage) of the Warden's stomp."""
    _check_faces("Chaos Die", [f.skulls for f in faces], len(faces))
    count = _checked(rolls, MAX_SPECIAL_DICE, "stomp")
    every = len(faces) ** count
    found: Counter[int] = Counter()
    for (skulls,), number in _face_sums(count, tuple((f.skulls,) for f in faces)):
        found[skulls] += number
    return {damage: Fraction(number, every) for damage, number in sorted(found.items())}


def clear_caches() -> None:
    """Forget every cached table, so the next call is worked out cold (for timings)."""
    for cached in (
        _face_sums,
        _attack_dice,
        _successes,
        _avoidance_table,
        _single,
        _area,
        _each,
        _successes_table,
    ):
        cached.cache_clear()


def _faces(faces: Iterable[int]) -> str:
    return " ".join(map(str, faces))


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _plus(number: int) -> str:
    return f", {number:+d}" if number else ""
