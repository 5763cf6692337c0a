"""The specimens are the executable specification: the good pack checks, every bad file fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import main
from tests.conftest import bad_specimens, expectation, good_packs


def run(*args: str) -> tuple[int, str]:
    """Run the CLI in-process; return the exit code and everything it printed."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("pack", good_packs(), ids=lambda p: str(p.parent.parent.name))
def test_specimen_pack_checks_clean(pack: Path) -> None:
    code, output = run("check", "--format", "json", str(pack))
    report = json.loads(output)
    assert code == 0, output
    assert report["errors"] == 0
    assert report["cards"] == 21 and report["files"] == 5
    assert report["packs"] == ["coma-ward-specimens"]


@pytest.mark.parametrize("pack", good_packs(), ids=lambda p: str(p.parent.parent.name))
def test_specimen_summary_line(pack: Path) -> None:
    code, output = run("check", "--color", "never", str(pack))
    assert code == 0
    last = output.strip().splitlines()[-1]
    assert last.startswith("coma-ward-specimens: 21 cards in 5 files, 0 errors, ")
    assert last.endswith("of effect lines executable")


@pytest.mark.parametrize(
    "path", bad_specimens(), ids=lambda p: f"{p.parent.parent.parent.name}/{p.name}"
)
def test_bad_specimen_is_rejected_where_it_says(path: Path) -> None:
    line, column, words = expectation(path)
    code, output = run("check", "--format", "json", str(path))
    assert code == 1, output
    report = json.loads(output)
    here = [
        d
        for d in report["diagnostics"]
        if d["severity"] == "error"
        and d["line"] == line
        and (column is None or d["column"] == column)
    ]
    assert here, f"no error at {line}:{column}; got {report['diagnostics']}"
    assert any(
        all(w.lower() in (d["message"] + " " + (d["help"] or "")).lower() for w in words)
        for d in here
    ), f"no error at {line}:{column} mentions {words}: {here}"
    assert "Traceback" not in output


@pytest.mark.parametrize("folder", sorted({p.parent for p in bad_specimens()}), ids=str)
def test_whole_bad_folder_reports_every_file_in_one_run(folder: Path) -> None:
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1
    report = json.loads(output)
    cards = sorted(folder.glob("*.card"))
    failing = {Path(d["file"]).name for d in report["diagnostics"] if d["severity"] == "error"}
    assert failing == {p.name for p in cards}
    assert report["files"] == len(cards)
