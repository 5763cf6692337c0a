"""Exact odds of the pool check and of `roll NdS`, against hand sums, brute force and dice.

The pool's odds come from solving the suspense re-rolls as an absorbing Markov chain; here they
are checked three ways: by hand for one and two dice, against a plain round-by-round expansion
of the rule as `roll_pool` states it (which bounds the exact value from both sides), and
against `roll_pool` itself rolled many times with seeded dice.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction

import pytest

from runtime.dice import SeededDice, roll_dice
from runtime.distributions import (
    at_least,
    clear_caches,
    ranges_probability,
    roll_outcomes,
    sum_distribution,
)
from runtime.games.coma_ward_dice import PoolFaces, roll_pool
from runtime.games.coma_ward_odds import check_outcomes, pool_distribution

COMA_WARD = PoolFaces.from_ruleset({"success": [5, 6], "suspense": [4], "failure": [1, 2, 3]})
NARROW = PoolFaces.from_ruleset({"success": [6], "suspense": [5], "failure": [1, 2, 3, 4]})
LOST_FOUR = PoolFaces.from_ruleset({"success": [6], "suspense": [5], "failure": [1, 2, 3]})
"""A face in no set (4): `roll_pool` neither counts nor keeps such a die."""
D8 = PoolFaces.from_ruleset({"success": [7, 8], "suspense": [5, 6], "failure": [1, 2]}, sides=8)
"""Two faces of a d8 are lost too, and suspense is likelier than failure."""
FACES = {"coma-ward": COMA_WARD, "narrow": NARROW, "lost-four": LOST_FOUR, "d8": D8}

# Coma Ward faces, 1..10 dice: P(0), P(1), ... P(dice) successes, computed once by the module
# and checked below against hand sums (1, 2 dice) and the brute-force expansion (1..5 dice).
PINNED = {
    1: ("3/5", "2/5"),
    2: ("9/29", "72/145", "28/145"),
    3: ("351/2051", "22896/59479", "100692/297395", "31328/297395"),
    4: (
        "567/6127",
        "3520800/12566477",
        "124306200/364427833",
        "407849664/1822139165",
        "113619536/1822139165",
    ),
    5: (
        "48843/959075",
        "490574880/2585551111",
        "8034926146776/26514826643305",
        "206401578073344/768929972655845",
        "8806921429776/59148459435065",
        "149857971387136/3844649863279225",
    ),
    6: (
        "88209/3161273",
        "1892807606016/15159489512375",
        "9961388877820968/40868164586621515",
        "16548749102389782816/59871861119400519475",
        "349448143597305089904/1736283972462615064775",
        "13425619979862882432/133560305574047312675",
        "219701034195024756736/8681419862313075323875",
    ),
    7: (
        "1257325983/81873027749",
        "20668016389013784/258822992051164477",
        "46015860323979352745946/248230661101470570778775",
        "170043315385718205367354656/669200074650232482351083947",
        "227014573866434391725271177696/980378109362590586644337982355",
        "2475969477145471461120644736/16733940654217261337660860205",
        "150690727410362475416174105376/2186997320885779000975830883715",
        "2401307110698010210427391686656/142154825857575635063429007441475",
    ),
    8: (
        "14296419/1693415683",
        "1008631319972847802848/20103535034703364197215",
        "8564601685579573269804943104/63552762509761808245822454695",
        "66278443784159851924070055266381664/304759328520249031216810853683035625",
        "17660462645335887428790455428327899552/74690416233742632570616004020638370975",
        "141916219831432036391888725781220727296768/765950218477030697011667121231646494348625",
        "1412255376223418638117741881416089771008/13073900138807469225037284588415390427375",
        "81805648768377520872899339404179614148096/1708658179679530016410642039670596025854625",
        "1278996676779522057403842357861886388816128/111062781679169451066691732578588741680550625",
    ),
    9: (
        "283878116963379/61086899470186435",
        "3210279421948709878104768/103445513588658099962860105",
        "116439038105264678023447366471444430256/1228062623660295372540264880680157778525",
        "683201468542903004126092912255449687581653248/3882241214486452933236480780142404420991062325",
        "4150786483670051658544325337416051110257115438871808/18616802463917974234718889021075382600310015496746875",
        "10322428169434468984928234558949884122876810574502365184/50188665426427188379893958534136702444523764577369965375",
        "74360238748400405158260165356213495080452832389220394336256/514684763948010816835812544767571883568591205740928994920625",
        "692013869296528766879385531650737787341216771542575886336/8785084258088471858880849792972092185691080027361354239375",
        "38646599913534522561857521187781328807415103172216288703232/1148142934960947206787581830635352663345318843575918527130625",
        "595726403116038488879589489759309618197713895606785459429376/74629290772461568441192818991297923117445724832434704263490625",
    ),
    10: (
        "234297664817823/91622931413762623",
        "21239203550513051095942724715456/1119392160087260809372526928923801",
        "123132992357444472166248784150555996481472/1895596239319014103102710490779390925371083",
        "3070434683087119517148750442191664682864569417170778944/22503739507886524546364331636260699871182692654271414215",
        "14045448341174655472727646911892020240068170047724046431056352/71140464105314957112258809764756771463873324355246556429695695",
        "71662451520666384923207625166527848654253780167614950238853982897792/341145203059024712462198089875670502958571542780040455539051993410625",
        "157748743400433343055293775469616882075709008009492339084643695432617216/919686530022763541832590586534022595515953850749855463278619487995835725",
        "1046961175641179268984525721407957083284313304810205555901472810540897490944/9431385365383440121493216464906401717016106739439767775922242849397295359875",
        "9261148220517999577714625110889515405164371394004317155007879364586436864/160983034488593150984875384039014508412870568242350362272951761408193976125",
        "502925874760449203098374046484117442441631070387633706486577756988242925568/21039244276624597194100252114021973061035930418750251192441926356347812725875",
        "7669068388093646383278343085754710865442424912732338399236459807814161485824/1367550877980598817616516387411428248967335477218766327508725213162607827181875",
    ),
}


def fractions(dice: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(p) for p in PINNED[dice])


@pytest.mark.parametrize("dice", sorted(PINNED))
def test_pinned_exact_odds(dice: int) -> None:
    assert pool_distribution(dice, COMA_WARD) == fractions(dice)


def test_one_die_by_hand() -> None:
    # 5-6 succeeds (1/3); a 4 (1/6) is rolled again alone, as often as it shows:
    # P(success) = (1/3) / (1 - 1/6) = 2/5.
    assert pool_distribution(1, COMA_WARD) == (Fraction(3, 5), Fraction(2, 5))


def test_two_dice_by_hand() -> None:
    # Two dice: a 4 with a failure, or two 4s, put both dice back in hand with nothing set
    # aside (7/36): the start again. Otherwise: 5-6 twice (1/9) → 2; a success and a failure
    # (1/3) → 1; two failures (1/4) → 0; a success and a 4 (1/9) → 1, and the 4 rolled alone
    # makes it 2 with 2/5. Dividing by 1 - 7/36 = 29/36:
    s = Fraction(1, 9) + Fraction(1, 9) * Fraction(2, 5)
    one = Fraction(1, 3) + Fraction(1, 9) * Fraction(3, 5)
    none = Fraction(1, 4)
    scale = Fraction(36, 29)
    assert pool_distribution(2, COMA_WARD) == (none * scale, one * scale, s * scale)
    assert pool_distribution(2, COMA_WARD) == (
        Fraction(9, 29),
        Fraction(72, 145),
        Fraction(28, 145),
    )


def test_four_dice_as_design_md_reads_them() -> None:
    odds = pool_distribution(4, COMA_WARD)
    assert [round(float(p), 4) for p in odds] == [0.0925, 0.2802, 0.3411, 0.2238, 0.0624]
    assert round(float(at_least(odds, 3)), 4) == 0.2862


def expand(dice: int, faces: PoolFaces, leftover: Fraction) -> tuple[list[Fraction], Fraction]:
    """The rule as `roll_pool` states it, round by round over every face, until less than
    `leftover` of the probability is still rolling: (P(k) so far, probability unfinished)."""
    kinds: dict[int, Counter[tuple[int, int, int]]] = {}

    def rolls(count: int) -> Counter[tuple[int, int, int]]:
        if count not in kinds:
            kinds[count] = Counter(
                (
                    sum(f in faces.success for f in shown),
                    sum(f in faces.failure for f in shown),
                    sum(f in faces.suspense for f in shown),
                )
                for shown in itertools.product(range(1, faces.sides + 1), repeat=count)
            )
        return kinds[count]

    done = [Fraction(0)] * (dice + 1)
    rolling = {(0, 0, dice): Fraction(1)}  # (successes, failed dice on the table, dice rolled)
    while sum(rolling.values()) >= leftover:
        after: dict[tuple[int, int, int], Fraction] = {}
        for (successes, failed, count), p in rolling.items():
            every = faces.sides**count
            for (a, b, c), ways in rolls(count).items():
                q = p * Fraction(ways, every)
                if c == 0:
                    done[successes + a] += q
                    continue
                on_table = failed + b
                partners = min(on_table, c)
                key = (successes + a, on_table - partners, c + partners)
                after[key] = after.get(key, Fraction(0)) + q
        rolling = after
    return done, sum(rolling.values(), Fraction(0))


@pytest.mark.parametrize(
    ("name", "most"), [("coma-ward", 5), ("narrow", 4), ("lost-four", 4), ("d8", 3)]
)
def test_brute_force_expansion_brackets_the_exact_odds(name: str, most: int) -> None:
    faces = FACES[name]
    for dice in range(1, most + 1):
        exact = pool_distribution(dice, faces)
        low, unfinished = expand(dice, faces, Fraction(1, 10**13))
        assert unfinished < Fraction(1, 10**12)
        for k in range(dice + 1):
            # what the expansion has not finished can only add to each P(k)
            assert low[k] <= exact[k] <= low[k] + unfinished


@pytest.mark.parametrize("name", FACES)
def test_probabilities_sum_to_one_exactly(name: str) -> None:
    faces = FACES[name]
    for dice in (*range(0, 13), 30):
        odds = pool_distribution(dice, faces)
        assert len(odds) == max(dice, 0) + 1
        assert sum(odds) == 1
        assert all(p >= 0 for p in odds)


@pytest.mark.parametrize("name", FACES)
def test_more_dice_never_lower_the_odds(name: str) -> None:
    faces = FACES[name]
    for dice in range(0, 16):
        fewer, more = pool_distribution(dice, faces), pool_distribution(dice + 1, faces)
        for k in range(dice + 2):
            assert at_least(more, k) >= at_least(fewer, k)


def test_faces_are_data() -> None:
    # One success face of six and a rarer suspense: lower odds than Coma Ward's, still exact.
    narrow, wide = pool_distribution(3, NARROW), pool_distribution(3, COMA_WARD)
    assert at_least(narrow, 1) < at_least(wide, 1)
    assert pool_distribution(1, NARROW) == (Fraction(4, 5), Fraction(1, 5))
    # A lost face (4 on LOST_FOUR) is neither success nor a failed die a 5 can take along.
    assert pool_distribution(1, LOST_FOUR) == (Fraction(4, 5), Fraction(1, 5))
    assert pool_distribution(2, LOST_FOUR) != pool_distribution(2, NARROW)
    # Without suspense the pool is binomial.
    plain = PoolFaces.from_ruleset({"success": [4, 5, 6], "failure": [1, 2, 3]})
    assert pool_distribution(3, plain) == tuple(Fraction(math.comb(3, k), 8) for k in range(4))


def within(counts: Mapping[int, int], rolls: int, odds: Mapping[int, Fraction]) -> list[str]:
    """Outcomes whose share of `rolls` is more than 4.5 standard errors off (plus one roll)."""
    off = []
    for outcome in set(counts) | set(odds):
        p = float(odds.get(outcome, 0))
        seen = counts.get(outcome, 0) / rolls
        if abs(seen - p) > 4.5 * math.sqrt(p * (1 - p) / rolls) + 1 / rolls:
            off.append(f"{outcome}: saw {seen:.4f}, expected {p:.4f}")
    return off


@pytest.mark.parametrize(
    ("name", "dice", "seed"),
    [
        ("coma-ward", 1, 11),
        ("coma-ward", 3, 12),
        ("coma-ward", 6, 13),
        ("coma-ward", 12, 14),
        ("narrow", 5, 15),
        ("lost-four", 5, 16),
        ("d8", 4, 17),
    ],
)
def test_monte_carlo_agrees_with_roll_pool(name: str, dice: int, seed: int) -> None:
    faces = FACES[name]
    rolls = 20_000 if faces is COMA_WARD else 8_000
    source = SeededDice(seed)
    counts = Counter(roll_pool(dice, faces, source, "check").successes for _ in range(rolls))
    odds = dict(enumerate(pool_distribution(dice, faces)))
    assert within(counts, rolls, odds) == []


@pytest.mark.parametrize(
    ("count", "sides", "seed"), [(1, 6, 21), (2, 6, 22), (3, 4, 23), (2, 20, 24)]
)
def test_monte_carlo_agrees_with_roll_dice(count: int, sides: int, seed: int) -> None:
    rolls = 10_000
    source = SeededDice(seed)
    counts = Counter(roll_dice(count, sides, source).total for _ in range(rolls))
    assert within(counts, rolls, sum_distribution(count, sides)) == []


def test_sum_distribution_by_hand() -> None:
    two = sum_distribution(2, 6)
    assert two == {t: Fraction(6 - abs(t - 7), 36) for t in range(2, 13)}
    assert sum_distribution(1, 20) == {t: Fraction(1, 20) for t in range(1, 21)}
    assert sum_distribution(0, 6) == {0: Fraction(1)}
    assert sum(sum_distribution(5, 8).values()) == 1
    assert sum_distribution(3, 6)[10] == Fraction(27, 216)
    with pytest.raises(ValueError):
        sum_distribution(2, 0)


def test_ranges_and_at_least() -> None:
    two = sum_distribution(2, 6)
    assert ranges_probability(two, 2, 6) == Fraction(15, 36)
    assert ranges_probability(two, 7, 7) == Fraction(6, 36)
    assert ranges_probability(two, 10, None) == at_least(two, 10) == Fraction(6, 36)
    assert ranges_probability(two, 13, None) == 0
    assert at_least(two, -5) == 1
    odds = pool_distribution(4, COMA_WARD)
    assert ranges_probability(odds, 0, 1) + at_least(odds, 2) == 1
    assert ranges_probability(odds, 3, None) == odds[3] + odds[4]


def test_outcome_lists_leave_out_the_impossible() -> None:
    assert check_outcomes(2, COMA_WARD) == [
        (0, Fraction(9, 29)),
        (1, Fraction(72, 145)),
        (2, Fraction(28, 145)),
    ]
    assert check_outcomes(0, COMA_WARD) == [(0, Fraction(1))]
    never = PoolFaces.from_ruleset({"suspense": [6], "failure": [1, 2, 3, 4, 5]})
    assert check_outcomes(3, never) == [(0, Fraction(1))]
    assert roll_outcomes(2, 4) == [(t, Fraction(4 - abs(t - 5), 16)) for t in range(2, 9)]
    assert roll_outcomes(0, 6) == [(0, Fraction(1))]


def test_no_dice_and_bad_faces() -> None:
    assert pool_distribution(0, COMA_WARD) == (Fraction(1),)
    assert pool_distribution(-3, COMA_WARD) == (Fraction(1),)
    with pytest.raises(ValueError, match="both"):
        pool_distribution(2, PoolFaces(frozenset({5, 6}), frozenset({6}), frozenset({1})))
    with pytest.raises(ValueError, match="forever"):
        pool_distribution(2, PoolFaces(frozenset(), frozenset(range(1, 7)), frozenset()))
    # Faces off the die are never rolled: they change nothing.
    odd = PoolFaces(frozenset({5, 6, 9}), frozenset({4, 0}), frozenset({1, 2, 3}))
    assert pool_distribution(4, odd) == pool_distribution(4, COMA_WARD)


def test_cold_and_cached_agree() -> None:
    warm = pool_distribution(12, COMA_WARD)
    clear_caches()
    assert pool_distribution(12, COMA_WARD) == warm
    assert pool_distribution(12, COMA_WARD) is pool_distribution(12, COMA_WARD)
