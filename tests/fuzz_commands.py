"""Run every command of pillbox over one pack, in this process, and say how each ended.

`python -m tests.fuzz_commands PACK OUT` runs `check`, `odds` for every card, `report` and
`print` (with PNG previews) as a user would, and prints one JSON line per command: its
arguments, its exit code, and the end of what it printed. tests/test_fuzz_commands.py runs it
in a process of its own under memory and time limits, so a hang or a blow-up in any command is
found like a crash.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from compiler.build import load_checked
from compiler.cli import main as pillbox

TAIL = 2_000
"""Characters of each command's output kept for the report."""


def commands(pack: Path, out: Path) -> list[list[str]]:
    """The command lines to run over the pack: odds for each card, then report and print."""
    lines = [["check", str(pack)]]
    loaded = load_checked(pack)
    if loaded.pack is not None:
        for card in loaded.pack.cards:
            variant = ["--variant", str(card["variant"])] if card.get("variant") else []
            lines.append(["odds", str(pack), card["title"], *variant, "--json"])
    lines.append(["report", str(pack), "-o", str(out / "report.html")])
    pdf = ["print", str(pack), "-o", str(out / "cards.pdf"), "--backs", "duplex"]
    lines.append([*pdf, "--png", str(out / "png"), "--dpi", "30"])
    return lines


def run_all(pack: Path, out: Path) -> None:
    """Run each command and print how it ended, one JSON line each."""
    runner = CliRunner()
    for line in commands(pack, out):
        result = runner.invoke(pillbox, line)
        print(json.dumps({"args": line, "code": result.exit_code, "output": result.output[-TAIL:]}))
        sys.stdout.flush()


if __name__ == "__main__":
    run_all(Path(sys.argv[1]), Path(sys.argv[2]))
