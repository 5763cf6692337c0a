"""The benchmarks keep working: the hand-written twins of compiled effects still match them.

Timing is `make bench`'s job; this only checks that what it compares is a fair comparison.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str) -> ModuleType:
    """Import a bench script as a module."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EFFECTS = load("effects")
PACK = EFFECTS.compiled_pack()


@pytest.mark.parametrize("case", EFFECTS.cases(PACK), ids=lambda case: case[0])
def test_hand_written_twin_logs_what_the_compiled_effect_logs(case: tuple[object, ...]) -> None:
    _, card, compiled, by_hand = case
    assert EFFECTS.same_logs(PACK, card, compiled, by_hand)
