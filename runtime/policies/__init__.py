"""Policies: who decides for a seat in a simulated game, by name.

A policy is a small class with one method, `decide(game, seat, decision) -> int`
(`runtime.policies.base.Policy`); `seat_policies` plugs policies into a game as its decision
maker. `docs/policies.md` says what each does and how to add one.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.policies.base import (
    Policy,
    PolicyError,
    RandomPolicy,
    Seat,
    SeatedPolicies,
    seat_policies,
)
from runtime.policies.exact import OddsPolicy
from runtime.policies.heuristics import BoldPolicy, CautiousPolicy
from runtime.policies.lookahead import asked_seat
from runtime.policies.search import GreedyPolicy, MctsPolicy, policy_of_budget

POLICIES: dict[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "cautious": CautiousPolicy,
    "bold": BoldPolicy,
    "odds": OddsPolicy,
    "greedy": GreedyPolicy,
    "mcts": MctsPolicy,
}
"""Every policy by the name `--policy` and `--seats` take."""


class UnknownPolicy(PolicyError):
    """A policy name that is not one of POLICIES: a usage error."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown policy {self.name!r}: the policies are {', '.join(sorted(POLICIES))}"


def policy_named(name: str) -> Policy:
    """A fresh policy of that name; UnknownPolicy, listing the known ones, for any other."""
    base, _, budget = name.partition(":")
    if base == "mcts" and budget:
        try:
            return policy_of_budget(budget)
        except ValueError as error:
            raise PolicyError(str(error)) from None
    make = POLICIES.get(name)
    if make is None:
        raise UnknownPolicy(name)
    return make()


__all__ = [
    "POLICIES",
    "BoldPolicy",
    "CautiousPolicy",
    "GreedyPolicy",
    "MctsPolicy",
    "OddsPolicy",
    "Policy",
    "PolicyError",
    "RandomPolicy",
    "Seat",
    "SeatedPolicies",
    "UnknownPolicy",
    "asked_seat",
    "policy_named",
    "seat_policies",
]
