"""What compiled card modules see: the one global `runtime` they take their callables from.

A generated module starts by binding each verb, value, condition and check it uses, by the
ruleset's name, to a local global (`verb_gain = runtime.verb('gain')`), so an effect's body is
nothing but direct calls. A name the game module does not know still binds: to a stand-in
that logs that the phrase is not simulated.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from runtime.cards import (
    BlockDef,
    CardDef,
    CardInstance,
    ModifierDef,
    OptionDef,
    TestDef,
    TestStep,
)
from runtime.checks import Arm, CheckCall, Result, roll_call
from runtime.game import Game
from runtime.module import GameModule
from runtime.rules import GameRules


def _make(game: Game, card: CardInstance, call: CheckCall) -> Result:
    return game.check(card, call)


class Library:
    """The callables of one game, looked up by the names the ruleset gives them."""

    say = staticmethod(Game.say)
    rule = staticmethod(Game.rule)
    choose = staticmethod(Game.choose)
    may = staticmethod(Game.may)
    no_outcome = staticmethod(Game.no_outcome)
    repeat = staticmethod(Game.repeat)

    def __init__(self, module: GameModule, rules: GameRules) -> None:
        self.module = module
        self.rules = rules
        self.missing: set[str] = set()  # phrases that compiled code uses but nothing runs

    def verb(self, name: str) -> Callable[..., None]:
        """The verb of that name."""
        found = self.module.verbs.get(name)
        return found if found is not None else self._stand_in("verb", name, None)

    def value(self, name: str) -> Callable[..., Any]:
        """The getter of the value of that name."""
        found = self.module.values.get(name)
        return found.get if found is not None else self._stand_in("value", name, 0)

    def setter(self, name: str) -> Callable[..., None]:
        """The setter of the value of that name (a test's `given`)."""
        found = self.module.values.get(name)
        if found is not None and found.set is not None:
            return found.set
        return self._stand_in("setting", name, None)

    def condition(self, name: str) -> Callable[..., bool]:
        """The condition of that name."""
        found = self.module.conditions.get(name)
        return found if found is not None else self._stand_in("condition", name, False)

    def check(
        self, name: str, args: dict[str, Any], arms: tuple[Arm, ...], header: str
    ) -> Callable[[Game, CardInstance], Result]:
        """One check of a card, as written: `check_3(game, card)` makes it, with these slots,
        and these outcomes for the odds to branch on."""
        rule = self.rules.procedures.get(name)
        if rule is None or rule.procedure not in self.module.checks:
            return self._stand_in("check", name, 0)
        call = CheckCall(rule, tuple(args.items()), arms, header)
        return partial(_make, call=call)

    @staticmethod
    def roll_table(count: int, sides: int, arms: tuple[Arm, ...]) -> Callable[..., Result]:
        """One roll table of a card: `roll_4(game, card)` rolls it."""
        return partial(_make, call=roll_call(count, sides, arms))

    def _stand_in(self, what: str, name: str, result: Any) -> Callable[..., Any]:
        self.missing.add(f"{what} {name}")

        def not_simulated(game: Game, *args: Any, **slots: Any) -> Any:
            game.event("missing", f"not simulated: {what} {name!r}", name=name)
            return result

        return not_simulated

    # Compiled modules describe their cards through these constructors.
    arm = staticmethod(Arm)
    card = staticmethod(CardDef)
    option = staticmethod(OptionDef)
    block = staticmethod(BlockDef)
    modifier = staticmethod(ModifierDef)
    test = staticmethod(TestDef)
    step = staticmethod(TestStep)
