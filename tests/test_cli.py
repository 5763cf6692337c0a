"""The CLI contract that scripts and CI rely on: formats, JSON keys and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"
VALID_ROOM = 'room "Linen Cupboard" {\n    number 8\n    when revealed { draw item }\n}\n'
BAD = TESTS / "specimens" / "bad"

GOOD_CARD = 'item "Clean Towel" {\n    type clothing\n}\n'


def test_json_report_has_the_promised_keys() -> None:
    code, output = run("check", "--format", "json", str(BAD / "unknown-verb.card"))
    report = json.loads(output)
    assert code == 1
    assert set(report) == {
        "packs",
        "files",
        "cards",
        "errors",
        "warnings",
        "executable",
        "diagnostics",
    }
    diagnostic = report["diagnostics"][0]
    for key in (
        "code",
        "severity",
        "message",
        "help",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
    ):
        assert key in diagnostic
    assert (diagnostic["line"], diagnostic["column"], diagnostic["end_column"]) == (5, 9, 13)
    assert diagnostic["help"] == "did you mean 'gain'?"
    assert 0 <= report["executable"] <= 1


def test_github_format_is_workflow_commands() -> None:
    code, output = run("check", "--format", "github", str(BAD / "unknown-stat.card"))
    assert code == 1
    line = output.splitlines()[0]
    assert line.startswith("::error file=")
    assert ",line=5,col=14," in line
    assert "did you mean 'terror'" in line


def test_github_format_escapes_newlines_and_percent(tmp_path: Path) -> None:
    make_pack(
        tmp_path,
        a='hallucination "100% sure" {\n  situation "x"\n  option "a" { end turn }\n}\n'
        'hallucination "100% sure" {\n  situation "x"\n  option "a" { end turn }\n}\n',
    )
    _, output = run("check", "--format", "github", str(tmp_path))
    lines = [line for line in output.splitlines() if line.startswith("::error")]
    assert lines and "100%25 sure" in lines[0] and "100% sure" not in lines[0]


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    code, output = run("check", str(tmp_path / "nope"))
    assert code == 2
    assert "no such file" in output


def test_folder_without_pack_needs_a_ruleset(tmp_path: Path) -> None:
    (tmp_path / "a.card").write_text(GOOD_CARD)
    code, output = run("check", str(tmp_path))
    assert code == 2 and "--ruleset" in output
    code, output = run("check", "--ruleset", "coma-ward", str(tmp_path))
    assert code == 0, output


def test_loose_card_with_ruleset(tmp_path: Path) -> None:
    card = tmp_path / "a.card"
    card.write_text(GOOD_CARD)
    code, output = run("check", "--ruleset", "coma-ward", str(card))
    assert code == 0, output
    code, output = run("check", "--ruleset", "coma-wards", str(card))
    assert code == 2 and "did you mean 'coma-ward'" in output


def test_bad_flag_is_a_usage_error() -> None:
    code, _ = run("check", "--format", "xml", str(SPECIMENS))
    assert code == 2


def test_strict_fails_on_warnings(tmp_path: Path) -> None:
    # A file that holds no card beside one that does: a warning (W0408).
    pack = make_pack(tmp_path / "pack", rooms=VALID_ROOM, empty="# nothing yet\n")
    code, output = run("check", str(pack))
    assert code == 0 and "W0408" in output
    code, _ = run("check", "--strict", str(pack))
    assert code == 1


def test_internal_error_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.check

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(compiler.check, "check_paths", explode)
    code, output = run("check", str(SPECIMENS))
    assert code == 3
    assert "internal error" in output and "--debug" in output
    assert "Traceback" not in output


def test_checking_one_file_of_a_pack_uses_the_rest_as_context(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        towel=GOOD_CARD,
        user='hallucination "Bathtub" {\n  situation "s"\n  option "Soak" { draw item }\n'
        '  test "t" { use "Clean Towel"; choose "Soak" }\n}\n',
    )
    code, output = run("check", "--format", "json", str(pack / "user.card"))
    assert code == 0, output
    assert json.loads(output)["files"] == 1


def test_pack_yaml_errors_have_line_and_column(tmp_path: Path) -> None:
    make_pack(
        tmp_path, "pack: Bad Name\ntitle: T\nversion: 0.1.0\nruleset: coma-ward\n", a=GOOD_CARD
    )
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    diagnostic = json.loads(output)["diagnostics"][0]
    assert diagnostic["file"].endswith("pack.yaml")
    assert (diagnostic["line"], diagnostic["column"]) == (1, 7)


def test_broken_yaml_is_a_diagnostic(tmp_path: Path) -> None:
    make_pack(tmp_path, "pack: [unclosed\ntitle: T\n", a=GOOD_CARD)
    code, output = run("check", "--color", "never", str(tmp_path))
    assert code == 1
    assert "pack.yaml:" in output and "cannot be read" in output


def test_ruleset_path_outside_the_pack_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "evil.yaml"
    outside.write_text("ruleset: evil\ntitle: Evil\nversion: 1\n")
    pack = make_pack(
        tmp_path / "pack", "pack: p\ntitle: T\nversion: 0.1.0\nruleset: ../evil.yaml\n", a=GOOD_CARD
    )
    code, output = run("check", str(pack))
    assert code == 1 and "outside the pack" in output


def test_ruleset_file_inside_the_pack_extends_a_bundled_one(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        "pack: p\ntitle: T\nversion: 0.1.0\nruleset: rules/house.yaml\n",
        a='item "Clean Towel" {\n  type clothing\n  use { sneeze }\n}\n',
    )
    (pack / "rules").mkdir()
    (pack / "rules" / "house.yaml").write_text(
        "ruleset: house\ntitle: House rules\nversion: 1\nextends: coma-ward\n"
        "verbs:\n  sneeze: {pattern: sneeze}\n  rummage: null\n"
    )
    code, output = run("check", str(pack))
    assert code == 0, output


def test_card_file_that_is_not_utf8(tmp_path: Path) -> None:
    make_pack(tmp_path)
    (tmp_path / "a.card").write_bytes(b'item "x" {\n  type \xff\n}\n')
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    diagnostic = json.loads(output)["diagnostics"][0]
    assert (diagnostic["line"], diagnostic["column"]) == (2, 8)


def test_warm_cache_gives_the_same_report(tmp_path: Path) -> None:
    first = run("check", "--format", "json", str(BAD))
    second = run("check", "--format", "json", str(BAD))
    assert first == second


def test_installed_command_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "check", "--color", "never", str(SPECIMENS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("coma-ward-specimens: 21 cards")


def test_unclosed_quote_in_pack_yaml_points_at_the_quote(tmp_path: Path) -> None:
    make_pack(tmp_path, 'pack: p\ntitle: "Night Shift: extra rooms\nversion: 0.1.0\n', a=GOOD_CARD)
    code, output = run("check", "--format", "json", str(tmp_path))
    assert code == 1
    diagnostic = json.loads(output)["diagnostics"][0]
    assert (diagnostic["line"], diagnostic["column"]) == (2, 8)


def test_ruleset_errors_use_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = make_pack(
        tmp_path / "p", "pack: p\ntitle: T\nversion: 0.1.0\nruleset: house.yaml\n", a=GOOD_CARD
    )
    (pack / "house.yaml").write_text("ruleset: house\ntitle: H\nversion: 1\nstats: 3\n")
    monkeypatch.chdir(tmp_path)
    code, output = run("check", "--format", "json", "p")
    assert code == 1
    assert json.loads(output)["diagnostics"][0]["file"] == "p/house.yaml"
