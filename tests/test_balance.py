"""`pillbox test --balance`: the bands a pack states in pack.yaml, judged on their seeds.

The bundled Cool Name pack states four bands that hold; made all but unwinnable (every foe
given a body and a toughness few weapons get through), its win-rate bands are left, and the
verdict is told at the band's line of pack.yaml in every format."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from random import Random

import pytest

from compiler.balance.attribution import MOST_CARDS
from compiler.balance.baseline import changed_cards
from compiler.balance.judge import Verdict, _looked_at, _stages, look_width
from compiler.balance.report import as_github
from compiler.build import load_checked
from runtime.simulation.intervals import share_interval
from tests.conftest import ROOT
from tests.helpers import run

COOL_NAME = ROOT / "content" / "cool-name"


SEARCHING_BAND = re.compile(r'(?m)^  - band: "[^"]*"\n    policy: mcts:\d+\n(    \w+: .*\n)*')
"""The bundled pack's band under a searching seat: held by the test of the bundled bands, left
out of the others, which are about the gate, not the figure (it costs them half their time)."""


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    return Path(shutil.copytree(COOL_NAME, tmp_path / "cool-name"))


@pytest.fixture
def pack(bundled: Path) -> Path:
    manifest = bundled / "pack.yaml"
    text, searching = SEARCHING_BAND.subn("", manifest.read_text())
    assert searching == 1, "the bundled pack's searching band is gone: update SEARCHING_BAND"
    manifest.write_text(text)
    return bundled


def _band_line(pack: Path, band: str) -> int:
    lines = (pack / "pack.yaml").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if band in line)


def _unwinnable(pack: Path) -> None:
    foes = pack / "cards" / "foes.card"
    text = re.sub(r"(?m)^    body \d+$", "    body 10", foes.read_text())
    foes.write_text(re.sub(r"(?m)^    toughness \d+$", "    toughness 10", text))


def test_the_bundled_pack_s_bands_hold_and_the_same_seed_says_the_same_twice(
    bundled: Path,
) -> None:
    pack = bundled
    code, output = run("test", "--balance", str(pack))
    assert code == 0 and "balance: 4 held" in output, output
    assert output.count(" held ") == 4 and "games, mcts:16" in output
    # Said again without the searching band: the text names each band's figure, interval and
    # games, so the same lines are the same verdicts, from the same stages of the same seeds.
    # Its hundred games of mcts:16 were half the test; that a search plays the same game from
    # the same seed is test_search_seats'.
    manifest = pack / "pack.yaml"
    manifest.write_text(SEARCHING_BAND.sub("", manifest.read_text()))
    code, again = run("test", "--balance", str(pack))
    assert code == 0 and "balance: 3 held" in again, again
    said = [line for line in output.splitlines() if " held " in line and "mcts:16" not in line]
    assert [line for line in again.splitlines() if " held " in line] == said


def test_a_pack_made_unwinnable_leaves_its_band_and_fails_at_the_band_s_line(pack: Path) -> None:
    _unwinnable(pack)
    assert run("test", str(pack))[0] == 1  # its own card tests pin the bodies too
    line = _band_line(pack, '"won 15..50%"')
    code, output = run("test", "--balance", str(pack), "--format", "github")
    assert code == 1, output
    left = [row for row in output.splitlines() if row.startswith("::error ")]
    assert (
        len(left) >= 1
        and f"pack.yaml,line={line},col=11::balance band LEFT: won 15..50%" in left[0]
    )
    code, output = run("test", "--balance", str(pack), "--format", "junit")
    assert code == 1 and '<testcase classname="balance" name="won 15..50%"' in output
    assert "<failure" in output
    code, output = run("test", "--balance", str(pack), "--format", "sarif")
    assert code == 1, output
    (sarif_run,) = json.loads(output[output.index("{") :])["runs"]
    found = {
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in sarif_run["results"]
    }
    assert ("balance-left", "error", line) in found, found
    assert [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]] == ["balance-left"]


def test_a_failed_card_test_is_a_sarif_result_at_its_step(pack: Path) -> None:
    _unwinnable(pack)
    code, output = run("test", str(pack), "--format", "sarif")
    assert code == 1
    (sarif_run,) = json.loads(output)["runs"]
    results = sarif_run["results"]
    code, listed = run("test", str(pack), "--format", "json")
    failed = [t for t in json.loads(listed)["tests"] if not t["passed"]]
    assert len(results) == len(failed) >= 1
    for result, test in zip(results, failed, strict=True):
        assert result["ruleId"] == "test-failed" and result["level"] == "error"
        assert test["test"] in result["message"]["text"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == test["file"]
        assert location["region"]["startLine"] == test["line"]
    assert run("test", str(COOL_NAME), "--format", "sarif")[0] == 0


def test_a_band_that_cannot_be_read_is_an_error_at_its_line(pack: Path) -> None:
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace('"won 15..50%"', '"won fifteen percent"'))
    line = _band_line(pack, "won fifteen percent")
    code, output = run("check", str(pack))
    assert code == 1 and f"pack.yaml:{line}:11: error[E0403]: pack.yaml: balance:" in output


def test_a_band_whose_policy_is_unknown_or_figure_missing_fails_saying_so(pack: Path) -> None:
    manifest = pack / "pack.yaml"
    text = manifest.read_text().replace("policy: greedy", "policy: psychic")
    manifest.write_text(text.replace("phases.game.rounds.mean", "phases.game.naps.mean"))
    code, output = run("test", "--balance", str(pack))
    assert code == 1 and "unknown policy 'psychic'" in output
    assert "the figures have no 'phases.game.naps.mean'" in output


def test_a_pack_with_no_bands_is_a_usage_error(tmp_path: Path) -> None:
    pack = Path(shutil.copytree(ROOT / "content" / "supply-room", tmp_path / "supply"))
    code, output = run("test", "--balance", str(pack))
    assert code == 2 and "states no balance: bands" in output
    code, output = run("test", "--format", "github", str(pack))
    assert code == 2 and "add --balance" in output


CHANGE = re.compile(
    r"won 15\.\.50%: (\d+\.\d) % → (\d+\.\d) % \((-\d+\.\d) ± \d+\.\d points\) LEFT"
)


def _committed(pack: Path) -> None:
    git = ["git", "-C", str(pack), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the pack as it was"], check=True)


def test_base_shows_each_band_before_and_after_a_change_with_its_interval(pack: Path) -> None:
    _committed(pack)
    _unwinnable(pack)
    # Two cards more made harder, five changed in all: more than are weighed one by one
    # (attribution.MOST_CARDS), whose sweeps were most of this test's time and are the next's.
    foes, places = pack / "cards" / "foes.card", pack / "cards" / "environments.card"
    foes.write_text(foes.read_text().replace("    resilience 4\n", "    resilience 10\n", 1))
    places.write_text(places.read_text().replace("    harsh 2\n", "    harsh 3\n", 1))
    code, output = run("test", "--balance", str(pack), "--base", "HEAD")
    found = CHANGE.search(output)
    assert code == 1 and "against HEAD:" in output and found, output
    before, after, change = map(float, found.groups())
    assert before > after and round(after - before, 1) == change
    assert MOST_CARDS < 5 and "with only its change taken back" not in output


def test_a_saved_verdict_is_a_baseline_too(pack: Path, tmp_path: Path) -> None:
    code, saved = run("test", "--balance", str(pack), "--format", "json")
    verdicts = tmp_path / "verdicts.json"
    verdicts.write_text(saved[saved.index("{") :])
    _unwinnable(pack)
    code, output = run("test", "--balance", str(pack), "--baseline", str(verdicts))
    assert code == 1 and f"against {verdicts}:" in output and CHANGE.search(output), output
    code, output = run(
        "test", "--balance", str(pack), "--baseline", str(verdicts), "--format", "json"
    )
    bands = json.loads(output[output.index("{") :])["bands"]
    assert bands[0]["compared"]["difference"] < 0 and bands[0]["compared"]["half width"] > 0
    code, output = run(
        "test", "--balance", str(pack), "--baseline", str(verdicts), "--format", "github"
    )
    line = _band_line(pack, '"won 15..50%"')
    assert f",line={line},col=11::balance band changed: won 15..50%25: " in output


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--base", "HEAD"], "add --balance"),
        (["--balance", "--base", "HEAD", "--baseline", "x.json"], "not both"),
        (["--balance", "--base", "no-such-ref"], "--base: git"),
        (["--balance", "--baseline", "missing.json"], "not a verdict file"),
        (["--engine", "dask"], "play the bands of --balance: add --balance"),
        (["--balance", "--scheduler", "tcp://127.0.0.1:1"], "add --engine dask"),
    ],
)
def test_a_comparison_asked_wrongly_is_a_usage_error(
    pack: Path, arguments: list[str], says: str
) -> None:
    _committed(pack)
    code, output = run("test", str(pack), *arguments)
    assert code == 2 and says in output, output


def test_the_cards_changed_since_the_base_are_found_by_their_rules_not_their_place(
    pack: Path,
) -> None:
    before = load_checked(pack).pack
    foes = pack / "cards" / "foes.card"
    # Moved down a line and reflowed: no rule changed. Then one body changed: one card.
    foes.write_text("\n" + foes.read_text())
    moved = load_checked(pack).pack
    foes.write_text(foes.read_text().replace("    body 3\n", "    body 4\n", 1))
    after = load_checked(pack).pack
    assert before is not None and moved is not None and after is not None
    assert changed_cards(before.cards, moved.cards) == []
    (changed,) = changed_cards(before.cards, after.cards)
    assert (changed.kind, changed.title, changed.line) == ("foe", "Bandit Lookout", 5)
    verdicts = [Verdict(band, "held") for band in after.balance]
    lines = as_github(
        verdicts, ["won 15..50%: 28.0 % → 7.0 % (-21.0 ± 10.1 points) LEFT"], [changed]
    )
    assert any(
        line.startswith(f"::notice file={changed.file},line=5::foe 'Bandit Lookout' changed")
        for line in lines
    )


def test_several_looks_at_a_band_read_wider_intervals_so_together_they_err_at_5_percent() -> None:
    """Three looks at 95 % each would call a band at its edge wrong about 11 % of the time."""
    assert look_width(1) == pytest.approx(1.96, abs=0.001)
    assert look_width(3) == pytest.approx(2.394, abs=0.001)
    assert _looked_at(_stages(400), 400) == [100, 200, 400]
    assert _looked_at(_stages(400), 200) == [100, 200]
    assert _looked_at(_stages(400), 150) == [100, 200]
    # The staged test, played out on coin flips whose true rate sits on a band's edge: a
    # verdict of "left" is a wrong one, and must come at most one time in twenty.
    random = Random(5)
    stages, wrong, trials = _stages(400), 0, 2000
    width = look_width(len(stages))
    for _ in range(trials):
        wins = played = 0
        for games in stages:
            wins += sum(random.random() < 0.5 for _ in range(games - played))
            played = games
            low, high = share_interval(wins, played, width)
            if high < 0.5 or low > 0.5:
                wrong += 1
                break
    assert wrong / trials <= 0.05


def test_base_weighs_each_changed_card_and_names_the_one_that_moved_a_band_most(
    pack: Path,
) -> None:
    # The greedy band judged, and each card weighed, on 50 games, not 200 (its verdict came
    # at 50 before the change and its whole budget after, each card's weighing on all of it).
    manifest = pack / "pack.yaml"
    text, greedy = re.subn(
        r"(policy: greedy\n    games: )200\n", r"\g<1>50\n", manifest.read_text()
    )
    assert greedy == 1, "the greedy band's budget moved: update this test"
    manifest.write_text(text)
    _committed(pack)
    foes = pack / "cards" / "foes.card"
    text = foes.read_text()
    text = text.replace(
        '"Bandit Lookout" {\n    body 3\n    toughness 2',
        '"Bandit Lookout" {\n    body 10\n    toughness 10',
    )
    foes.write_text(text.replace("    mind 3\n    toughness 1", "    mind 2\n    toughness 1"))
    lookout = next(n for n, row in enumerate(text.splitlines(), 1) if '"Bandit Lookout"' in row)
    _code, output = run("test", "--balance", str(pack), "--base", "HEAD", "--format", "github")
    most = [row for row in output.splitlines() if "moved the balance band" in row]
    # Each band is moved most by the lookout made unbeatable; the goblin's mind moves nothing.
    assert most and all(f"foes.card,line={lookout}::" in row for row in most), output
    greedy = next(row for row in most if "won 60..100%25" in row)
    assert re.search(r"most of the 2 changed: foe 'Bandit Lookout' .*: -\d+\.\d points", greedy)
