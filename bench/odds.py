"""Benchmark the exact odds of the pool check (`runtime.games.coma_ward_odds`) on Coma Ward's faces.

It times `pool_distribution` for 30 dice cold (every cache cleared first), against the goal of
at most 100 ms, then every pool from 1 to 30 dice in one cold sweep (what a card-odds report
over many checks would ask), and a cached look-up. It prints the figures, the ratio to the
goal and PASS or MISS. Then the odds of every card of the specimen pack and of the bundled
Lobotomy pack (facing its Orderly Husk, as `pillbox odds --against` does), every option and
block walked, cold (the dice caches cleared first), against the goal of at most 50 ms for any
card; and Lobotomy's exact AoE attack of 20 dice against 5 monsters, against 200 ms. It
always exits 0: it reports, it does not gate. Run
`python bench/odds.py` or `make bench`.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runtime.distributions import at_least, clear_caches  # noqa: E402
from runtime.games import lobotomy_dice  # noqa: E402
from runtime.games.coma_ward_dice import PoolFaces  # noqa: E402
from runtime.games.coma_ward_odds import pool_distribution  # noqa: E402
from runtime.games.lobotomy_dice import Attack, Target  # noqa: E402
from runtime.odds import clear_caches as clear_card_caches  # noqa: E402

SPECIMENS = ROOT / "tests" / "specimens" / "coma-ward"
LOBOTOMY = ROOT / "content" / "lobotomy"
AOE_GOAL_MS = 200.0
CARD_GOAL_MS = 50.0
COMA_WARD = PoolFaces.from_ruleset({"success": [5, 6], "suspense": [4], "failure": [1, 2, 3]})
DICE = 30
GOAL_MS = 100.0
REPEATS = 7


def best(run: Callable[[], object], *, cold: bool = True) -> float:
    """The best of REPEATS timings, in milliseconds; caches cleared before each when cold."""
    times = []
    for _ in range(REPEATS):
        if cold:
            clear_caches()
            clear_card_caches()
            lobotomy_dice.clear_caches()
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    """Print the figures."""
    one = best(lambda: pool_distribution(DICE, COMA_WARD))
    sweep = best(lambda: [pool_distribution(dice, COMA_WARD) for dice in range(1, DICE + 1)])
    pool_distribution(DICE, COMA_WARD)
    cached = best(lambda: pool_distribution(DICE, COMA_WARD), cold=False)
    odds = pool_distribution(DICE, COMA_WARD)
    digits = max(len(str(p.denominator)) for p in odds)
    four = pool_distribution(4, COMA_WARD)
    print(f"exact pool odds, Coma Ward faces, best of {REPEATS}:")
    print(
        f"  {DICE} dice cold      {one:8.2f} ms  ratio {one / GOAL_MS:.2f} "
        f"(goal ≤ {GOAL_MS:g} ms) {'PASS' if one <= GOAL_MS else 'MISS'}"
    )
    print(f"  1..{DICE} dice cold  {sweep:8.2f} ms  ({sweep / DICE:.2f} ms a pool on average)")
    print(f"  {DICE} dice cached    {cached * 1000:8.2f} µs")
    print(
        f"  {DICE} dice: sums to 1 exactly: {sum(odds) == 1}; denominators up to {digits} "
        f"digits; 4 dice P(3+) = {float(at_least(four, 3)):.4f}"
    )

    card_odds_figures(SPECIMENS, "specimen")
    card_odds_figures(LOBOTOMY, "Lobotomy", against="Orderly Husk")
    aoe_figures()


def aoe_figures() -> None:
    """Lobotomy's AoE attack of 20 dice with fire, critical and a Chaos Die, exact, cold."""
    attack = Attack(20, 4, chaos_dice=1, fire=True, critical=True)
    monsters = [Target(defense=d, ethereal=d == 2) for d in (0, 1, 1, 2, 3)]
    area = best(lambda: lobotomy_dice.area_wear_distribution(attack, monsters))
    each = best(lambda: lobotomy_dice.each_target_distribution(Attack(8, 4), monsters))
    print(f"Lobotomy attack odds, exact, cold, best of {REPEATS}:")
    print(
        f"  AoE of 20 dice against 5 monsters {area:8.2f} ms  ratio {area / AOE_GOAL_MS:.2f} "
        f"(goal ≤ {AOE_GOAL_MS:g} ms) {'PASS' if area <= AOE_GOAL_MS else 'MISS'}"
    )
    print(f"  a monster's AoE of 8 dice, the damage to each of 5 {each:8.2f} ms")


def card_odds_figures(folder: Path, name: str, against: str | None = None) -> None:
    """Time `pillbox odds` on each card of a pack, without loading the pack each time."""
    from compiler.build import compile_pack, load_checked
    from compiler.odds import odds_table
    from runtime.odds import card_odds

    loaded = load_checked(folder)
    assert loaded.pack is not None, f"the {name} pack must check"
    table = odds_table(compile_pack(loaded.pack), [], against)
    cards = list(table.cards)
    times = {card.label: best(partial(card_odds, table, card)) for card in cards}
    slowest = max(times, key=times.__getitem__)
    worst = times[slowest]
    print(f"card odds, {len(cards)} {name} cards, cold, best of {REPEATS}:")
    print(
        f"  slowest {slowest}: {worst:.2f} ms  ratio {worst / CARD_GOAL_MS:.2f} "
        f"(goal ≤ {CARD_GOAL_MS:g} ms) {'PASS' if worst <= CARD_GOAL_MS else 'MISS'}"
    )
    print(f"  all cards together {sum(times.values()):.2f} ms")


if __name__ == "__main__":
    main()
