"""Stats as the Coma Ward rulebook has them, from the bundled ruleset's tables."""

from __future__ import annotations

from compiler.gamerules import game_rules
from compiler.ruleset import load_ruleset
from runtime.stats import Stats


def coma_ward_stats() -> Stats:
    """A fresh player built from the bundled ruleset, as the compiler builds it."""
    rules = game_rules(load_ruleset("coma-ward"))
    return Stats.start(rules.stats, rules.derived)


def test_a_player_starts_as_the_setup_says() -> None:
    stats = coma_ward_stats()
    assert (stats.get("health"), stats.get("terror")) == (5, 1)
    assert (stats.get("strength"), stats.get("dexterity"), stats.get("focus")) == (3, 3, 4)


def test_scared_to_death() -> None:
    stats = coma_ward_stats()
    stats.set("terror", 4)
    stats.set("health", 2)
    events = stats.change("terror", 3)
    assert (stats.get("terror"), stats.get("health")) == (5, 0)
    assert stats.dead
    assert events == [
        "terror 4 → 5 (+1)",
        "2 terror past 5 is lost as health",
        "health 2 → 0 (-2)",
        "health 0: the character dies",
    ]


def test_the_log_says_the_change_made_and_what_the_bound_cut_off() -> None:
    stats = coma_ward_stats()
    stats.set("terror", 1)
    assert stats.change("terror", -2) == ["terror 1 → 0 (-1; 1 more cut off at 0)"]
    assert stats.change("terror", -2) == ["terror 0 → 0 (-2 cut off at 0)"]
    assert stats.change("terror", 1) == ["terror 0 → 1 (+1)"]
    stats.set("health", 4)
    assert stats.change("health", 3) == ["health 4 → 5 (+1; 2 more cut off at 5)"]


def test_bounds_hold_and_derived_stats_follow() -> None:
    stats = coma_ward_stats()
    stats.change("health", 3)
    assert stats.get("health") == 5
    stats.change("terror", -5)
    assert stats.get("terror") == 0 and stats.get("focus") == 5
    stats.change("health", -3)
    assert (stats.get("strength"), stats.get("dexterity")) == (2, 2)


def test_a_test_may_pin_a_derived_stat() -> None:
    stats = coma_ward_stats()
    stats.set("dexterity", 3)
    stats.change("health", -4)
    assert stats.get("dexterity") == 3
