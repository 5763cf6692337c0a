"""Lobotomy's dice: the rulebook's worked examples with forced faces, and the exact odds.

The odds are checked two ways against `runtime.games.lobotomy_dice`: against a brute force that
reads the rule as the page words it ("Defense always reduces successes starting with the lowest
results") over every tuple of faces, and against the roll functions themselves run on every
sequence of faces a source can give. Line numbers are those of the
rulebook's text.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.dice import DiceError, ForcedDice
from runtime.games.lobotomy_dice import (
    CHAOS_FACES,
    DEFENSE_FACES,
    EACH_TARGET_WORK,
    MAX_DICE,
    MAX_SPECIAL_DICE,
    Attack,
    AttackRolled,
    ChaosFace,
    Target,
    TooManyDice,
    TooManyOutcomes,
    area_distribution,
    area_wear_distribution,
    attack_distribution,
    attack_wear_distribution,
    avoidance_distribution,
    clear_caches,
    each_target_distribution,
    imagination_distribution,
    roll_area_attack,
    roll_attack,
    roll_attack_on_each,
    roll_avoidance,
    roll_imagination,
    roll_search,
    roll_stomp,
    roll_unlock,
    search_distribution,
    search_pass_distribution,
    search_passed,
    search_purchases,
    stomp_distribution,
    unlock_distribution,
)

TWO_SKULLS = CHAOS_FACES.index(ChaosFace(skulls=2)) + 1
PLUS_ONE = CHAOS_FACES.index(ChaosFace(bonus=1)) + 1
BLANK = CHAOS_FACES.index(ChaosFace()) + 1
THREE_SHIELDS = DEFENSE_FACES.index(3) + 1


def forced(*faces: int) -> ForcedDice:
    return ForcedDice(faces)


# --- the worked examples ------------------------------------------------------------------------


def test_fists_line_653() -> None:
    dice = forced(3, 5, 6)
    rolled = roll_attack(Attack(dice=3, rating=4), Target(defense=1), dice)
    assert rolled.outcome == 1 and dice.unused == []
    assert rolled.text == "attack 3d6 (AR 4+): 3 5 6 → 2 successes; defense 1 → 1 damage"


@pytest.mark.parametrize("faces", [(1, 3, 5, 6, 6), (1, 1, 3, 5, 6, 6)])
def test_steel_cross_holy_against_an_ethereal_monster_line_663(faces: tuple[int, ...]) -> None:
    # The page says 5D6 but lists six faces, "1, 1, 3, 5, 6 and 6": four successes either way.
    attack = Attack(dice=len(faces), rating=3, holy=True)
    rolled = roll_attack(attack, Target(defense=2, ethereal=True), ForcedDice(faces))
    assert rolled.outcome == 4
    assert rolled.rolled_a_one  # a durability token goes on the weapon (665)
    assert "defense 2, 0 against a holy attack" in rolled.text
    # Holy does nothing to a monster that is not ethereal.
    assert roll_attack(attack, Target(defense=2), ForcedDice(faces)).outcome == 2


def test_dragon_breath_aoe_with_fire_line_675() -> None:
    faces = (4, 5, 6, 4, 5, 6, 4, 1, 2, 3, 1, 2)  # 12d6, AR 4+: seven successes
    monsters = [Target(defense=1), Target(defense=0), Target(defense=1)]
    rolled = roll_area_attack(Attack(dice=12, rating=4, fire=True), monsters, ForcedDice(faces))
    assert rolled.outcome == 7
    assert rolled.text.endswith("highest defense 0 → 7 damage to share")
    # Without Fire the highest Defense, 1, takes one success from the whole roll.
    assert roll_area_attack(Attack(dice=12, rating=4), monsters, ForcedDice(faces)).outcome == 6


def test_precision_line_747() -> None:
    attack = Attack(dice=5, rating=5, precision=True)
    assert roll_attack(attack, Target(defense=2), forced(6, 6, 5, 2, 1)).outcome == 2
    # With +1 to attack rolls the 5 shows as a 6 but is no natural 6: Defense still stops it.
    plus_one = Attack(dice=5, rating=5, bonus=1, precision=True)
    assert roll_attack(plus_one, Target(defense=2), forced(6, 6, 5, 2, 1)).outcome == 2
    # Without Precision the two 6s do not pass: 3 successes less 2.
    assert (
        roll_attack(Attack(dice=5, rating=5), Target(defense=2), forced(6, 6, 5, 2, 1)).outcome == 1
    )


def test_critical_line_753() -> None:
    # Defense takes the 5 and one 6; the 6 left is natural and deals 2.
    rolled = roll_attack(
        Attack(dice=5, rating=5, critical=True), Target(defense=2), forced(6, 6, 5, 2, 1)
    )
    assert rolled.outcome == 2
    assert "(2 natural 6s)" in rolled.text
    # A 6 made of a 5 and +1 is no natural 6: against Defense 1 the natural 6s pass, 2 each.
    plus_one = Attack(dice=3, rating=5, bonus=1, critical=True)
    assert roll_attack(plus_one, Target(defense=1), forced(5, 6, 6)).outcome == 4


def test_chaos_die_skulls_line_859() -> None:
    dice = forced(6, 5, 2, 1, 1, TWO_SKULLS)
    rolled = roll_attack(Attack(dice=5, rating=5, chaos_dice=1), Target(defense=1), dice)
    assert rolled.outcome == 3 and dice.unused == []
    assert rolled.rolled_a_one  # the weapon loses a point of durability
    assert "chaos: 2 skulls → 4 successes" in rolled.text


def test_chaos_skulls_are_no_natural_sixes_line_837() -> None:
    attack = Attack(dice=2, rating=5, chaos_dice=1, critical=True, precision=True)
    # Against Defense 2 both skulls are stopped; the lone natural 6 passes and deals 2.
    assert roll_attack(attack, Target(defense=2), forced(6, 2, TWO_SKULLS)).outcome == 2


def test_chaos_plus_one_adds_to_every_other_die_line_835() -> None:
    attack = Attack(dice=4, rating=5, chaos_dice=1)
    assert roll_attack(attack, Target(), forced(4, 4, 3, 1, PLUS_ONE)).outcome == 2
    assert roll_attack(attack, Target(), forced(4, 4, 3, 1, BLANK)).outcome == 0
    two = Attack(dice=2, rating=6, chaos_dice=2)
    assert roll_attack(two, Target(), forced(4, 1, PLUS_ONE, PLUS_ONE)).outcome == 1


def test_defense_die_against_a_fire_attack_line_865() -> None:
    # 1 Defense, +1 from a skill, 3 shields: 5, less 1 for Fire: 4 against 4 successes.
    target = Target(defense=2, defense_dice=1)
    dice = forced(THREE_SHIELDS, 4, 4, 5, 5)
    rolled = roll_attack(Attack(dice=4, rating=4, fire=True), target, dice)
    assert rolled.outcome == 0 and dice.unused == []
    assert rolled.text.startswith("defense die: 3 shields; attack 4d6")
    assert "defense 5, 4 against fire → 0 damage" in rolled.text


def test_ghostly_makes_shields_useless_too() -> None:
    target = Target(defense=2, defense_dice=1)
    rolled = roll_attack(
        Attack(dice=2, rating=4, ghostly=True), target, forced(THREE_SHIELDS, 4, 5)
    )
    assert rolled.outcome == 2 and "0 against a ghostly attack" in rolled.text
    spirit = Target(defense=2, ethereal=True)
    assert roll_attack(Attack(dice=2, rating=4, ghostly=True), spirit, forced(4, 5)).outcome == 0


def test_monster_aoe_each_target_by_its_own_defense_line_813() -> None:
    characters = [Target(defense=1), Target(defense=3)]  # #2: 2 Defense and a +1 skill
    rolled = roll_attack_on_each(Attack(dice=5, rating=2), characters, forced(2, 2, 3, 4, 5))
    assert rolled.outcome == (4, 2)


def test_avoidance_per_point_and_per_critical_point_line_1107() -> None:
    attack = Attack(dice=2, rating=5, critical=True)
    # A 6 and a 5 pass Defense 0: three points, each rolled for against Avoidance 5.
    dice = forced(6, 5, 5, 1, 6)
    rolled = roll_attack(attack, Target(avoidance=5), dice)
    assert rolled.outcome == 1 and dice.unused == []
    assert "avoidance 5+: 5 1 6 → 2 avoided → 1 damage" in rolled.text
    assert roll_avoidance(3, 5, forced(5, 1, 6)).outcome == 1


def test_imagination_tests_lines_347_and_896() -> None:
    assert roll_imagination(9, forced(3, 4), modifier=-2).outcome  # 7 or lower passes
    assert not roll_imagination(9, forced(4, 4), modifier=-2).outcome
    failed = roll_imagination(7, forced(2, 6))
    assert not failed.outcome and failed.text == "imagination test (7 or less): 2 6 → 8, failed"
    assert roll_imagination(7, forced(2, 5)).outcome  # Defy Gravity made the 6 a 5 (898)


def test_search_line_488() -> None:
    dice = forced(4, 5, 6, 4, 5, 1, 2)
    rolled = roll_search(7, dice)
    assert rolled.outcome == 5 and dice.unused == []
    costs = {"weapon": 2, "equipment": 4, "drug": 3}
    assert sorted(map(sorted, search_purchases(5, costs))) == [["drug", "weapon"], ["equipment"]]
    assert search_passed(5, costs) and search_passed(2, costs) and not search_passed(1, costs)


def test_unlocking_line_954() -> None:
    first = roll_unlock(7, 5, forced(4, 5, 6, 1, 2, 3, 1))
    assert not first.outcome and "3 successes against strength 5" in first.text
    second = roll_unlock(7, 5, forced(4, 1, 1, 1, 2, 3, 3), earlier_attempts=1)
    assert not second.outcome and "against strength 6" in second.text
    assert roll_unlock(6, 5, forced(4, 5, 6, 4, 5, 1)).outcome  # the second character


def test_stomp_line_906() -> None:
    rolled = roll_stomp(forced(TWO_SKULLS, PLUS_ONE))
    assert rolled.outcome == 2 and rolled.text == "stomp: 2 skulls, +1 → 2 damage"


# --- exact odds against brute force -------------------------------------------------------------


def lowest_first(
    faces: Sequence[int], chaos: Sequence[ChaosFace], attack: Attack, defense: int
) -> int:
    """Damage as the page words it: successes ranked by result (a skull lowest), Defense takes
    the lowest, Precision's natural 6s are not taken at all, Critical's natural 6s deal 2."""
    bonus = attack.bonus + sum(face.bonus for face in chaos)
    hits = [(f + bonus, f == 6) for f in faces if f + bonus >= attack.rating]
    hits += [(0, False)] * sum(face.skulls for face in chaos)
    exposed = sorted(h for h in hits if not (attack.precision and h[1]))
    kept = exposed[defense:] + [h for h in hits if attack.precision and h[1]]
    return sum(2 if attack.critical and six else 1 for _, six in kept)


def page_defense(total: int, target: Target, attack: Attack) -> int:
    if (attack.holy and target.ethereal) or (attack.ghostly and not target.ethereal):
        return 0
    return max(total - attack.fire, 0)


def brute_force(attack: Attack, targets: Sequence[Target], mode: str) -> dict[Hashable, Fraction]:
    """Every tuple of faces: Defense Dice, attack dice, Chaos Dice, then Avoidance dice."""
    # Each tuple of faces is as likely as any other: they are counted in integers, and the
    # damage each tuple deals is rolled for Avoidance once per distinct damage, not once a
    # tuple (summing a Fraction a tuple was most of the module's time).
    tuples = math.prod(len(t.defense_faces) ** t.defense_dice for t in targets)
    tuples *= 6**attack.dice * len(attack.chaos_faces) ** attack.chaos_dice
    counted: Counter[tuple[Hashable, bool]] = Counter()
    shield_rolls = [itertools.product(t.defense_faces, repeat=t.defense_dice) for t in targets]
    for shields in itertools.product(*map(list, shield_rolls)):
        defenses = [
            page_defense(t.defense + sum(s), t, attack)
            for t, s in zip(targets, shields, strict=True)
        ]
        for faces in itertools.product(range(1, 7), repeat=attack.dice):
            worn = 1 in faces
            for chaos in itertools.product(attack.chaos_faces, repeat=attack.chaos_dice):
                if mode == "area":
                    counted[lowest_first(faces, chaos, attack, max(defenses, default=0)), worn] += 1
                else:
                    dealt = tuple(lowest_first(faces, chaos, attack, d) for d in defenses)
                    counted[dealt, worn] += 1
    found: dict[Hashable, Fraction] = {}
    for (dealt, worn), count in counted.items():
        p = Fraction(count, tuples)
        if mode == "area":
            found[dealt, worn] = found.get((dealt, worn), Fraction(0)) + p
            continue
        assert isinstance(dealt, tuple)
        for left, q in avoided_each(list(dealt), targets):
            outcome = (left[0], worn) if mode == "single" else left
            found[outcome] = found.get(outcome, Fraction(0)) + p * q
    return found


def avoided_each(
    dealt: list[int], targets: Sequence[Target]
) -> list[tuple[tuple[int, ...], Fraction]]:
    """(damage left on each target, probability) over every face of every Avoidance die."""
    joint: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    for damage, target in zip(dealt, targets, strict=True):
        if target.avoidance is None:
            joint = [((*left, damage), p) for left, p in joint]
            continue
        lefts = Counter(
            damage - sum(f >= target.avoidance for f in faces)
            for faces in itertools.product(range(1, 7), repeat=damage)
        )
        joint = [
            ((*left, after), p * Fraction(n, 6**damage))
            for left, p in joint
            for after, n in lefts.items()
        ]
    return joint


class EveryPath:
    """A source that gives, run after run, every sequence of faces the dice can show."""

    def __init__(self) -> None:
        self.path: list[int] = []
        self.sides: list[int] = []
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used == len(self.path):
            self.path.append(1)
            self.sides.append(sides)
        self.used += 1
        return self.path[self.used - 1]

    @property
    def ways(self) -> int:
        """Of how many equally likely sequences of the faces rolled this is one."""
        return math.prod(self.sides[: self.used])

    def advance(self) -> bool:
        """On to the next sequence, depth first; False when every one was given."""
        del self.path[self.used :], self.sides[self.used :]
        while self.path and self.path[-1] == self.sides[-1]:
            self.path.pop()
            self.sides.pop()
        self.used = 0
        if not self.path:
            return False
        self.path[-1] += 1
        return True


Outcome = TypeVar("Outcome", bound=Hashable)


def every_roll(run: Callable[[EveryPath], Outcome]) -> dict[Outcome, Fraction]:
    """What a roll function gives over every sequence of faces, with its probability."""
    # Counted in integers, a count for each outcome and length of sequence, and summed as
    # fractions once: a Fraction added a sequence was most of these tests' time.
    source, counted = EveryPath(), Counter[tuple[Outcome, int]]()
    while True:
        counted[run(source), source.ways] += 1
        if not source.advance():
            break
    found: dict[Outcome, Fraction] = {}
    for (outcome, ways), count in counted.items():
        found[outcome] = found.get(outcome, Fraction(0)) + Fraction(count, ways)
    return found


ODD_CHAOS = (ChaosFace(skulls=3), ChaosFace(bonus=2), ChaosFace(skulls=1, bonus=1))
SINGLE = [
    (Attack(3, 4), Target(1)),
    (Attack(4, 5, precision=True), Target(2)),
    (Attack(4, 5, critical=True), Target(2)),
    (Attack(4, 5, chaos_dice=1, precision=True, critical=True), Target(1)),
    (Attack(3, 5, bonus=1, chaos_dice=2, critical=True), Target(2, defense_dice=1)),
    (Attack(3, 6, bonus=-1, chaos_dice=1, fire=True), Target(3, defense_dice=1)),
    (Attack(2, 3, chaos_dice=1, holy=True, critical=True), Target(4, ethereal=True, avoidance=4)),
    (Attack(3, 2, ghostly=True, precision=True), Target(2, defense_dice=1, avoidance=6)),
    (Attack(2, 4, chaos_dice=1, critical=True), Target(1, avoidance=5)),
    (Attack(0, 4, chaos_dice=2), Target(1)),
    (Attack(4, 1, critical=True), Target(5)),
    (Attack(3, 8, bonus=1, precision=True), Target()),
    (
        Attack(3, 2, bonus=-2, chaos_dice=2, chaos_faces=ODD_CHAOS),
        Target(1, defense_dice=1, defense_faces=(0, 2, 4)),
    ),
]


def label(case: tuple[Attack, object]) -> str:
    return f"{case[0].dice}d-AR{case[0].rating}-c{case[0].chaos_dice}"


@pytest.mark.parametrize(("attack", "target"), SINGLE, ids=[label(c) for c in SINGLE])
def test_single_target_odds_match_every_face(attack: Attack, target: Target) -> None:
    exact = attack_wear_distribution(attack, target)
    assert sum(exact.values()) == 1
    assert exact == brute_force(attack, [target], "single")
    damage = attack_distribution(attack, target)
    assert damage == {
        d: sum((p for (k, _), p in exact.items() if k == d), Fraction(0)) for d, _ in exact
    }


WALKED = [SINGLE[i] for i in (0, 3, 5, 8, 12)]
"""Those of the cases above with few enough sequences of faces to run every one of them."""


@pytest.mark.parametrize(("attack", "target"), WALKED, ids=[label(c) for c in WALKED])
def test_rolling_gives_what_the_odds_say(attack: Attack, target: Target) -> None:
    walked = every_roll(lambda source: _damage_and_wear(roll_attack(attack, target, source)))
    assert walked == attack_wear_distribution(attack, target)


def _damage_and_wear(rolled: AttackRolled) -> tuple[int, bool]:
    return rolled.outcome, rolled.rolled_a_one


AREA = [
    (Attack(3, 4, fire=True), (Target(1), Target(2), Target(0, ethereal=True))),
    (
        Attack(3, 5, chaos_dice=1, critical=True, holy=True),
        (Target(2, ethereal=True), Target(1, defense_dice=1)),
    ),
    (
        Attack(2, 4, precision=True, ghostly=True),
        (Target(1, defense_dice=1), Target(3, ethereal=True)),
    ),
    (Attack(2, 4), ()),
]


@pytest.mark.parametrize(("attack", "targets"), AREA, ids=[label(c) for c in AREA])
def test_area_odds_match_every_face(attack: Attack, targets: tuple[Target, ...]) -> None:
    exact = area_wear_distribution(attack, targets)
    assert sum(exact.values()) == 1 and exact == brute_force(attack, targets, "area")
    assert sum(area_distribution(attack, targets).values()) == 1
    walked = every_roll(lambda source: _damage_and_wear(roll_area_attack(attack, targets, source)))
    assert walked == exact


EACH = [
    (Attack(3, 4, fire=True), (Target(1), Target(2))),
    (
        Attack(2, 5, critical=True),
        (Target(1, avoidance=5), Target(0, defense_dice=1)),
    ),
    (Attack(3, 3, precision=True, holy=True), (Target(2, ethereal=True), Target(1), Target(3))),
]


@pytest.mark.parametrize(("attack", "targets"), EACH, ids=[label(c) for c in EACH])
def test_each_target_odds_match_every_face(attack: Attack, targets: tuple[Target, ...]) -> None:
    exact = each_target_distribution(attack, targets)
    assert sum(exact.values()) == 1 and exact == brute_force(attack, targets, "each")
    walked = every_roll(lambda source: roll_attack_on_each(attack, targets, source).outcome)
    assert walked == exact


def test_the_other_tests_odds_match_every_face() -> None:
    for imagination, modifier in [(7, 0), (9, -2), (1, 0), (12, 0), (5, 3)]:
        exact = imagination_distribution(imagination, modifier)
        assert exact == every_roll(
            lambda s, i=imagination, m=modifier: roll_imagination(i, s, m).outcome
        )
    for imagination in range(-1, 6):
        exact_successes = search_distribution(imagination)
        assert exact_successes == every_roll(lambda s, i=imagination: roll_search(i, s).outcome)
        for strength, earlier in [(1, 0), (3, 0), (3, 1), (6, 0)]:
            opened = unlock_distribution(imagination, strength, earlier)
            walked = every_roll(
                lambda s, i=imagination, k=strength, e=earlier: roll_unlock(i, k, s, e).outcome
            )
            assert opened == walked
    assert stomp_distribution() == every_roll(lambda s: roll_stomp(s).outcome)
    assert stomp_distribution(3, ODD_CHAOS) == every_roll(
        lambda s: roll_stomp(s, 3, ODD_CHAOS).outcome
    )
    for damage, avoidance in [(0, 4), (3, 5), (2, 1), (2, 7)]:
        exact = avoidance_distribution(damage, avoidance)
        assert exact == every_roll(lambda s, d=damage, x=avoidance: roll_avoidance(d, x, s).outcome)


def test_search_pass_odds() -> None:
    costs = {"weapon": 2, "equipment": 4, "drug": 3}
    passed = search_pass_distribution(3, costs)
    assert passed == {True: Fraction(1, 2), False: Fraction(1, 2)}  # 2+ of 3 coins
    assert search_pass_distribution(0, costs) == {False: 1}
    assert search_pass_distribution(4, {}) == {False: 1}  # nothing to buy: failed


def test_a_sure_test_leaves_the_impossible_out() -> None:
    assert imagination_distribution(12) == {True: 1}
    assert imagination_distribution(1) == {False: 1}
    assert attack_distribution(Attack(3, 4), Target(defense=3, avoidance=1)) == {0: 1}


# --- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "work",
    [
        lambda: attack_distribution(Attack(MAX_DICE + 1, 4), Target()),
        lambda: attack_distribution(Attack(3, 4, chaos_dice=MAX_SPECIAL_DICE + 1), Target()),
        lambda: attack_distribution(Attack(3, 4), Target(defense_dice=MAX_SPECIAL_DICE + 1)),
        lambda: roll_attack(Attack(MAX_DICE + 1, 4), Target(), ForcedDice([])),
        lambda: area_distribution(Attack(3, 4), [Target()] * 61),
        lambda: search_distribution(MAX_DICE + 1),
        lambda: roll_unlock(10**9, 3, ForcedDice([])),
        lambda: stomp_distribution(MAX_SPECIAL_DICE + 1),
    ],
)
def test_too_many_dice_are_refused_before_anything_is_rolled(work: Callable[[], object]) -> None:
    with pytest.raises(TooManyDice) as refused:
        work()
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, DiceError)
    assert "more than the" in str(refused.value)


def test_fewer_than_no_dice_roll_none() -> None:
    assert attack_distribution(Attack(-3, 4), Target()) == {0: 1}
    assert roll_search(-2, ForcedDice([])).outcome == 0


def test_a_huge_joint_table_is_refused() -> None:
    crowd = [Target(1, defense_dice=2, avoidance=4)] * 6
    with pytest.raises(TooManyOutcomes, match=str(EACH_TARGET_WORK)):
        each_target_distribution(Attack(20, 4, chaos_dice=2), crowd)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Attack(3, 4, chaos_faces=()),
        lambda: Attack(3, 4, chaos_faces=(ChaosFace(skulls=-1),)),
        lambda: Attack(3, 4, chaos_faces=(ChaosFace(skulls=10**6),)),
        lambda: Target(defense_faces=(0,) * 21),
        lambda: Target(defense_faces=(-1, 2)),
    ],
)
def test_a_die_of_impossible_faces_is_refused(make: Callable[[], object]) -> None:
    with pytest.raises(ValueError, match="face"):
        make()


def test_twenty_dice_with_every_modifier_are_quick() -> None:
    attack = Attack(20, 4, bonus=1, chaos_dice=2, fire=True, precision=True, critical=True)
    target = Target(defense=3, defense_dice=1, avoidance=5)
    clear_caches()
    started = time.perf_counter()
    exact = attack_wear_distribution(attack, target)
    took = time.perf_counter() - started
    assert sum(exact.values()) == 1
    assert took < 1.0, f"{took:.3f} s"  # about 30 ms here; the bound is for a busy machine


# --- rolled outcomes are outcomes the odds allow ------------------------------------------------

ATTACKS = st.builds(
    Attack,
    dice=st.integers(0, 6),
    rating=st.integers(1, 8),
    bonus=st.integers(-2, 2),
    chaos_dice=st.integers(0, 2),
    fire=st.booleans(),
    holy=st.booleans(),
    ghostly=st.booleans(),
    precision=st.booleans(),
    critical=st.booleans(),
)
TARGETS = st.builds(
    Target,
    defense=st.integers(-1, 4),
    ethereal=st.booleans(),
    defense_dice=st.integers(0, 1),
    avoidance=st.none() | st.integers(1, 7),
)
FACES = st.lists(st.integers(1, 6), min_size=60, max_size=60)


@settings(max_examples=150, deadline=None)
@given(ATTACKS, st.lists(TARGETS, min_size=1, max_size=3), FACES)
def test_any_roll_has_odds_above_zero(
    attack: Attack, targets: list[Target], faces: list[int]
) -> None:
    single = roll_attack(attack, targets[0], ForcedDice(faces))
    assert attack_wear_distribution(attack, targets[0])[single.outcome, single.rolled_a_one] > 0
    assert attack_distribution(attack, targets[0])[single.outcome] > 0
    assert single.faces == tuple(faces[: len(single.faces)])
    area = roll_area_attack(attack, targets, ForcedDice(faces))
    assert area_wear_distribution(attack, targets)[area.outcome, area.rolled_a_one] > 0
    each = roll_attack_on_each(attack, targets, ForcedDice(faces))
    assert each_target_distribution(attack, targets)[each.outcome] > 0
