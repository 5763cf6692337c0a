"""Coma Ward: the game module `runtime: coma-ward` names.

Its cards' rules are `coma_ward_rules` (the pool check, clues, rooms, quirks) with combat, the
map and the phenomena in modules of their own; played whole, `coma_ward_game` gives the
procedures the ruleset's `game:` section names (the players' actions among them). This module
only puts them together, so that the cards' rules never import the table's.
"""

from __future__ import annotations

from runtime.games.coma_ward_game import CAN, PROCEDURES, TARGETS, WHOLE_TABLES
from runtime.games.coma_ward_rules import COMA_WARD
from runtime.module import GameModule

MODULE: GameModule = COMA_WARD.extend(
    "coma-ward",
    procedures=PROCEDURES,
    can=CAN,
    targets=TARGETS,
    whole=WHOLE_TABLES,
    guided=frozenset({"move"}),
)
"""The game module `runtime: coma-ward` names."""
