"""A game module extended by parts: tables merge, and the rules of a moment add up."""

from __future__ import annotations

from typing import Any

from runtime.games.base import BASE


def test_rules_for_the_same_moment_all_run_in_order() -> None:
    ran: list[str] = []

    def first(*args: Any) -> None:
        ran.append("first")

    def second(*args: Any) -> None:
        ran.append("second")

    def verb(*args: Any) -> None:
        ran.append("verb")

    part = BASE.extend("one", hooks={"turn_ended": first}, verbs={"x": verb})
    whole = part.extend("two", hooks={"turn_ended": second}, verbs={"x": second})
    whole.hooks["turn_ended"](None, None)
    assert ran == ["first", "second"]
    # Other tables are replaced entry by entry, as before, and the part is unchanged.
    assert whole.verbs["x"] is second and part.hooks["turn_ended"] is first
