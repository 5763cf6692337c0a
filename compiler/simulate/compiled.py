"""The optional mypyc-compiled runtime: `make compiled` builds it, `simulate` plays on it.

`make compiled` copies the runtime's sources to `build/compiled/` (never compiling in the source
tree: a stale `.so` next to an edited `.py` would silently win), compiles them there with mypyc
and writes last a stamp holding the digest of the sources it was built from. The build is
fresh while that digest is the one of the runtime's sources now; a stale or absent build is
never used, and PILLBOX_PURE_RUNTIME=1 forces the pure one. A process plays on the compiled
runtime when the build directory comes first on its `sys.path` before any runtime module is
imported; the games are the same, move for move (scripts/game_fingerprint.py says so).

This module imports nothing of the runtime, so that a process can load it to decide which
runtime it imports.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parent.parent.parent
"""The checkout whose runtime sources a build is compared with."""

COMPILED_GAMES = tuple(
    line.strip()
    for line in (ROOT / "runtime" / "games" / "compiled.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)
"""The game modules `make compiled` compiles, as runtime/games/compiled.txt lists them (read as
text, so that choosing the runtime imports none of it)."""

BUILD = ROOT / "build" / "compiled"
"""Where `make compiled` builds the runtime (gitignored, removed by `make clean`)."""

STAMP = "runtime.sha256"
"""The build's stamp, in its directory: the digest of the sources it was compiled from."""

PURE_ENV = "PILLBOX_PURE_RUNTIME"
"""Set to 1, a process's workers play on the pure runtime even when a fresh build exists."""

COMPILED = (
    "runtime/card_blocks.py",
    "runtime/cards.py",
    "runtime/checks.py",
    "runtime/datagame.py",
    "runtime/decisions.py",
    "runtime/dice.py",
    "runtime/events.py",
    "runtime/fork.py",
    "runtime/game.py",
    "runtime/identity_cache.py",
    "runtime/module.py",
    "runtime/rounds.py",
    "runtime/rules.py",
    "runtime/state.py",
    "runtime/stats.py",
    "runtime/whole.py",
    "runtime/wholerules.py",
    "runtime/world.py",
    "runtime/policies/__init__.py",
    "runtime/policies/base.py",
    "runtime/policies/evaluation.py",
    "runtime/policies/heuristics.py",
    "runtime/policies/lookahead.py",
    "runtime/policies/search.py",
    "runtime/policies/view.py",
    "runtime/simulation/reading.py",
    *(f"runtime/games/{name}" for name in COMPILED_GAMES),
)
"""The modules mypyc compiles: the engine's hot ones (with the games played from a ruleset's
`game:` section, runtime/datagame.py and runtime/wholerules.py, and the reading of a game into
its record and the loops that add a record to the totals, runtime/simulation/reading.py) and the
game modules the registry names (runtime/games/compiled.txt): the games whose sweeps are
benchmarked, whose games scripts/game_fingerprint.py proves the same compiled. The rest stay
interpreted: the records and totals a worker pickles for a parent that may run the pure runtime
(the rest of runtime/simulation/: a frozen dataclass compiled cannot be unpickled from the pure
one's state), the shim only mypyc reads (runtime/native.py), the odds policy
(runtime/policies/exact.py: mypyc 1.x fails on its loop over the log's named tuples), and the
other games' modules, which mypyc fails on or changes (a generic frozen dataclass loses its
`__dict__`), until each is proven the same."""

MYPYC_CONFIG = "[mypy]\npython_version = 3.11\nstrict = True\nignore_missing_imports = True\n"
"""mypyc's own settings: the project's mypy section warns of unused sections, and mypyc takes
any note for a failure."""

ENGINE = "runtime.game"
"""The engine's module: imported from a build, the process plays on the compiled runtime."""

Freshness = Literal["fresh", "stale", "absent"]


def runtime_sources(root: Path = ROOT) -> list[str]:
    """The runtime's Python sources under `root`, as sorted paths relative to it."""
    return sorted(
        path.relative_to(root).as_posix()
        for path in (root / "runtime").rglob("*.py")
        if "__pycache__" not in path.parts
    )


def sources_digest(root: Path = ROOT) -> str:
    """The digest of the runtime's sources under `root` (their paths and contents) and of how
    they are compiled (the modules, mypyc's settings, this Python's version): a change to any
    makes a build stale."""
    digest = hashlib.sha256()
    recipe = [sys.implementation.cache_tag or "", MYPYC_CONFIG, *COMPILED]
    digest.update("\n".join(recipe).encode() + b"\0")
    for name in runtime_sources(root):
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return digest.hexdigest()


def freshness(root: Path = ROOT, build: Path = BUILD) -> Freshness:
    """Whether the build in `build` was compiled from the runtime sources under `root` as
    they are now (fresh), from other ones (stale), or is not there (absent)."""
    try:
        stamp = (build / STAMP).read_text(encoding="utf-8").strip()
    except OSError:
        return "absent"
    return "fresh" if stamp == sources_digest(root) else "stale"


def forced_pure(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether PILLBOX_PURE_RUNTIME asks for the pure runtime whatever was built."""
    return environ.get(PURE_ENV, "") not in ("", "0")


def usable_build(
    root: Path = ROOT, build: Path = BUILD, environ: Mapping[str, str] = os.environ
) -> Path | None:
    """The compiled runtime's directory when it is fresh and not refused by PILLBOX_PURE_RUNTIME,
    otherwise None (play on the pure runtime)."""
    if forced_pure(environ):
        return None
    return build if freshness(root, build) == "fresh" else None


def runs_compiled() -> bool:
    """Whether this process plays on the compiled runtime: its engine was imported from a build
    (no `.py` source)."""
    engine = sys.modules.get(ENGINE)
    return engine is not None and not str(getattr(engine, "__file__", "")).endswith(".py")


def import_compiled(build: Path | None) -> bool:
    """From now on, import the runtime from `build` (None: stay pure): True when this process
    will play on the compiled runtime.

    Only a process that has not imported the engine yet can switch (none of its games or packs
    exists): any runtime modules it has imported so far are dropped, to be imported again from
    the build. A process that already plays keeps its runtime.
    """
    if runs_compiled():
        return True
    if build is None or ENGINE in sys.modules:
        return False
    for name in [name for name in sys.modules if name.split(".")[0] == "runtime"]:
        del sys.modules[name]
    sys.path.insert(0, str(build))
    return True


def stale_note(
    root: Path = ROOT, build: Path = BUILD, environ: Mapping[str, str] = os.environ
) -> str | None:
    """One line saying a stale build is being ignored, or None when there is none (or the pure
    runtime was asked for)."""
    if forced_pure(environ) or freshness(root, build) != "stale":
        return None
    return f"note: {build} is stale (`make compiled` builds it anew); playing on the pure runtime"


@contextmanager
def first_on_path(directory: Path | None) -> Iterator[None]:
    """Put `directory` first on `sys.path` while the block runs (nothing when None).

    A spawned worker starts with its parent's `sys.path`, as it is when the worker starts, and
    imports the parent's main module before anything of ours runs: so the path a worker must
    import the runtime from is the parent's while it starts its workers. Imports the parent
    itself makes meanwhile would find the build first too: start workers and nothing else.
    """
    if directory is None:
        yield
        return
    entry = str(directory)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path.remove(entry)


def build_runtime(root: Path = ROOT, build: Path = BUILD) -> int:
    """Compile the runtime sources under `root` into `build` (anew, unless it is fresh) with the
    mypyc beside this Python; mypyc's exit status, its output going to `build`/mypyc-build.log."""
    mypyc = str(Path(sys.executable).with_name("mypyc"))
    if freshness(root, build) == "fresh":
        print(f"{build}: fresh, compiled from the runtime sources as they are")
        return 0
    shutil.rmtree(build, ignore_errors=True)
    for name in runtime_sources(root):
        (build / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, build / name)
    (build / "mypyc.ini").write_text(MYPYC_CONFIG, encoding="utf-8")
    log = build / "mypyc-build.log"
    with log.open("w", encoding="utf-8") as output:
        status = subprocess.call(
            [mypyc, "--config-file", "mypyc.ini", *COMPILED],
            cwd=build,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    if status != 0:
        print(f"mypyc failed (exit {status}); see {log}", file=sys.stderr)
        return status
    # Last, and from the copies: a source edited during the build leaves the build stale.
    (build / STAMP).write_text(sources_digest(build) + "\n", encoding="utf-8")
    print(f"{build}: compiled {len(COMPILED)} runtime modules with mypyc")
    return 0


def main() -> int:
    """`python -m compiler.simulate.compiled`: build the compiled runtime unless it is fresh."""
    return build_runtime()


if __name__ == "__main__":
    sys.exit(main())
