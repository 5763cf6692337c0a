"""Benchmark `pillbox lsp`: re-checking one edited 200-card file, warm (goal: under 50 ms).

Run `python bench/lsp.py` (or `make bench`). A temporary pack holds a 200-card file and a
second file; the server's checker (`compiler.lsp.packs.PackChecker`) checks it once (cold),
then each figure is the median of re-checks after a one-character edit, as typing gives, and
after a new line above every card. It prints the figures, the first with its goal and PASS or
MISS, and always exits 0.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pygls.workspace import TextDocument  # noqa: E402

from compiler.lsp.packs import PackChecker  # noqa: E402

CARDS = 200
GOAL_MS = 50.0
RUNS = 7

CARD = """hallucination "Echo {n}" {{
    situation "Every door opens onto the same room, number {n}."
    option "Go on" {{
        check focus {{
            0..1 {{ gain terror 1 }}
            2+ {{ lose terror 1 }}
        }}
    }}
    option "Turn back" {{ move to stairs }}
    test "going on calms" {{ choose "Go on"; dice 5 6 1 1; expect terror == 0 }}
}}
"""


def main() -> int:
    """Print the cold and warm re-check times of one edited 200-card file."""
    with tempfile.TemporaryDirectory(prefix="pillbox-lsp-bench-") as folder:
        pack = Path(folder)
        (pack / "pack.yaml").write_text(
            "pack: bench\ntitle: Bench\nversion: 0.1.0\nruleset: coma-ward\n"
        )
        (pack / "other.card").write_text('item "Towel" {\n    type clothing\n}\n')
        edited = pack / "echoes.card"
        text = "\n".join(CARD.format(n=n) for n in range(CARDS))
        edited.write_text(text)
        checker = PackChecker()
        uri = edited.as_uri()
        start = time.perf_counter()
        checker.diagnostics(TextDocument(uri, text))
        cold = (time.perf_counter() - start) * 1000
        warm, moved = [], []
        for run in range(RUNS):
            typed = text.replace("number 7.", f"number 7{run}.", 1)  # one edit, as typing gives
            start = time.perf_counter()
            checker.diagnostics(TextDocument(uri, typed))
            warm.append((time.perf_counter() - start) * 1000)
        for run in range(RUNS):
            typed = "\n" * (run + 1) + text  # a new line above every card: each one moves
            start = time.perf_counter()
            checker.diagnostics(TextDocument(uri, typed))
            moved.append((time.perf_counter() - start) * 1000)
    median = statistics.median(warm)
    verdict = "PASS" if median <= GOAL_MS else "MISS"
    print(f"lsp: re-checking an edited {CARDS}-card file: cold {cold:.0f} ms", flush=True)
    print(
        f"lsp: warm re-check after a one-character edit: {median:.0f} ms (median of {RUNS}), "
        f"ratio {median / GOAL_MS:.2f} (goal <= {GOAL_MS:.0f} ms) {verdict}; only the edited card "
        "is parsed and lowered again"
    )
    print(
        f"lsp: warm re-check after a new line above every card: "
        f"{statistics.median(moved):.0f} ms (median of {RUNS}); the cards' results are moved"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
