"""Golden tests: the exact text `pillbox check` prints for bad inputs.

Each input has an expected-output file; `make test UPDATE=1` (pytest --update-goldens) rewrites
them. Read the diff of a regenerated golden before committing it: it is the user's view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import main
from tests.conftest import TESTS

GOLDEN = TESTS / "golden"
CASES = sorted((GOLDEN / "cases").glob("*.card"))
BAD = sorted((TESTS / "specimens" / "bad").glob("*.card"))


def rendered(path: Path, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What `pillbox check --color never PATH` prints, run from `cwd`."""
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--color", "never", str(path.relative_to(cwd))]
    )
    assert result.exit_code == 1, result.output
    return result.output


def compare(actual: str, expected_file: Path, update: bool) -> None:
    """Compare with the stored golden, or rewrite it."""
    if update or not expected_file.exists():
        expected_file.parent.mkdir(parents=True, exist_ok=True)
        expected_file.write_text(actual, encoding="utf-8")
        if not update:
            pytest.fail(f"{expected_file} was missing and has been written; check it in")
    assert actual == expected_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_golden_case(case: Path, update_goldens: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    compare(rendered(case, GOLDEN, monkeypatch), case.with_suffix(".txt"), update_goldens)


@pytest.mark.parametrize("case", BAD, ids=lambda p: p.stem)
def test_golden_bad_specimen(
    case: Path, update_goldens: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = GOLDEN / "bad" / case.with_suffix(".txt").name
    compare(rendered(case, TESTS, monkeypatch), expected, update_goldens)
