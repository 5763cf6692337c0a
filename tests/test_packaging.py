"""`pip install .` must give a working `pillbox` with everything it reads as package data.

The wheel is built from a copy of the tree and installed in a fresh virtualenv outside the
repository; from there every bundled pack is checked, tested and printed. The virtualenv borrows
the dependencies the lock installed (a `.pth` line to this environment's site-packages) rather
than downloading them again: what is on trial is pillbox's own files, which all come from the
wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, TESTS, BundledPrints

PACKAGES = ("dsl", "compiler", "runtime", "schemas", "content")
"""The folders the wheel is built from, as pyproject.toml declares them."""


def _tree_files() -> set[str]:
    """Every file of the packages as the wheel must carry it (caches aside)."""
    return {
        path.relative_to(ROOT).as_posix()
        for name in PACKAGES
        for path in (ROOT / name).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy so setuptools' build folders never land in the work tree."""
    where = tmp_path_factory.mktemp("wheel")
    source = where / "source"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = where / "wheels"
    pip = [sys.executable, "-m", "pip"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels)]
    # "./source", not "source": pip would take a bare name for a package on the index.
    subprocess.run([*build, "./source"], check=True, capture_output=True, cwd=where)
    return next(wheels.glob("pillbox-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv outside the repository with the wheel installed: its bin folder."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # uv, as `uv pip install` and `uv tool install` do by default on Linux, hard-links every
    # installed file from its cache: pillbox must not take its own files for hostile links.
    uv = Path(sys.executable).parent / "uv"
    cache = tmp_path_factory.mktemp("uv-cache")
    install = [str(uv), "pip", "install", "--python", str(python), "--no-deps", "--offline"]
    install += ["--link-mode", "hardlink", "--cache-dir", str(cache), "--quiet"]
    # Compiled once here, as pip does by default: else each of the many commands below compiles
    # pillbox afresh wherever PYTHONDONTWRITEBYTECODE is set (a third of a second a command).
    install += ["--compile-bytecode"]
    subprocess.run([*install, str(wheel)], check=True, capture_output=True)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Appended after the venv's own site-packages: pillbox is found in the wheel first.
    deps = sysconfig.get_paths()["purelib"]
    (Path(purelib) / "_pillbox_test_dependencies.pth").write_text(deps + "\n")
    return venv / "bin"


def _run(bin_folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed `pillbox`, run outside the repository with nothing of it on the path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PILLBOX_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run(
        [str(bin_folder / "pillbox"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=240,
    )


def test_the_wheel_carries_every_file_of_the_packages(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_tree_files() - names)
    assert not missing, f"the wheel lacks {missing}"
    # The bundled pack's backs are a case that was missed once.
    assert "content/coma-ward/templates/back-item.html" in names


def test_the_installed_command_runs_from_its_own_files(installed: Path, tmp_path: Path) -> None:
    bundled = _bundled_packs(installed, tmp_path)[0] / "pack.yaml"
    assert bundled.stat().st_nlink > 1  # hard-linked from uv's cache
    done = subprocess.run(
        [str(installed / "python"), "-c", "import compiler, content; print(compiler.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.startswith(str(installed.parent)), done.stdout
    pack = tmp_path / "pack"
    shutil.copytree(TESTS / "specimens" / "coma-ward", pack)
    checked = _run(installed, "check", "pack", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "21 cards in 5 files, 0 errors" in checked.stdout
    tested = _run(installed, "test", "pack", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.rstrip().endswith("3 passed, 0 failed")


def _bundled_packs(bin_folder: Path, cwd: Path) -> list[Path]:
    """The folders of the packs the installed package bundles."""
    found = subprocess.run(
        [str(bin_folder / "python"), "-c", "import content; print(content.__path__[0])"],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
    )
    return sorted(path.parent for path in Path(found.stdout.strip()).glob("*/pack.yaml"))


def test_every_bundled_pack_checks_tests_and_prints_from_the_wheel(
    installed: Path, tmp_path: Path, bundled_prints: BundledPrints
) -> None:
    packs = _bundled_packs(installed, tmp_path)
    assert [pack.name for pack in packs] == bundled_prints.names and packs
    assert not any(pack.is_relative_to(ROOT) for pack in packs)
    # One `check` of them all (each pack is checked and summed up on its own), a `test` each.
    checked = _run(installed, "check", *map(str, packs), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for pack in packs:
        summary = rf"^{re.escape(pack.name)}: \d+ cards in \d+ files?, 0 errors,"
        assert re.search(summary, checked.stdout, re.MULTILINE), (pack.name, checked.stdout)
        tested = _run(installed, "test", str(pack), cwd=tmp_path)
        assert tested.returncode == 0, (pack.name, tested.stdout + tested.stderr)
    for pack in _printed_from_the_wheel(packs):
        pdf = tmp_path / f"{pack.name}.pdf"
        options = ("--backs", "duplex", "--no-cache")  # as the work tree's print
        printed = _run(installed, "print", str(pack), "-o", str(pdf), *options, cwd=tmp_path)
        assert printed.returncode == 0, printed.stdout + printed.stderr
        # The same bytes as the print from the work tree: every template and back came along.
        assert pdf.read_bytes() == bundled_prints[pack.name].pdf.read_bytes(), pack.name


def _printed_from_the_wheel(packs: list[Path]) -> list[Path]:
    """Every pack with templates of its own, and the smallest of the others: a pack without
    templates prints from the same shipped files as any other, so one print proves them (the
    four packs printed twice were a minute of the suite)."""
    own = [pack for pack in packs if (pack / "templates").is_dir()]
    plain = [pack for pack in packs if pack not in own]
    smallest = min(plain, key=_card_text_size)
    return [*own, smallest] if plain else own


def _card_text_size(pack: Path) -> int:
    """How much card text a pack prints: its card files, and a sheet's template once a row."""
    size = sum(f.stat().st_size for f in pack.rglob("*.card"))
    rows = sum(f.read_text().count("\n") - 1 for f in pack.rglob("*.csv"))
    return size + max(rows, 0) * sum(f.stat().st_size for f in pack.rglob("*.card-template"))


def test_a_new_pack_made_by_the_wheel_checks_tests_and_prints(
    installed: Path, tmp_path: Path
) -> None:
    for folder, *how in (("mypack",), ("fromcw", "--from", "coma-ward")):
        made = _run(installed, "new", folder, *how, cwd=tmp_path)
        assert made.returncode == 0, made.stdout + made.stderr
    # One `check` of both (each is checked and summed up on its own); a copy's tests are the
    # bundled pack's, run from the wheel above, and it prints from the templates it carries, as
    # the bundled pack prints above: checked is enough.
    checked = _run(installed, "check", "mypack", "fromcw", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for folder in ("mypack", "fromcw"):
        summary = rf"^{folder}: \d+ cards in \d+ files?, 0 errors,"
        assert re.search(summary, checked.stdout, re.MULTILINE), (folder, checked.stdout)
    tested = _run(installed, "test", "mypack", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    printed = _run(installed, "print", "mypack", "-o", "mypack.pdf", cwd=tmp_path)
    assert printed.returncode == 0, printed.stdout + printed.stderr
    assert (tmp_path / "fromcw" / "templates" / "back-item.html").is_file()
    assert (tmp_path / "mypack" / ".github" / "workflows" / "cards.yml").is_file()
