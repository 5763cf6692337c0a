"""`pip install .` must give a working `pillbox` with its schemas and rulesets as package data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT, TESTS


def test_wheel_carries_data_and_runs_from_anywhere(tmp_path: Path) -> None:
    # Build from a copy, so setuptools' build folders never land in the work tree.
    source = tmp_path / "source"
    for name in ("dsl", "compiler", "runtime", "schemas", "content"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    wheel = next(wheels.glob("pillbox-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "schemas/ir.schema.json",
        "schemas/pack.schema.json",
        "schemas/ruleset.schema.json",
        "content/base/ruleset.yaml",
        "content/coma-ward/ruleset.yaml",
        "dsl/_lark_parser.py",
        "compiler/cli.py",
        "runtime/games/coma_ward.py",
        "compiler/printing/templates/cards.css",
        "compiler/printing/fonts/DejaVuSerif.ttf",
        "compiler/printing/fonts/LICENSE",
    ):
        assert needed in names, needed
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    pack = tmp_path / "pack"
    pack.mkdir()
    for card in (TESTS / "specimens" / "coma-ward").iterdir():
        (pack / card.name).write_bytes(card.read_bytes())
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import compiler, sys; print(compiler.__file__); "
            "from compiler.cli import main; sys.argv=['pillbox','check','pack']; main()",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(target))
    assert "pack: 21 cards in 5 files, 0 errors" in done.stdout.replace(
        "coma-ward-specimens", "pack"
    )
    tested = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from compiler.cli import main; sys.argv=['pillbox','test','pack']; main()",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.rstrip().endswith("3 passed, 0 failed")
