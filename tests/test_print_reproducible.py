"""The same pack printed twice, in two processes at different times, gives the same bytes.

WeasyPrint subsets fonts with HarfBuzz where the machine has libharfbuzz-subset, else with
fontTools, which stamps the clock into each font it saves: both ways are tried.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TESTS

PRINT = """
import sys
import weasyprint.pdf.fonts
if sys.argv[1] == "fonttools":
    weasyprint.pdf.fonts.harfbuzz_subset = None
from compiler.cli import main
main(sys.argv[2:], prog_name="pillbox")
"""
"""`pillbox print` with the font subsetter chosen by the first argument."""


def _harfbuzz_subsets() -> bool:
    from weasyprint.pdf.fonts import harfbuzz, harfbuzz_subset

    return bool(harfbuzz_subset) and bool(harfbuzz.hb_version_atleast(4, 1, 0))


def _print(subsetter: str, pack: Path, out: Path, cache: Path, *options: str) -> None:
    """`pillbox print` in a process of its own, with PNG previews beside the PDF."""
    out.mkdir()
    env = {**os.environ, "PILLBOX_CACHE_DIR": str(cache)}
    env.pop("SOURCE_DATE_EPOCH", None)  # pillbox fixes its dates itself
    command = [sys.executable, "-c", PRINT, subsetter, "print", str(pack)]
    command += ["-o", str(out / "cards.pdf"), "--png", str(out / "png"), "--backs", "duplex"]
    command += options
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.*")}


@pytest.mark.parametrize("subsetter", ["fonttools", "harfbuzz"])
def test_two_prints_a_second_apart_are_byte_identical(tmp_path: Path, subsetter: str) -> None:
    if subsetter == "harfbuzz" and not _harfbuzz_subsets():
        pytest.skip("this machine has no libharfbuzz-subset")
    # Two specimen files: faces of three decks, backs, every font style the design uses.
    specimens = TESTS / "specimens" / "coma-ward"
    pack = tmp_path / "pack"
    pack.mkdir()
    for name in ("pack.yaml", "hallucinations.card", "rooms.card"):
        shutil.copy(specimens / name, pack / name)
    cache = tmp_path / "cache"
    runs = {"no cache": ("--no-cache",), "cache cold": (), "cache warm": ()}
    made = {}
    for number, (name, options) in enumerate(runs.items()):
        if number:
            time.sleep(1.1)  # the clock's seconds differ between the prints
        out = tmp_path / f"run{number}"
        _print(subsetter, pack, out, cache, *options)
        made[name] = _files(out)
    first = made["no cache"]
    assert "cards.pdf" in first and any(name.endswith(".png") for name in first)
    for name, files in made.items():
        assert files.keys() == first.keys(), name
        for file, data in files.items():
            assert data == first[file], f"{file} differs in the print with {name}"
