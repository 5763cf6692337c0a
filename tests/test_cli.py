"""The CLI contract that scripts and CI rely on: formats, JSON keys and exit codes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.yamlio import YamlError, load_yaml
from tests.conftest import TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"
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


def test_strict_fails_on_warnings() -> None:
    code, _ = run("check", str(SPECIMENS))
    assert code == 0  # the specimen chart leaves C-B-A unassigned: a warning
    code, _ = run("check", "--strict", str(SPECIMENS))
    assert code == 1


def test_internal_error_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("compiler.commands.check.check_paths", explode)
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


def test_a_yaml_syntax_error_has_help_a_caret_under_the_whole_value_and_no_false_figures(
    tmp_path: Path,
) -> None:
    make_pack(
        tmp_path, "pack: p\ntitle: X: the game\nversion: 0.1.0\nruleset: coma-ward\n", a=GOOD_CARD
    )
    code, output = run("check", "--color", "never", str(tmp_path))
    assert code == 1
    assert "pack.yaml:2:8: error[E0401]" in output
    assert "2 | title: X: the game\n  |        ^^^^^^^^^^^\n" in output
    assert 'help: a value with ": " in it goes in quotes: title: "X: the game"' in output
    assert "executable" not in output and "0 cards" not in output
    assert "1 error, 0 warnings; no card was checked" in output


@pytest.mark.parametrize(
    ("text", "caret", "help"),
    [
        ("pack: p\ntitle foo\n", "title foo", "write this line as `key: value`"),
        ("pack: p\n\ttitle: foo\n", "\t", "indent with spaces"),
        ('pack: p\ntitle: "foo\n', '"foo', 'close the text with a second "'),
        ("pack: p\ntitle: @foo # a note\n", "@foo", 'goes in quotes: "@foo"'),
        ("pack: p\ntitle: x\n- a\n", "-", "a list goes under its key"),
        ("pack: p\npack: q\n", "pack", "write each key once"),
        ("pack: p\ntitle: x\n  more: y\n", "more", "line this key up"),
        ("pack: p\nsources: [a, b\nversion: 1\n", ":", "close the [ (opened on line 2) with ]"),
        ("pack: p\ntitle: ]x\n", "]x", "match the bracket, or put the value in quotes"),
        ("pack: p\ntitle: |x\n", "|x", 'goes in quotes: "|x"'),
    ],
)
def test_each_yaml_syntax_error_underlines_the_wrong_word_and_says_how_to_write_it(
    text: str, caret: str, help: str
) -> None:
    with pytest.raises(YamlError) as raised:
        load_yaml(text, "pack.yaml")
    diagnostic = raised.value.diagnostic
    span = diagnostic.span
    line = text.splitlines()[span.line - 1]
    assert line[span.column - 1 : span.end_column - 1] == caret
    assert diagnostic.help is not None and help in diagnostic.help


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


@pytest.mark.parametrize("command", ["check", "test"])
def test_color_always_colours_piped_output(command: str) -> None:
    # Through a pipe (no terminal), `always` still colours and `never` never does.
    coloured = subprocess.run(
        [sys.executable, "-m", "compiler", command, "--color", "always", str(SPECIMENS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "\x1b[" in coloured.stdout, coloured.stdout
    plain = subprocess.run(
        [sys.executable, "-m", "compiler", command, "--color", "never", str(SPECIMENS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "\x1b[" not in plain.stdout


@pytest.mark.parametrize(
    ("setting", "column", "words"),
    [
        ("bleed: 300mm", 10, "bleed '300mm': give millimetres from 0 to 10"),
        ("bleed: 3", 10, "did you mean '3mm'?"),
        ("card: pokr", 9, "did you mean 'poker'? the sizes are poker (63.5 × 88.9 mm), bridge"),
        ("card: 400x90mm", 9, "each side must be from 10 to 300 mm"),
    ],
)
def test_print_settings_print_would_refuse_are_refused_by_check_at_their_line(
    tmp_path: Path, setting: str, column: int, words: str
) -> None:
    manifest = (
        f"pack: p\ntitle: P\nversion: 1.0.0\nruleset: coma-ward\nprint:\n  paper: a4\n  {setting}\n"
    )
    make_pack(tmp_path, manifest, a=GOOD_CARD)
    for command in ("check", "print"):
        code, output = run(
            command, str(tmp_path), *(["-o", str(tmp_path / "x.pdf")] * (command == "print"))
        )
        assert code == 1, output
        assert f"pack.yaml:7:{column}: error[E0403]" in output and words in output, output
    assert not (tmp_path / "x.pdf").exists()


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    code, output = run(
        "print",
        str(SPECIMENS),
        "--only",
        "The Figure at the End of the Hall",
        "-o",
        str(tmp_path / "one.pdf"),
        "--png",
        str(tmp_path / "png"),
    )
    assert code == 0, output
    assert "1 card on 1 page" in output and "wrote 1 PNG preview to" in output


def test_check_with_no_path_checks_the_folder_it_runs_in() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "check", "--color", "never"],
        cwd=SPECIMENS,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith("coma-ward-specimens: 21 cards")


def test_a_broken_file_is_named_and_clean_cards_still_play(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(SPECIMENS, pack)
    (pack / "broken.card").write_text(
        'item "Cracked Mug" {\n    type weapon\n    use { gain sanity 1 }\n}\n'
    )
    code, output = run("test", str(pack))
    last = output.rstrip().splitlines()[-1]
    named = re.fullmatch(r"1 error in (\S*broken\.card): fix them first \(pillbox check \1\)", last)
    assert code == 1 and named, last
    # A clean card of another file plays, is worked out and prints, with a note.
    code, output = run(
        "play", str(pack), "Music from the Nursery", "--choose", "Hum along", "--seed", "1"
    )
    assert code == 0 and "broken.card, which has errors" in output, output
    code, output = run("odds", str(pack), "Music from the Nursery")
    assert code == 0 and "Hum along" in output
    code, output = run("print", str(pack), "--only", "hallucination", "-o", str(tmp_path / "h.pdf"))
    assert code == 0 and "--only 'hallucination' is printed from the rest" in output
    # The broken card itself, or its kind, still stops at its errors.
    code, output = run("odds", str(pack), "Cracked Mug")
    assert code == 1 and "'sanity' is not" in output
    code, output = run("print", str(pack), "--only", "item", "-o", str(tmp_path / "i.pdf"))
    assert code == 1 and not (tmp_path / "i.pdf").exists()


def test_pack_yaml_allow_silences_a_warning_code_with_its_reason(tmp_path: Path) -> None:
    card = 'phenomenon "Night" {\n    number 1\n    clue order A B\n    mode cooperative\n}\n'
    plain = "pack: p\ntitle: P\nversion: 1.0.0\nruleset: coma-ward\n"
    make_pack(tmp_path / "warned", plain, a=card)
    code, output = run("check", "--strict", str(tmp_path / "warned"))
    assert code == 1 and "warning[W0323]" in output
    allowing = plain + (
        'allow:\n  W0323: "the other orders are for a later set"\n'
        '  W0324: "a set of phenomena, not a game"\n'  # no clue, no room
    )
    make_pack(tmp_path / "allowed", allowing, a=card)
    code, output = run("check", "--strict", str(tmp_path / "allowed"))
    assert code == 0 and "W0323" not in output.replace("(3 allowed by pack.yaml)", "")
    assert "0 warnings (3 allowed by pack.yaml)" in output
    # Only warnings, and only with a reason.
    refused = plain + 'allow:\n  E0201: "never"\n  W0323: ""\n'
    make_pack(tmp_path / "refused", refused, a=card)
    code, output = run("check", str(tmp_path / "refused"))
    assert code == 1
    assert "pack.yaml:6:3: error[E0403]" in output and "an error cannot be silenced" in output
    assert "pack.yaml:7:10: error[E0403]" in output and "say why the warning is allowed" in output


def test_strict_tests_reports_each_card_with_effects_and_no_test(tmp_path: Path) -> None:
    cards = (
        'item "Towel" {\n    type clothing\n}\n'  # nothing to test
        'item "Mug" {\n    type food\n    use { lose terror 1 }\n}\n'
        'item "Cup" {\n    type food\n    use { lose terror 1 }\n'
        '    test "calms" { use "Cup"; expect terror == 0 }\n}\n'
    )
    pack = make_pack(tmp_path / "p", a=cards)
    code, output = run("check", str(pack))
    assert code == 0 and "W0331" not in output
    for form in ("text", "json"):
        code, output = run("check", "--strict-tests", "--format", form, str(pack))
        assert code == 1
        assert output.count("W0331") == 1 and "Mug" in output and "Cup" not in output


def test_check_sarif_is_a_sarif_log_with_a_result_per_diagnostic() -> None:
    bad = TESTS / "specimens" / "bad"
    code, text_output = run("check", "--format", "json", str(bad))
    expected = json.loads(text_output)["diagnostics"]
    code, output = run("check", "--format", "sarif", str(bad))
    assert code == 1
    log = json.loads(output)  # nothing but the log on stdout
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    assert ".invalid" not in output  # no help link to a host that does not exist
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "pillbox"
    rules = [rule["id"] for rule in driver["rules"]]
    assert rules == sorted({d["code"] for d in expected})
    results = sarif_run["results"]
    assert len(results) == len(expected)
    for result, diagnostic in zip(results, expected, strict=True):
        assert result["ruleId"] == diagnostic["code"] == rules[result["ruleIndex"]]
        assert result["level"] == diagnostic["severity"]
        assert result["message"]["text"].startswith(diagnostic["message"])
        (location,) = result["locations"]
        region = location["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (
            diagnostic["line"],
            diagnostic["column"],
        )
        assert location["physicalLocation"]["artifactLocation"]["uri"] == diagnostic["file"]


AT_A_TERMINAL = """
import os, runpy, signal, sys
# A session of its own (start_new_session) opening its terminal makes it the controlling one,
# so Ctrl-C reaches it as SIGINT, as at a real terminal; a test runner's worker may ignore
# or block SIGINT, and the child would inherit that.
terminal = os.open(sys.argv.pop(1), os.O_RDWR)
for stream in (0, 1, 2):
    os.dup2(terminal, stream)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a mask is inherited too
sys.argv[0] = "pillbox"
runpy.run_module("compiler", run_name="__main__")
"""
"""Runs pillbox at a pseudo-terminal with no preexec_fn (not safe beside a worker's threads)."""


# Ctrl-D only: click's prompt turns Ctrl-C and the end of input into the same Abort, which is
# what the fix handles, and a Ctrl-C sent through a test runner's pseudo-terminal did not
# always reach the child (one run in three timed out), so it is left to trying it by hand.
@pytest.mark.parametrize("key", ["\x04"], ids=["ctrl-d"])
def test_ctrl_d_or_ctrl_c_at_the_play_prompt_stops_quietly_with_130(key: str) -> None:
    import pty
    import select
    import time

    master, slave = pty.openpty()
    command = ["play", str(SPECIMENS), "Music from the Nursery"]
    process = subprocess.Popen(
        [sys.executable, "-c", AT_A_TERMINAL, os.ttyname(slave), *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
    )
    seen = b""
    try:  # the slave end stays open here until the child has its own: reads never hit EIO
        deadline = time.monotonic() + 60
        while b"pick an option" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 4096)
        assert b"pick an option" in seen, seen.decode(errors="replace")
        os.write(master, key.encode())
        code = process.wait(timeout=60)
        while select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    finally:
        process.kill()  # never a stray child, whatever went wrong
        process.wait()
        os.close(slave)
    os.close(master)
    text = seen.decode(errors="replace")
    assert code == 130, text
    assert "E0601" not in text and "bug" not in text and "Traceback" not in text


def test_a_folder_inside_a_pack_checks_the_pack(tmp_path: Path) -> None:
    # Run inside a pack's cards/ folder, check said the folder had no pack.yaml; as git finds
    # its repository above the folder, the pack above is found and checked.
    pack = tmp_path / "pack"
    (pack / "cards" / "rooms").mkdir(parents=True)
    (pack / "pack.yaml").write_text(
        "pack: inside\ntitle: Inside\nversion: 0.1.0\nruleset: coma-ward\n"
    )
    (pack / "cards" / "rooms" / "a.card").write_text('room "Linen Cupboard" {\n    number 8\n}\n')
    code, output = run("check", str(pack / "cards" / "rooms"))
    assert code == 0 and "inside: 1 card in 1 file" in output, output
