"""Benchmark `pillbox print` on a generated 200-card pack against WeasyPrint alone.

The whole job runs in-process (check the pack, render every face through the sandbox, lay the
sheets out, let WeasyPrint make the PDF, look for clipped text, write it atomically); then the
very HTML the job handed WeasyPrint is rendered again by WeasyPrint alone. It prints cards per
second and the ratio of the two times, each against its goal, PASS or MISS; it always exits 0.
Run `python bench/printing.py [--cards N]` or `make bench`.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from generate import generate_pack  # noqa: E402

from compiler.build import load_checked  # noqa: E402
from compiler.printing import sheets  # noqa: E402
from compiler.printing.sizes import resolve_options  # noqa: E402

GOAL_CARDS_PER_SECOND = 60.0
GOAL_RATIO = 1.3
REPEATS = 3


def best(run: Callable[[], object]) -> float:
    """The best of REPEATS timings."""
    times = []
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pillbox-print-bench-") as scratch:
        pack = generate_pack(Path(scratch) / "pack", cards=arguments.cards, files=4)
        target = Path(scratch) / "cards.pdf"
        seen: dict[str, Any] = {}
        real_render = sheets.render_pdf

        def keep(html: str, base: Path, roots: Any) -> Any:
            seen["html"], seen["base"] = html, base
            return real_render(html, base, roots)

        def whole_job() -> None:
            loaded = load_checked(pack)
            assert loaded.pack is not None, "the generated pack must check"
            options = resolve_options(loaded.pack.print_settings, {})
            printed = sheets.print_pack(loaded.pack, options, target)
            assert not printed.failed, [d.message for d in printed.diagnostics]
            seen["faces"] = printed.cards

        sheets.render_pdf = keep  # type: ignore[assignment]
        try:
            job = best(whole_job)
        finally:
            sheets.render_pdf = real_render  # type: ignore[assignment]

        from weasyprint import HTML

        html, base = seen["html"], seen["base"]
        alone = best(lambda: HTML(string=html, base_url=base.as_uri() + "/").write_pdf())
    rate = arguments.cards / job
    ratio = job / alone
    print(f"print {arguments.cards} generated cards ({seen['faces']} faces), best of {REPEATS}:")
    print(
        f"  pillbox print        {job:6.2f} s   {rate:6.1f} cards/s "
        f"(goal ≥ {GOAL_CARDS_PER_SECOND:g}) {'PASS' if rate >= GOAL_CARDS_PER_SECOND else 'MISS'}"
    )
    print(
        f"  WeasyPrint alone     {alone:6.2f} s   ratio {ratio:.2f} "
        f"(goal ≤ {GOAL_RATIO}) {'PASS' if ratio <= GOAL_RATIO else 'MISS'}"
    )


if __name__ == "__main__":
    main()
