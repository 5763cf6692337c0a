"""Benchmark `pillbox print` on a generated 200-card pack against WeasyPrint alone.

The whole job runs in-process: check the pack, render every face through the sandbox, lay the
distinct faces out (each card's face once, each deck's back once, as pages of their own) in
worker processes, impose them on the sheets, write the PDF atomically. WeasyPrint alone then
lays out and draws the very same face documents the job handed it, one after the other in this
one process, with nothing else: so the ratio is the job's time over WeasyPrint's serial work
on the same faces; under 1 when the workers gain more than checking, templates, imposition and
the fork cost. Both are timed for the sheets of faces and again with `--backs duplex`, with
the face cache off: the goal is for a cold print. WeasyPrint lays out about 33 faces a second
on two cores, so the ratio is the figure that says whether pillbox adds much to it.
Then the designer's loop: the face cache warm, one card's title edited, the pack checked and
printed again (only that card's chunk of faces is laid out).
Last, the exports: `print --tts` (Tabletop Simulator sheets, backs and saved object) against
`print --png` (a PNG a card) of the same cards, the face cache warm and no PDF, so that the
time is the export's.
It prints cards per second and the ratios, each against its goal, PASS or MISS; it always exits
0. Run `python bench/printing.py [--cards N]` or `make bench`.
"""

from __future__ import annotations

import argparse
import gc
import os
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

from bench.timing import verdict  # noqa: E402
from compiler import cache  # noqa: E402
from compiler.build import load_checked  # noqa: E402
from compiler.printing import render, sheets  # noqa: E402
from compiler.printing.sizes import resolve_options  # noqa: E402
from compiler.printing.tts import TtsRequest  # noqa: E402

GOAL_RATIO = 0.6
GOAL_TTS_RATIO = 1.5
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


def measure(pack: Path, target: Path, backs: str) -> tuple[float, float, int]:
    """The job's best time, WeasyPrint's alone on the job's face documents, and the faces."""
    seen: dict[str, Any] = {}
    real_document = render.document

    def keep(*args: Any) -> str:
        html = real_document(*args)
        seen.setdefault("html", []).append(html)
        return html

    def whole_job() -> None:
        seen["html"] = []
        loaded = load_checked(pack)
        assert loaded.pack is not None, "the generated pack must check"
        options = resolve_options(loaded.pack.print_settings, {"backs": backs})
        printed = sheets.print_pack(loaded.pack, options, target)
        assert not printed.failed, [d.message for d in printed.diagnostics]
        seen["faces"] = printed.cards
        seen["base"] = (loaded.pack.root or Path.cwd()).resolve()

    render.document = keep  # type: ignore[assignment]
    try:
        with cache.enabled(False):
            job = best(whole_job)
    finally:
        render.document = real_document  # type: ignore[assignment]

    from weasyprint import HTML

    base_url = seen["base"].as_uri() + "/"

    def weasyprint_alone() -> None:
        for html in seen["html"]:
            HTML(string=html, base_url=base_url).write_pdf()

    return job, best(weasyprint_alone), seen["faces"]


def reprint(pack: Path, target: Path) -> float:
    """The best time of checking and printing again after one card's title was edited."""
    card = next(pack.glob("hallucinations-*.card"))
    text = card.read_text(encoding="utf-8")
    title = text.split('hallucination "', 1)[1].split('"', 1)[0]
    edits = iter(range(REPEATS + 1))

    def print_job() -> None:
        loaded = load_checked(pack)
        assert loaded.pack is not None, "the generated pack must check"
        options = resolve_options(loaded.pack.print_settings, {"backs": "none"})
        assert not sheets.print_pack(loaded.pack, options, target).failed

    def edit_and_print() -> None:
        card.write_text(text.replace(f'"{title}"', f'"{title} {next(edits)}"', 1), "utf-8")
        print_job()

    with cache.enabled(True):
        print_job()  # the cache warm, as after any earlier print
        return best(edit_and_print)


def exports(pack: Path, scratch: Path) -> tuple[float, float]:
    """The best times of the PNG export and of the Tabletop Simulator export, cache warm."""

    def export(png: Path | None, tts: TtsRequest | None) -> None:
        loaded = load_checked(pack)
        assert loaded.pack is not None, "the generated pack must check"
        options = resolve_options(loaded.pack.print_settings, {"backs": "none"})
        printed = sheets.print_pack(loaded.pack, options, None, png_folder=png, tts=tts)
        assert not printed.failed, [d.message for d in printed.diagnostics]

    with cache.enabled(True):
        export(scratch / "png", None)  # the cache warm, as after any earlier print
        png = best(lambda: export(scratch / "png", None))
        tts = best(lambda: export(None, TtsRequest(scratch / "tts")))
    return png, tts


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pillbox-print-bench-") as scratch:
        os.environ["PILLBOX_CACHE_DIR"] = str(Path(scratch) / "cache")  # not the user's own
        pack = generate_pack(Path(scratch) / "pack", cards=arguments.cards, files=4)
        target = Path(scratch) / "cards.pdf"
        for backs, label in (("none", "faces"), ("duplex", "--backs duplex")):
            job, alone, faces = measure(pack, target, backs)
            rate, ratio = arguments.cards / job, job / alone
            print(f"print {arguments.cards} generated cards ({faces} printed), {label}, ", end="")
            print(f"best of {REPEATS}:")
            print(f"  pillbox print        {job:6.2f} s   {rate:6.1f} cards/s")
            print(
                f"  WeasyPrint alone     {alone:6.2f} s   ratio {ratio:.2f} "
                f"(goal ≤ {GOAL_RATIO}) {verdict(ratio <= GOAL_RATIO)}"
            )
        again = reprint(pack, target)
        print(f"print again after editing one card, the face cache warm, best of {REPEATS}:")
        print(
            f"  pillbox print        {again:6.2f} s   {arguments.cards / again:6.1f} cards/s "
            "(not the goal's figure: that is the cold print above)"
        )
        png, tts = exports(pack, Path(scratch))
        print(f"export {arguments.cards} generated cards, the face cache warm, best of {REPEATS}:")
        print(f"  print --png          {png:6.2f} s   {arguments.cards / png:6.1f} cards/s")
        print(
            f"  print --tts          {tts:6.2f} s   ratio {tts / png:.2f} "
            f"(goal ≤ {GOAL_TTS_RATIO}) {verdict(tts / png <= GOAL_TTS_RATIO)}"
        )


if __name__ == "__main__":
    main()
