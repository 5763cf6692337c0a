"""Shared fixtures: where the specimens are, and the switch that regenerates golden files."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from compiler.kept import keep_in_this_process

TESTS = Path(__file__).parent
ROOT = TESTS.parent
# The specimens the project was given live in tests/specimens/, and the suite reads them there
# only: nothing in the repository reaches outside it. A new specimen is copied in.
SPECIMEN_ROOTS = [TESTS / "specimens"]

# The suite plays on the pure runtime even where `make compiled` built one (the compiled runtime's
# own test turns it on): what it checks must not depend on what was built in the checkout.
os.environ.setdefault("PILLBOX_PURE_RUNTIME", "1")

# The gate's property tests draw the same examples every run, so a merge is never refused by a draw
# that no one saw locally; `make fuzz` sets PILLBOX_FUZZ_EXAMPLES and draws afresh to explore.
settings.register_profile("gate", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("explore" if "PILLBOX_FUZZ_EXAMPLES" in os.environ else "gate")

EXPECT_RE = re.compile(r"#\s*expect:\s*(\d+)(?::(\d+))?\s*(.*)")


MODULE_SECONDS = TESTS / "module-seconds.txt"
"""CPU seconds each test module takes alone, as `/usr/bin/time` measured them: the schedule."""


def _module_seconds() -> dict[str, float]:
    """The recorded CPU seconds of each test module, by file name."""
    lines = MODULE_SECONDS.read_text(encoding="utf-8").splitlines()
    rows = (line.split() for line in lines if line.strip() and not line.startswith("#"))
    return {name: float(seconds) for name, seconds in rows}


def pytest_configure(config: pytest.Config) -> None:
    """The suite's processes keep each file's check and generated module, as serve, the
    language server and tune do: most tests check the same packs again (a tenth of the suite's
    time). The commands it runs in a process of their own keep nothing, as a command does."""
    keep_in_this_process()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the slowest modules first. xdist (`--dist loadscope`, `--no-loadscope-reorder`) hands
    modules to the workers in this order, so the longest never starts near the end and runs on
    alone while the other cores idle; a module not yet measured counts as the slowest."""
    seconds = _module_seconds()
    slowest = max(seconds.values(), default=0.0)
    items.sort(key=lambda item: (-seconds.get(item.path.name, slowest), item.path.name))


def pytest_addoption(parser: pytest.Parser) -> None:
    """`pytest --update-goldens` (or `make test UPDATE=1`) rewrites the golden files."""
    parser.addoption("--update-goldens", action="store_true", help="rewrite golden files")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """Whether golden files are to be rewritten rather than compared."""
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep every test's check cache out of the user's real cache folder."""
    monkeypatch.setenv("PILLBOX_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def bad_specimens() -> list[Path]:
    """Every file that must be rejected."""
    return sorted(p for root in SPECIMEN_ROOTS for p in (root / "bad").glob("*.card"))


def good_packs() -> list[Path]:
    """Every specimen pack that must check clean."""
    return [root / "coma-ward" for root in SPECIMEN_ROOTS if (root / "coma-ward").is_dir()]


def expectation(path: Path) -> tuple[int, int | None, list[str]]:
    """Read `# expect: LINE[:COL] words ... more words` from a bad specimen's first line."""
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    found = EXPECT_RE.match(first)
    assert found, f"{path} has no '# expect:' first line"
    words = [w.strip() for w in found.group(3).split("...") if w.strip()]
    column = int(found.group(2)) if found.group(2) else None
    return int(found.group(1)), column, words


@pytest.fixture(autouse=True)
def validate_ir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every check in the tests also validates the IR against its schema: bugs surface here."""
    monkeypatch.setenv("PILLBOX_VALIDATE_IR", "1")


@dataclass(frozen=True)
class BundledPrint:
    """One print of a bundled pack from the work tree: its exit code, output and PDF."""

    code: int
    output: str
    pdf: Path


class BundledPrints:
    """The bundled packs, each printed from the work tree (duplex, no face cache) the first
    time a test asks for it: only the packs the tests read are printed, and once a session,
    whichever worker asks first (the others wait for it and read its files)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.names = sorted(m.parent.name for m in (ROOT / "content").glob("*/pack.yaml"))
        self._made: dict[str, BundledPrint] = {}

    def __getitem__(self, name: str) -> BundledPrint:
        if name not in self._made:
            self._made[name] = self._shared(name)
        return self._made[name]

    def _shared(self, name: str) -> BundledPrint:
        """The print another worker of this session made, or a new one it can read."""
        import fcntl
        import json

        from tests.helpers import run

        pdf, told = self.folder / f"{name}.pdf", self.folder / f"{name}.json"
        with (self.folder / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed, or when a worker dies
            if not told.exists():
                options = ("--backs", "duplex", "--no-cache")
                code, output = run("print", str(ROOT / "content" / name), "-o", str(pdf), *options)
                told.with_suffix(".tmp").write_text(json.dumps([code, output]))
                told.with_suffix(".tmp").replace(told)
            code, output = json.loads(told.read_text())
        return BundledPrint(code, output, pdf)


@pytest.fixture(scope="session")
def bundled_prints(tmp_path_factory: pytest.TempPathFactory) -> BundledPrints:
    """Prints of the bundled packs, made when first read, for the tests that need one."""
    base = tmp_path_factory.getbasetemp()
    # xdist gives each worker a folder in the session's: the prints go beside them, shared.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "bundled-prints"
    folder.mkdir(exist_ok=True)
    return BundledPrints(folder)
