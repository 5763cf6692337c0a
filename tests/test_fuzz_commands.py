"""Command fuzz: `check`, `odds`, `report` and `print` over generated packs, as a user runs them.

Each pack is run by tests/fuzz_commands.py in a process of its own, with its address space
capped at PILLBOX_FUZZ_COMMAND_MEMORY_MB (default 2048, the issue's limit) and its time at
PILLBOX_FUZZ_COMMAND_SECONDS (default 120): a command may end with 0 (clean) or 1 (content
errors, a card whose odds cannot be worked out), never with 3 (a bug), a traceback, a signal, or
by running out of time or memory. The packs: cards built from the ruleset's vocabulary and
mutated specimens (tests/test_fuzz_run.py's generators), each with, now and then, a pack
stylesheet of hostile CSS (huge gradients, deep nesting, URLs outside the pack).

The number of packs follows PILLBOX_FUZZ_EXAMPLES: a few in `make test`, many in `make fuzz`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.helpers import make_pack
from tests.test_fuzz import CHECK_EXAMPLES, FUZZ_SETTINGS
from tests.test_fuzz_run import mutated_specimen_files, vocabulary_packs

MEMORY_MB = int(os.environ.get("PILLBOX_FUZZ_COMMAND_MEMORY_MB", "2048"))
SECONDS = float(os.environ.get("PILLBOX_FUZZ_COMMAND_SECONDS", "120"))
PACKS = max(1, CHECK_EXAMPLES // 30)
"""Packs per test: each runs every command in a process of its own, seconds each. The gate's
one is the same every run (derandomized) beside the specimens' run; `make fuzz` draws 666."""

CSS_PIECES = [
    ".trim { background: repeating-linear-gradient(red 0, blue 0.0002mm) }",
    ".card { :not(&) { visibility: hidden !important } }",
    ":root { position: fixed !important; inset: 0; z-index: 2147483647 }",
    '.trim::before { content: "Pack OK - 0 errors" }',
    "@media all { " * 40 + ".card { color: red }" + " }" * 40,
    ".card { display: flex } " * 3 + ".card > * { display: grid; columns: 3 }",
    "@color-profile --x { src: url(file:///etc/passwd) }",
    ".card { background: url(../../../../etc/passwd) }",
    ".card { background: url(http://127.0.0.1:9/x.png) }",
    ".card { font-size: 1e30px; width: 1e30mm }",
    ".card { font-family: 'Pillbox Serif'; font-size: 0.0001px }",
    ".card::after { content: counter(x, decimal) counters(y, '.'); counter-increment: x 1e9 }",
    "* { box-shadow: 0 0 1000mm 1000mm red; filter: blur(50px) }",
    "@page { size: 1mm 1mm; margin: 0 }",
    ".card { border: 1e9mm solid red }",
]
"""CSS that once broke, or could break, a layout or the report that shows it."""

STYLESHEETS = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(CSS_PIECES), min_size=1, max_size=3).map("\n".join),
)


def _limits() -> None:
    """In the child, before it runs: cap its memory (its print workers inherit the cap)."""
    import resource

    size = MEMORY_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


def run_commands(cards: dict[str, str], css: str) -> list[dict[str, Any]]:
    """Write the pack, run every command over it in a capped process, and check each ending."""
    with tempfile.TemporaryDirectory(prefix="pillbox-fuzz-commands-") as name:
        folder = make_pack(Path(name) / "pack", **cards)
        if css:
            (folder / "templates").mkdir()
            (folder / "templates" / "cards.css").write_text(css)
        out = Path(name) / "out"
        out.mkdir()
        env = {**os.environ, "PILLBOX_CACHE_DIR": str(Path(name) / "cache")}
        command = [sys.executable, "-m", "tests.fuzz_commands", str(folder), str(out)]
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                cwd=ROOT,
                env=env,
                timeout=SECONDS,
                preexec_fn=_limits if sys.platform == "linux" else None,
                check=False,
            )
        except subprocess.TimeoutExpired as expired:
            raise AssertionError(
                f"the commands ran past {SECONDS:g} s: {expired.stdout!r}"
            ) from None
    ended = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0, f"the driver ended with {done.returncode}: {done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    for result in ended:
        assert result["code"] in (0, 1), f"{result['args'][0]} exited {result['code']}: {result}"
        assert "Traceback" not in result["output"], result
    assert [result["args"][0] for result in ended][-2:] == ["report", "print"]
    return ended


@settings(FUZZ_SETTINGS, max_examples=PACKS)
@given(cards=vocabulary_packs(), css=STYLESHEETS)
def test_every_command_over_vocabulary_packs(cards: dict[str, str], css: str) -> None:
    """Cards from the ruleset's vocabulary, with or without hostile CSS."""
    run_commands(cards, css)


@settings(FUZZ_SETTINGS, max_examples=PACKS)
@given(cards=mutated_specimen_files(), css=STYLESHEETS)
def test_every_command_over_mutated_specimens(cards: dict[str, str], css: str) -> None:
    """Mutated specimen files (most no longer check: the commands must say so, not crash)."""
    run_commands(cards, css)


def test_the_driver_runs_every_command_on_the_specimens() -> None:
    """The driver itself: on a clean pack every command runs and succeeds."""
    cards = {
        path.stem: path.read_text()
        for path in sorted((ROOT / "tests" / "specimens" / "coma-ward").glob("*.card"))
    }
    ended = run_commands(cards, "")
    assert {result["args"][0] for result in ended} == {"check", "odds", "report", "print"}
    assert all(result["code"] == 0 for result in ended), ended
