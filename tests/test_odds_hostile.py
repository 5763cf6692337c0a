"""Hostile cards against the odds: nested repeats, runaway bonus dice, long exact odds.

Each must end within a couple of seconds with a diagnostic at the card's line (exit 1), never
a hang, a traceback or a blow-up of memory; `play` and `test` refuse the same pools.
"""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.odds import odds_table
from runtime import distributions
from runtime.dice import MAX_POOL_DICE, PoolTooLarge, SeededDice
from runtime.distributions import roll_outcomes
from runtime.games.coma_ward_dice import PoolFaces, roll_pool
from runtime.games.coma_ward_odds import pool_distribution
from runtime.odds import MAX_WORK, Budget, TooMuchWork, card_odds
from tests.helpers import make_pack, run

COMA_WARD = PoolFaces(frozenset({5, 6}), frozenset({4}), frozenset({1, 2, 3}))

SECONDS = 10.0
"""Far more than any of these takes (two seconds at most); a hang is far more than this."""


def room(body: str, title: str = "Trap", extra: str = "") -> str:
    return f'room "{title}" {{\n number 1\n when revealed {{\n{body}\n }}\n{extra}}}\n'


def timed_run(*args: str) -> tuple[int, str, float]:
    start = time.perf_counter()
    code, output = run(*args)
    return code, output, time.perf_counter() - start


def compiled(pack: Path) -> CompiledPack:
    loaded = load_checked(pack)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


NEST = (
    "  repeat 20 { repeat 20 { repeat 20 { check focus { 0..1 { gain terror 1 } "
    "2+ { lose terror 1 } } } } }"
)
"""The 160-byte card of the issue: 8,000 checks a path, which kept odds busy past a minute."""


def test_nested_repeats_of_checks_stop_on_their_work_within_seconds(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "p", rooms=room(NEST))
    code, output, seconds = timed_run("odds", str(pack), "Trap")
    assert code == 1, output
    assert "rooms.card:4:39: error[E0605]" in output, output
    assert f"more than {MAX_WORK} steps" in output and "Traceback" not in output
    assert seconds < SECONDS


def test_long_exact_odds_count_as_the_work_they_are(tmp_path: Path) -> None:
    """Checks of 30 dice have odds of 1,400 digits: a path of hundreds of them multiplies
    numbers of a million digits. Counted by their steps alone, that walk ran for minutes."""
    check = "repeat 2 { bonus next focus +10 }\n check focus +6 { 0..14 { } 15+ { } }"
    pack = make_pack(tmp_path / "p", rooms=room(f"  repeat 20 {{ repeat 20 {{ {check} }} }}"))
    table = odds_table(compiled(pack), [])
    start = time.perf_counter()
    with pytest.raises(TooMuchWork):
        card_odds(table, compiled(pack).cards[0])
    assert time.perf_counter() - start < SECONDS


def test_the_walks_of_a_card_share_one_budget(tmp_path: Path) -> None:
    roll = "roll d6 { 1..3 { gain terror 1 } 4..6 { } }"
    card = f'hallucination "Fork" {{\n situation "Two ways."\n option "A" {{ {roll} }}\n'
    card += f' option "B" {{ {roll} }}\n}}\n'
    pack = compiled(make_pack(tmp_path / "p", cards=card))
    table = odds_table(pack, [])
    budget = Budget()
    assert len(card_odds(table, pack.cards[0], budget)) == 2
    once = budget.spent
    assert 0 < once < 50  # two runs an option, a few steps each
    card_odds(table, pack.cards[0], budget)
    assert budget.spent == 2 * once
    with pytest.raises(TooMuchWork):
        card_odds(table, pack.cards[0], Budget(once - 1))


def test_runaway_bonus_dice_are_refused_at_the_check(tmp_path: Path) -> None:
    body = "  repeat 20 { bonus next focus +10 }\n  check focus { 0..1 { } 2+ { lose terror 1 } }"
    pack = make_pack(tmp_path / "p", rooms=room(body))
    code, output, seconds = timed_run("odds", str(pack), "Trap", "--json")
    assert code == 1, output
    assert "rooms.card:5:3: error[E0606]" in output, output
    assert f"check focus rolls 204 dice, more than the {MAX_POOL_DICE}" in output
    assert seconds < SECONDS


THOUSAND = "\n".join(["  repeat 20 { bonus next focus +10 }"] * 5)
"""1,000 bonus dice, which took 3.9 GB and a MemoryError to work the odds of."""


def test_a_thousand_bonus_dice_are_refused_by_odds_play_and_test(tmp_path: Path) -> None:
    body = f"{THOUSAND}\n  check focus {{ 0..1 {{ }} 2+ {{ lose terror 1 }} }}"
    test = ' test "rolls" {\n  expect terror >= 0\n }\n'
    pack = make_pack(tmp_path / "p", rooms=room(body, extra=test))
    code, output = run("odds", str(pack), "Trap")
    assert code == 1 and "rooms.card:9:3: error[E0606]" in output, output
    assert "rolls 1004 dice" in output
    code, output = run("play", str(pack), "Trap")
    assert code == 1 and "rooms.card:9:3: error[E0601]" in output, output
    assert "rolls 1004 dice" in output
    code, output = run("test", str(pack))
    assert code == 1 and 'rooms.card:9:3 room "Trap" › rolls' in output, output
    assert "rolls 1004 dice" in output and "Traceback" not in output


def test_the_pool_refuses_more_dice_than_a_check_may_roll() -> None:
    assert len(roll_pool(MAX_POOL_DICE, COMA_WARD, SeededDice(0), "check").rounds[0]) == 60
    with pytest.raises(PoolTooLarge, match="rolls 2000000000 dice"):
        roll_pool(2_000_000_000, COMA_WARD, SeededDice(0), "check focus")
    with pytest.raises(PoolTooLarge):
        pool_distribution(MAX_POOL_DICE + 1, COMA_WARD)


BIG_RULESET = """\
ruleset: hostile
title: Hostile
version: 1
extends: coma-ward
stats:
  will: {min: 0, max: 1000000, start: START}
"""


def big_stat_pack(folder: Path, start: int) -> Path:
    manifest = "pack: hostile\ntitle: Hostile\nversion: 0.1.0\nruleset: rules.yaml\n"
    body = "  check will { 0..1 { gain terror 1 } 2+ { lose terror 1 } }"
    pack = make_pack(folder, manifest, rooms=room(body, "Will"))
    (pack / "rules.yaml").write_text(BIG_RULESET.replace("START", str(start)))
    return pack


def test_a_ruleset_stat_of_a_million_is_refused_at_the_check(tmp_path: Path) -> None:
    pack = big_stat_pack(tmp_path / "p", 1_000_000)
    code, output, seconds = timed_run("odds", str(pack), "Will")
    assert code == 1, output
    assert "rooms.card:4:3: error[E0606]" in output and "rolls 1000000 dice" in output
    assert seconds < SECONDS
    code, output = run("play", str(pack), "Will")
    assert code == 1 and "error[E0601]" in output and "rolls 1000000 dice" in output


def test_odds_of_thousands_of_digits_are_printed_whole(tmp_path: Path) -> None:
    """50 dice have odds of over 4,300 digits, which `str` of an int refuses (it was exit 3)."""
    body = "  repeat 4 { bonus next focus +10 }\n  check focus +6 { 0..24 { } 25+ { } }"
    pack = make_pack(tmp_path / "p", rooms=room(body))
    code, output = run("odds", str(pack), "Trap", "--json")
    assert code == 0, output
    exact = [o["exact"] for o in json.loads(output)["blocks"][0]["outcomes"]]
    assert max(len(e.partition("/")[2]) for e in exact) > 4300
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert sum(Fraction(e) for e in exact) == 1
    finally:
        sys.set_int_max_str_digits(limit)


def test_the_totals_of_many_dice_of_many_sides_are_quick() -> None:
    distributions.clear_caches()
    start = time.perf_counter()
    totals = roll_outcomes(30, 100)
    assert time.perf_counter() - start < 1.0  # it was a second on a quiet machine
    assert totals[0] == (30, Fraction(1, 100**30)) and len(totals) == 30 * 99 + 1
    assert sum(p for _, p in totals) == 1
