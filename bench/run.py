"""Benchmark `pillbox check` on a generated 10,000-card pack and on the specimens.

Run `python bench/run.py` (or `make bench`) from anywhere; `--cards N` makes a smaller or
larger pack. It prints one line per figure with its goal and PASS or MISS, and always exits 0:
it reports, it does not gate. Everything it writes (the pack, the check caches) lives in a
temporary folder of its own, removed at the end unless `--keep` is given.

The figures:
- cold check: cards per second of an in-process `check_paths` with an empty cache folder,
  best of up to 3 runs (fewer when one run alone would blow the time budget);
- bare parse: a plain Lark LALR parse of the same files, and the ratio cold check / parse;
- warm re-check: nothing changed since a run filled the cache, in-process and as a process;
- specimens: `pillbox check` of tests/specimens/coma-ward as a whole process, with and
  without the cache.

`--profile` also prints cProfile's top functions of one cold check and the slowest imports
of a `pillbox check` process (`python -X importtime`).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPECIMENS = Path("tests/specimens/coma-ward")

GOAL_CARDS_PER_SECOND = 1000.0
GOAL_PARSE_RATIO = 1.0
GOAL_WARM_SECONDS = 0.5
GOAL_SPECIMENS_SECONDS = 0.3

COLD_BUDGET_SECONDS = 40.0
"""Cold runs stop repeating once another run would take them past this many seconds."""
PARSE_BUDGET_SECONDS = 15.0
"""The same for the bare parse."""
WARM_BUDGET_SECONDS = 8.0
"""The same for each warm figure and each specimens figure."""


def _setup_paths() -> None:
    """Make the project and this folder importable however the script was started."""
    for folder in (ROOT, Path(__file__).resolve().parent):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def repeat_within(run: Callable[[], float], times: int, budget: float) -> list[float]:
    """Time `run` up to `times` times, stopping when one more run would pass the budget."""
    timings: list[float] = []
    while len(timings) < times:
        gc.collect()
        timings.append(run())
        if sum(timings) + timings[-1] > budget:
            break
    return timings


def pillbox_command() -> list[str] | None:
    """How to start `pillbox` as its own process, or None when it is not installed."""
    for candidate in (Path(sys.executable).parent / "pillbox", ROOT / ".venv" / "bin" / "pillbox"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate)]
    found = shutil.which("pillbox")
    return [found] if found else None


def stale_bytecode(folders: list[Path]) -> list[Path]:
    """Modules whose cached bytecode is missing or older than their source."""
    import importlib.util

    stale = []
    for source in sorted(p for folder in folders for p in folder.glob("**/*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            header = cached.read_bytes()[:16]
        except OSError:
            stale.append(source)
            continue
        info = source.stat()
        fresh = (
            header[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(header[4:8], "little") == 0
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF
        )
        if not fresh:
            stale.append(source)
    return stale


def time_process(command: list[str], env: dict[str, str], runs: int) -> tuple[list[float], int]:
    """The wall times of up to `runs` runs of a command (within budget), and its exit code."""
    codes: list[int] = []

    def run() -> float:
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, check=False)
        took = time.perf_counter() - start
        codes.append(done.returncode)
        if done.returncode not in (0, 1):
            sys.stderr.write(done.stderr.decode("utf-8", "replace"))
        return took

    return repeat_within(run, runs, WARM_BUDGET_SECONDS), codes[-1]


class Bench:
    """One benchmark run: its scratch folder, the generated pack, and the figures."""

    def __init__(self, cards: int, files: int, seed: int) -> None:
        self.cards, self.files, self.seed = cards, files, seed
        self.work = Path(tempfile.mkdtemp(prefix="pillbox-bench-"))
        self.pack = self.work / "pack"
        self.passed = 0
        self.figures = 0

    def process_env(self, cache: Path) -> dict[str, str]:
        """The environment of timed processes: their own cache and bytecode folders.

        Bytecode goes to a private folder (primed by an untimed run), so the figures show a
        steady state, as after `make` compiles everything, whatever the tree's __pycache__
        holds and whether PYTHONDONTWRITEBYTECODE is set.
        """
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PILLBOX_CACHE_DIR"] = str(cache)
        env["PYTHONPYCACHEPREFIX"] = str(self.work / "pycache")
        return env

    def prime(self, command: list[str] | None) -> None:
        """Fill the private bytecode folder; say if the tree's own bytecode is stale."""
        stale = stale_bytecode([ROOT / "dsl", ROOT / "compiler", ROOT / "runtime"])
        if command is None:
            return
        argv = [*command, "check", "--no-cache", str(SPECIMENS)]
        subprocess.run(
            argv, env=self.process_env(self.fresh_cache()), capture_output=True, check=False
        )
        if stale and os.environ.get("PYTHONDONTWRITEBYTECODE"):
            as_is = {**os.environ, "PILLBOX_CACHE_DIR": str(self.fresh_cache())}
            timings, _ = time_process(argv, as_is, 3)
            print(
                f"note: {len(stale)} project modules have stale or missing bytecode and "
                "PYTHONDONTWRITEBYTECODE is set, so every pillbox process started from this "
                f"shell compiles them again: specimens --no-cache takes "
                f"{statistics.median(timings):.3f} s that way (not a figure; "
                "`python -m compileall -q dsl compiler runtime` fixes it)",
                flush=True,
            )

    def fresh_cache(self) -> Path:
        """A new, empty cache folder inside the scratch folder."""
        return Path(tempfile.mkdtemp(prefix="cache-", dir=self.work))

    def report(self, text: str, ok: bool) -> None:
        """Print one figure line and count it."""
        self.figures += 1
        self.passed += ok
        print(f"{text} {verdict(ok)}", flush=True)

    def generate(self) -> None:
        """Write the pack and say how big it is."""
        from generate import generate_pack

        start = time.perf_counter()
        generate_pack(self.pack, self.cards, self.files, self.seed)
        took = time.perf_counter() - start
        texts = [p.read_bytes() for p in self.pack.glob("*.card")]
        size = sum(map(len, texts))
        lines = sum(t.count(b"\n") for t in texts)
        print(
            f"pack: {self.cards} cards in {self.files} files, {size / 1e6:.1f} MB, "
            f"{size / self.cards:.0f} bytes and {lines / self.cards:.1f} lines a card, "
            f"seed {self.seed} (generated in {took:.1f} s)",
            flush=True,
        )

    def check_once(self, cache: Path) -> tuple[float, Any]:
        """One in-process check of the pack with the given cache folder."""
        from compiler.check import check_paths

        os.environ["PILLBOX_CACHE_DIR"] = str(cache)
        start = time.perf_counter()
        result = check_paths([self.pack], use_cache=True)
        return time.perf_counter() - start, result

    def cold(self) -> tuple[float, Path]:
        """Figure (a); returns the best cold time and a cache folder the runs filled."""
        caches: list[Path] = []
        counted: list[int] = []

        def run() -> float:
            caches.append(self.fresh_cache())
            took, result = self.check_once(caches[-1])
            counted.append(result.cards)
            if result.errors:
                _show_errors(result)
            return took

        timings = repeat_within(run, 3, COLD_BUDGET_SECONDS)
        best, runs = min(timings), len(timings)
        rate = counted[-1] / best
        self.report(
            f"cold check: {rate:.0f} cards/s, {best:.2f} s for {counted[-1]} cards, best of {runs} "
            f"(goal >= {GOAL_CARDS_PER_SECOND:.0f} cards/s)",
            rate >= GOAL_CARDS_PER_SECOND,
        )
        return best, caches[-1]

    def bare_parse(self, cold_seconds: float) -> None:
        """Figure (b): a bare Lark parse of the same files, and the ratio to the cold check."""
        import lark

        grammar = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
        parser = lark.Lark(grammar, parser="lalr", lexer="contextual")
        texts = [p.read_text(encoding="utf-8") for p in sorted(self.pack.glob("**/*.card"))]

        def run() -> float:
            start = time.perf_counter()
            for text in texts:
                parser.parse(text)
            return time.perf_counter() - start

        timings = repeat_within(run, 3, PARSE_BUDGET_SECONDS)
        best, runs = min(timings), len(timings)
        ratio = cold_seconds / best
        self.report(
            f"bare parse: {best:.2f} s, best of {runs}; cold check / bare parse = {ratio:.2f} "
            f"(goal <= {GOAL_PARSE_RATIO:g})",
            ratio <= GOAL_PARSE_RATIO,
        )

    def warm(self, cache: Path, command: list[str] | None) -> None:
        """Figure (c): re-check with nothing changed, in-process and as a whole process."""
        if not any(cache.glob("check-*.json")):
            print("warm re-check: the cold run left no cache file; the figures below are cold")
        timings = repeat_within(lambda: self.check_once(cache)[0], 3, WARM_BUDGET_SECONDS)
        median = statistics.median(timings)
        self.report(
            f"warm re-check, in-process: {median:.3f} s, median of {len(timings)} "
            f"(goal <= {GOAL_WARM_SECONDS:g} s)",
            median <= GOAL_WARM_SECONDS,
        )
        if command is None:
            print("warm re-check, whole process: skipped, no pillbox command found")
            return
        timings, code = time_process(
            [*command, "check", str(self.pack)], self.process_env(cache), 3
        )
        took = statistics.median(timings)
        self.report(
            f"warm re-check, whole process: {took:.3f} s, median of {len(timings)}, exit {code} "
            f"(goal <= {GOAL_WARM_SECONDS:g} s)",
            took <= GOAL_WARM_SECONDS,
        )

    def specimens(self, command: list[str] | None) -> None:
        """Figure (d): `pillbox check` of the specimens as a process, without and with cache."""
        if command is None:
            print("specimens: skipped, no pillbox command found")
            return
        env = self.process_env(self.fresh_cache())
        for label, flags in (("--no-cache", ["--no-cache"]), ("with cache", [])):
            argv = [*command, "check", *flags, str(SPECIMENS)]
            if not flags:
                time_process(argv, env, 1)  # fill the cache
            timings, code = time_process(argv, env, 5)
            took = statistics.median(timings)
            self.report(
                f"specimens {label}, whole process: {took:.3f} s, median of {len(timings)}, "
                f"exit {code} "
                f"(goal <= {GOAL_SPECIMENS_SECONDS:g} s)",
                took <= GOAL_SPECIMENS_SECONDS,
            )

    def profile(self, command: list[str] | None) -> None:
        """cProfile one cold check, and list the slowest imports of a `pillbox` process."""
        import cProfile
        import pstats

        from compiler.check import check_paths

        os.environ["PILLBOX_CACHE_DIR"] = str(self.fresh_cache())
        profiler = cProfile.Profile()
        profiler.enable()
        check_paths([self.pack], use_cache=True)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout)
        for order in ("cumulative", "tottime"):
            print(f"\n--- cold check, cProfile, top 25 by {order}")
            stats.sort_stats(order).print_stats(25)
        if command is None:
            return
        env = self.process_env(self.fresh_cache())
        done = subprocess.run(
            [sys.executable, "-X", "importtime", command[0], "check", "--no-cache", str(SPECIMENS)],
            env=env,
            capture_output=True,
            check=False,
            text=True,
        )
        print("\n--- pillbox check of the specimens, python -X importtime, top 25 cumulative (us)")
        for cumulative, name in slowest_imports(done.stderr, 25):
            print(f"{cumulative:>10}  {name}")

    def close(self, keep: bool) -> None:
        """Remove the scratch folder, or say where it is."""
        if keep:
            print(f"kept: {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)


def slowest_imports(importtime: str, count: int) -> list[tuple[int, str]]:
    """The top-level imports with the largest cumulative time in `-X importtime` output."""
    found: list[tuple[int, str]] = []
    for line in importtime.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|", 2)
        found.append((int(cumulative), name.rstrip()))
    return sorted(found, reverse=True)[:count]


def _show_errors(result: Any) -> None:
    """The generated pack should check clean; show what the checker objected to."""
    print(
        f"note: the generated pack has {result.errors} errors (a generator or checker bug):",
        file=sys.stderr,
    )
    for diagnostic in [d for d in result.diagnostics if d.is_error][:5]:
        span = diagnostic.span
        print(
            f"  {span.file}:{span.line}:{span.column}: {diagnostic.code} {diagnostic.message}",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> int:
    """Generate the pack, measure, print the figures; always 0."""
    parser = argparse.ArgumentParser(description="Benchmark `pillbox check`.")
    parser.add_argument("--cards", type=int, default=10_000, help="cards in the generated pack")
    parser.add_argument("--files", type=int, default=50, help="card files in the generated pack")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated pack")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--profile", action="store_true", help="also print profiles")
    args = parser.parse_args(argv)
    _setup_paths()
    os.chdir(ROOT)
    started = time.perf_counter()
    bench = Bench(args.cards, args.files, args.seed)
    try:
        bench.generate()
        command = pillbox_command()
        bench.prime(command)
        cold_seconds, filled = bench.cold()
        bench.bare_parse(cold_seconds)
        bench.warm(filled, command)
        bench.specimens(command)
        print(
            f"goals met: {bench.passed} of {bench.figures} "
            f"(bench took {time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        if args.profile:
            bench.profile(command)
    finally:
        bench.close(args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
