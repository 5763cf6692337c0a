"""Hostile packs, read and checked: each finding of issue 12 about reading packs gives a clear
diagnostic and a non-zero exit, never a hang, a traceback or exit 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import compiler.pipeline
import compiler.sources
from compiler.check import check_paths
from tests.helpers import make_pack, run

MANIFEST = "pack: p\ntitle: T\nversion: 0.1.0\nruleset: coma-ward\n"
GAME_ALLOWED = 'allow:\n  W0324: "a few cards to read, not a whole game"\n'
"""What the tests' packs say of the game they are not (W0324), where a test counts warnings."""
CARD = 'item "Clean Towel" {\n    type clothing\n}\n'


def hallucinations(prefix: str, count: int) -> str:
    """`count` one-option hallucinations, each with a test that passes."""
    return "".join(
        f'hallucination "{prefix} {i}" {{\n'
        '    situation "A figure waits at the end of the hall."\n'
        '    option "Call out" {\n'
        '        say "It turns."\n'
        "        gain terror 1\n"
        "    }\n"
        '    test "it scares" { choose "Call out"; expect terror == 2 }\n'
        "}\n"
        for i in range(count)
    )


# ---------------------------------------------------------------- worker processes


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check every pack, however small, in two worker processes."""
    monkeypatch.setattr(compiler.pipeline, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    compiler.pipeline.LAST_RUN_WORKERS[0] = 0


PARALLEL_COMMANDS = [
    ("test", "{pack}"),
    ("build", "{pack}", "--text"),
    ("build", "{pack}", "-o", "{tmp}/ir"),
    ("play", "{pack}", "A 1", "--choose", "Call out", "--seed", "1"),
    ("odds", "{pack}", "A 1"),
    ("report", "{pack}", "-o", "{tmp}/report.html"),
    ("print", "{pack}", "--only", "A 1", "-o", "{tmp}/cards.pdf"),
]


@pytest.mark.usefixtures("parallel")
@pytest.mark.parametrize("command", PARALLEL_COMMANDS, ids=lambda c: " ".join(c[:3:2]))
def test_every_command_compiles_a_pack_checked_in_worker_processes(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST, a=hallucinations("A", 2), b=hallucinations("B", 2))
    args = [part.format(pack=folder, tmp=tmp_path) for part in command]
    code, output = run(*args)
    assert code == 0, output
    assert compiler.pipeline.LAST_RUN_WORKERS[0] == 2, "the worker processes did not run"


@pytest.mark.parametrize("workers", [1, 2])
def test_check_files_gives_one_shape_of_ir_however_it_works(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    from compiler.ruleset import load_ruleset

    monkeypatch.setattr(compiler.pipeline, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: workers)
    jobs = [("a.card", hallucinations("A", 2)), ("b.card", hallucinations("B", 2))]
    ruleset = load_ruleset("coma-ward")
    for full in (False, True):
        results = compiler.pipeline.check_files(ruleset, jobs, full_ir=full)
        assert compiler.pipeline.LAST_RUN_WORKERS[0] == workers
        cards = [card.ir for result in results for card in result.cards]
        assert all(("effects" in str(card)) == full for card in cards), (workers, full)


def test_check_workers_die_of_sigterm_and_leave_ctrl_c_to_the_parent() -> None:
    script = (
        "import signal, sys; from compiler.pipeline import _plain_signals\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(9))\n"
        "signal.signal(signal.SIGINT, lambda *a: sys.exit(9))\n"
        "_plain_signals()\n"
        "assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
        "assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=Path(__file__).parent.parent)


def test_a_real_size_pack_above_the_parallel_threshold_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two files of 600 hallucinations: over 256 KB of card text, as the issue found it."""
    monkeypatch.delenv("PILLBOX_VALIDATE_IR")  # it triples the time and is not what is tested
    folder = make_pack(
        tmp_path / "p", MANIFEST, a=hallucinations("A", 600), b=hallucinations("B", 600)
    )
    size = sum(f.stat().st_size for f in folder.glob("*.card"))
    assert size >= compiler.pipeline.PARALLEL_MIN_BYTES
    code, output = run("build", str(folder))
    if (os.cpu_count() or 1) > 1:
        assert compiler.pipeline.LAST_RUN_WORKERS[0] > 1
    assert code == 0, output[-2000:]
    assert "compiled 1200 cards from 2 files" in output


# ---------------------------------------------------------------- phrase patterns


def test_matching_many_optional_parts_takes_polynomial_time() -> None:
    """20 optional parts and a phrase that fails only at its last word: 5 s before, 3 ms now."""
    from compiler.patterns import Literal, Miss, Optional, Pattern, match
    from dsl import nodes as n
    from dsl.spans import Span

    parts = 20
    at = Span("a.card", 1, 1, 1, 2)
    pattern = Pattern(
        "bomb",
        "bomb [x]... end",
        (Literal("bomb"), *[Optional((Literal("x"),))] * parts, Literal("end")),
    )
    atoms = [n.Word(word, at) for word in ["bomb", *["x"] * parts, "nope"]]
    started = time.perf_counter()
    result = match(pattern, atoms, at)
    assert time.perf_counter() - started < 0.5
    assert isinstance(result, Miss)
    assert result.problem.message == "expected 'end', found 'x'"


def test_a_ruleset_pattern_with_too_many_optional_parts_is_refused(tmp_path: Path) -> None:
    """The issue's pack: 28 optional parts, and a card line that almost fits them."""
    parts = 28
    folder = make_pack(
        tmp_path / "p",
        MANIFEST.replace("coma-ward", "r.yaml"),
        a=f'item "T" {{\n    type clothing\n    use {{ bomb {"x " * parts}nope }}\n}}\n',
    )
    (folder / "r.yaml").write_text(
        "ruleset: r\ntitle: R\nversion: 1\nextends: coma-ward\nverbs:\n"
        f'  bomb: {{pattern: "bomb {"[x] " * parts}end"}}\n'
    )
    started = time.perf_counter()
    code, output = run("check", "--format", "json", str(folder))
    assert time.perf_counter() - started < 5
    assert code == 1
    [problem] = json.loads(output)["diagnostics"]
    assert problem["code"] == "E0412"
    assert "more than 8 optional parts" in problem["message"]
    assert (problem["line"], problem["column"]) == (6, 9)


# ---------------------------------------------------------------- sources globs


def check_in_a_process(folder: Path, seconds: float = 30) -> tuple[int, dict[str, Any]]:
    """`pillbox check --format json` in a process of its own, killed if it runs too long."""
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "check", "--format", "json", str(folder)],
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def test_thirty_double_star_parts_are_one(tmp_path: Path) -> None:
    """Path.glob tries every way to spread seven folders over thirty `**`: minutes."""
    deep = tmp_path / "p" / "a" / "b" / "c" / "d" / "e" / "f"
    deep.mkdir(parents=True)
    (deep / "deep.card").write_text(CARD.replace("Clean", "Deep"))
    folder = make_pack(
        tmp_path / "p", MANIFEST + GAME_ALLOWED + f'sources: ["{"**/" * 30}*.card"]\n', a=CARD
    )
    started = time.perf_counter()
    code, report = check_in_a_process(folder)
    assert time.perf_counter() - started < 10
    assert (code, report["files"], report["diagnostics"]) == (0, 2, [])


def test_links_to_folders_are_not_followed_round_a_loop(tmp_path: Path) -> None:
    folder = make_pack(
        tmp_path / "p", MANIFEST + GAME_ALLOWED + f'sources: ["{"*/" * 30}*.card"]\n', a=CARD
    )
    (folder / "x").symlink_to(".")
    (folder / "y").symlink_to(".")
    started = time.perf_counter()
    code, report = check_in_a_process(folder)
    assert time.perf_counter() - started < 10
    assert code == 0
    assert [d["code"] for d in report["diagnostics"]] == ["W0409"]


def test_a_link_to_a_folder_inside_the_pack_gives_no_second_copy(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST + GAME_ALLOWED)
    (folder / "cards").mkdir()
    (folder / "cards" / "a.card").write_text(CARD)
    (folder / "again").symlink_to("cards")
    report = check_paths([folder], use_cache=False)
    assert (report.files, report.diagnostics) == (1, [])


def test_a_link_to_a_folder_outside_the_pack_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "stolen.card").write_text(CARD.replace("Clean", "Stolen"))
    folder = make_pack(tmp_path / "p", MANIFEST + GAME_ALLOWED, a=CARD)
    (folder / "borrowed").symlink_to(tmp_path / "elsewhere")
    report = check_paths([folder], use_cache=False)
    assert (report.files, report.diagnostics) == (1, [])
    assert "Stolen" not in "".join(report.sources.values())


def test_a_loose_folder_with_a_card_linked_from_outside_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.card").write_text(CARD)
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "a.card").symlink_to(tmp_path / "elsewhere.card")
    code, output = run("check", "--ruleset", "coma-ward", str(folder))
    assert code == 2, output
    assert "links out of" in output


def test_a_link_loop_among_the_cards_hides_none_of_them(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST + GAME_ALLOWED)
    for number in range(30):
        (folder / f"c{number:02d}.card").write_text(CARD.replace("Clean", f"Clean {number}"))
    (folder / "a").symlink_to("b")
    (folder / "b").symlink_to("a")
    (folder / "loop.card").symlink_to("loop.card")
    report = check_paths([folder], use_cache=False)
    assert (report.files, report.cards, report.diagnostics) == (30, 30, [])


def test_a_loose_folder_is_walked_as_a_pack_is(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    (folder / "cards").mkdir(parents=True)
    (folder / "cards" / "a.card").write_text(CARD)
    (folder / "again").symlink_to("cards")
    (folder / "loop").symlink_to(".")
    make_pack(folder / "other-pack", MANIFEST, b=CARD.replace("Clean", "Other"))
    report = check_paths([folder], use_cache=False, ruleset_override="coma-ward")
    assert (report.files, report.diagnostics) == (1, [])


def test_a_pattern_deeper_than_the_search_goes_is_refused_at_its_line(tmp_path: Path) -> None:
    manifest = MANIFEST + f'sources:\n  - "*.card"\n  - "{"*/" * 40}*.card"\n'
    report = check_paths([make_pack(tmp_path / "p", manifest, a=CARD)], use_cache=False)
    [problem] = report.diagnostics
    assert (problem.code, problem.span.line, problem.span.column) == ("E0413", 7, 5)
    assert "reaches more than 32 folders deep" in problem.message
    assert report.files == 1


@pytest.mark.parametrize(
    ("limit", "value", "words"),
    [
        ("MAX_SOURCE_DEPTH", 3, "stops 3 folders deep"),
        ("MAX_SOURCE_ENTRIES", 5, "more than 5 files and folders"),
        ("SOURCES_DEADLINE", 0, "more than 0 seconds of looking"),
    ],
)
def test_a_search_past_its_limits_stops_with_a_diagnostic_at_the_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, value: float, words: str
) -> None:
    monkeypatch.setattr(compiler.sources, limit, value)
    folder = make_pack(tmp_path / "p", MANIFEST + 'sources: ["**/*.card"]\n')
    deep = folder / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    for index in range(300):
        (folder / "a" / f"{index}.card").write_text(CARD.replace("Clean Towel", f"Towel {index}"))
    (deep / "deep.card").write_text(CARD)
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1
    problems = [d for d in json.loads(output)["diagnostics"] if d["code"] == "E0413"]
    assert len(problems) == 1, output
    assert words in problems[0]["message"]
    assert (problems[0]["line"], problems[0]["column"]) == (5, 11)


# ---------------------------------------------------------------- precompiled rulesets


def planted_precompiled(folder: Path, data: dict[str, Any]) -> None:
    """A ruleset.compiled.json beside the pack's ruleset.yaml that matches its text."""
    from compiler.ruleset import PRECOMPILED, source_digest

    text = (folder / "ruleset.yaml").read_text()
    document = {"data": data, "positions": [], "key_positions": []}
    payload = {"source_sha256": source_digest(text), "document": document}
    (folder / PRECOMPILED).write_text(json.dumps(payload))


@pytest.mark.parametrize(
    "stats",
    [
        "not a mapping",
        {"terror": {"min": -(10**30), "max": 10**30, "start": 0}},
    ],
    ids=["wrong-type", "huge-bounds"],
)
def test_a_packs_precompiled_ruleset_is_not_read(tmp_path: Path, stats: object) -> None:
    manifest = MANIFEST.replace("coma-ward", "ruleset.yaml") + GAME_ALLOWED
    folder = make_pack(tmp_path / "p", manifest, a=CARD)
    (folder / "ruleset.yaml").write_text(
        "ruleset: mine\ntitle: Mine\nversion: 1\nextends: coma-ward\n"
    )
    planted_precompiled(
        folder,
        {"ruleset": "mine", "title": "Mine", "version": 1, "extends": "coma-ward", "stats": stats},
    )
    code, output = run("check", str(folder))
    assert (code, output.splitlines()[-1]) == (
        0,
        "p: 1 card in 1 file, 0 errors, 0 warnings (3 allowed by pack.yaml), "
        "100% of effect lines executable",
    ), output


def test_a_packs_ruleset_yaml_is_validated_whatever_json_lies_beside_it(tmp_path: Path) -> None:
    manifest = MANIFEST.replace("coma-ward", "ruleset.yaml")
    folder = make_pack(tmp_path / "p", manifest, a=CARD)
    (folder / "ruleset.yaml").write_text(
        "ruleset: mine\ntitle: Mine\nversion: 1\nextends: coma-ward\nstats: nope\n"
    )
    planted_precompiled(
        folder, {"ruleset": "mine", "title": "Mine", "version": 1, "extends": "coma-ward"}
    )
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1
    [problem] = json.loads(output)["diagnostics"]
    assert (problem["code"], problem["line"]) == ("E0412", 5)


# ---------------------------------------------------------------- hard links


SECRET = 'item "TOPSECRET" {\n    type weapn  # TOPSECRET\n}\n'


@pytest.mark.parametrize("linked", ["b.card", "pack.yaml", "ruleset.yaml"])
def test_hard_linked_pack_files_are_refused_and_never_echoed(tmp_path: Path, linked: str) -> None:
    outside = tmp_path / "outside.txt"
    folder = make_pack(tmp_path / "p", MANIFEST.replace("coma-ward", "ruleset.yaml"), a=CARD)
    (folder / "ruleset.yaml").write_text(
        "ruleset: mine\ntitle: Mine\nversion: 1\nextends: coma-ward\n"
    )
    if linked == "b.card":
        outside.write_text(SECRET)
    else:
        outside.write_text((folder / linked).read_text() + "# TOPSECRET\n")
        (folder / linked).unlink()
    os.link(outside, folder / linked)
    for output_format in ("text", "json", "github"):
        code, output = run("check", "--format", output_format, str(folder))
        assert code == 1, output
        assert "TOPSECRET" not in output
    problem = json.loads(run("check", "--format", "json", str(folder))[1])["diagnostics"][0]
    assert problem["code"] == "E0414"
    assert problem["file"].endswith(linked)
    assert (problem["line"], problem["column"]) == (1, 1)


# ---------------------------------------------------------------- huge numbers


HEX = "0x" + "f" * 4000
DECIMAL = "9" * 5000


@pytest.mark.parametrize(
    ("extra", "at"),
    [
        (f"print: {{card: {HEX}}}\n", (5, 15)),
        (f"print:\n  card: {DECIMAL}\n", (6, 9)),
        (f"print:\n  {HEX[:1000]}: poker\n", (6, 3)),
    ],
    ids=["hex-value", "decimal-value", "hex-key"],
)
def test_a_huge_number_in_pack_yaml_is_a_diagnostic_at_its_place(
    tmp_path: Path, extra: str, at: tuple[int, int]
) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST + extra, a=CARD)
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1, output
    [problem] = json.loads(output)["diagnostics"]
    assert problem["code"] == "E0415"
    assert (problem["line"], problem["column"]) == at


def test_a_huge_number_in_a_ruleset_is_a_diagnostic_at_its_place(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST.replace("coma-ward", "r.yaml"), a=CARD)
    (folder / "r.yaml").write_text(
        "ruleset: r\ntitle: R\nversion: 1\nextends: coma-ward\n"
        f"stats:\n  terror: {{min: 0, max: {HEX}, start: 0}}\n"
    )
    for command in ("check", "test", "build"):
        code, output = run(command, str(folder))
        assert code == 1, output
        assert "r.yaml:6:25: error[E0415]: this number is too large" in output


def test_a_huge_number_in_a_card_is_out_of_range_and_quoted_short(tmp_path: Path) -> None:
    card = (
        f'item "Pill" {{\n    type food\n    use {{ gain terror {"9" * 100_000} }}\n}}\n'
        f'item "Tablet" {{\n    type food\n    use {{ gain terror {HEX} }}\n}}\n'
    )
    folder = make_pack(tmp_path / "p", MANIFEST, a=card)
    code, output = run("build", str(folder))
    assert code == 1, output[:500]
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1
    report = json.loads(output)
    assert [(d["code"], d["line"]) for d in report["diagnostics"]] == [("E0203", 3), ("E0201", 7)]
    assert all(len(d["message"]) < 200 for d in report["diagnostics"])


# ---------------------------------------------------------------- terminal escapes


OSC = "\x1b]0;pwned\x07"
HOSTILE = (
    f'hallucination "Glass{OSC}" {{\n'
    f'    situation "A figure{OSC}\x1b[2J waits \u202eereh\u202c at the end\x9b."\n'
    '    option "Call out" {\n'
    '        say "It turns\x7f."\n'
    "        gain terror 1\n"
    "    }\n"
    f'    test "scares{OSC}" {{ choose "Call out"; expect terror == 3 }}\n'
    "}\n"
)
RAW = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e", "\u202c")


def assert_safe(output: str) -> None:
    """No control character of the card reaches the terminal as itself."""
    found = sorted({hex(ord(c)) for c in RAW if c in output})
    assert not found, f"raw {found} in:\n{output}"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A pack whose card text holds escape sequences, C1 and DEL, and bidi overrides."""
    return make_pack(tmp_path / "p", MANIFEST, a=HOSTILE)


def test_terminal_safe_makes_every_control_character_visible() -> None:
    from compiler.render import ansi
    from compiler.terminal import terminal_safe

    controls = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
    shown = terminal_safe(controls + "\u202a\u202e\u2066\u2069\udcff")
    assert "\t\n" in shown
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown.replace("\t\n", ""))
    assert shown.startswith("\u2400\u2401")  # one-column pictures: carets stay in place
    assert shown.endswith("\\u202a\\u202e\\u2066\\u2069\\udcff")
    coloured = ansi("error", "error") + OSC
    assert terminal_safe(coloured, ansi) == "\x1b[1;31merror\x1b[0m\u241b]0;pwned\u2407"
    assert terminal_safe(coloured) == "\u241b[1;31merror\u241b[0m\u241b]0;pwned\u2407"


@pytest.mark.parametrize("output_format", ["text", "github", "json"])
def test_check_shows_no_raw_control_characters(tmp_path: Path, output_format: str) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST, a=f'item "X" {{\n    type weapn  # {OSC}\n}}\n')
    code, output = run("check", "--format", output_format, "--color", "never", str(folder))
    assert code == 1
    assert_safe(output)
    if output_format == "json":
        json.loads(output)
    if output_format == "text":
        assert "2 |     type weapn  # \u241b]0;pwned\u2407\n  |          ^^^^^" in output


def test_check_keeps_its_own_colours_and_nothing_else(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "p", MANIFEST, a=f'item "X" {{\n    type weapn  # {OSC}\n}}\n')
    code, output = run("check", "--color", "always", str(folder))
    assert code == 1
    assert "\x1b[1;31merror[E0201]\x1b[0m" in output
    assert "# \u241b]0;pwned\u2407" in output


@pytest.mark.parametrize(
    "command",
    [
        ("test",),
        ("test", "-v"),
        ("play", "Glass" + OSC, "--choose", "Call out", "--seed", "1"),
        ("odds", "Glass" + OSC),
        ("build", "--text"),
        ("build", "--emit", "python"),
        ("play", "Glass]0;pwned"),  # a usage error that suggests the hostile title
    ],
    ids=lambda c: " ".join(c[:2]).replace(OSC, "").replace("\x1b", ""),
)
def test_no_command_shows_raw_control_characters(hostile: Path, command: tuple[str, ...]) -> None:
    name, *rest = command
    code, output = run(name, str(hostile), *rest)
    assert code in (0, 1, 2), output
    assert_safe(output)
    assert "pwned" in output


@pytest.mark.parametrize(
    "command",
    [
        ("test", "--format", "json"),
        ("play", "Glass" + OSC, "--choose", "Call out", "--seed", "1", "--json"),
        ("odds", "Glass" + OSC, "--json"),
    ],
    ids=lambda c: c[0],
)
def test_json_output_is_safe_and_reads_back_as_the_cards_text(
    hostile: Path, command: tuple[str, ...]
) -> None:
    name, *rest = command
    code, output = run(name, str(hostile), *rest)
    assert code in (0, 1), output
    assert_safe(output)
    document = json.loads(output)
    card = document["tests"][0] if name == "test" else document
    assert card["card"] == "Glass" + OSC  # escaped on the way out, the same text once read
    if name == "play":
        assert "\u202eereh\u202c at the end\x9b" in document["log"][0]["text"]
