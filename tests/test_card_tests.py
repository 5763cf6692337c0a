"""`pillbox test`: the tests designers write next to their cards, and how failures read."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.conftest import TESTS, good_packs
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"

SHOUT = """
hallucination "A Shout" {
    situation "Someone shouts down the stairwell."
    option "Shout back" {
        check focus {
            0..2 { gain terror 1 }
            3+ { lose terror 1 }
        }
    }
    option "Run" {
        move to stairs
    }
%s
}
"""


def shout_pack(folder: Path, test: str) -> Path:
    """A pack whose one card carries the test given."""
    return make_pack(folder, cards=SHOUT % test)


@pytest.mark.parametrize("pack", good_packs(), ids=lambda p: str(p.parent.name))
def test_the_specimen_tests_pass(pack: Path) -> None:
    code, output = run("test", str(pack))
    assert code == 0, output
    assert output.rstrip().splitlines()[-1] == "3 passed, 0 failed"


def test_a_failed_expectation_says_expected_and_actual(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "shouting calms" {
        given terror 2
        choose "Shout back"
        dice 1 1 1
        expect terror == 1
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "FAILED" in output and "cards.card:17:9" in output
    assert "expected terror == 1, but terror is 3" in output
    assert "check focus (3 dice): 1 1 1 → 0 successes" in output  # the event log of the test
    assert output.rstrip().endswith("0 passed, 1 failed")


def test_dice_left_unrolled_fail_the_test(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "runs" {
        choose "Run"
        dice 6
        expect location == stairs
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "1 forced die was never rolled: 6" in output


def test_dice_running_out_fail_at_the_check(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "too few dice" {
        choose "Shout back"
        dice 5 5
        expect terror == 0
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    # It names the roll that wanted the die it did not get.
    assert (
        'the forced dice ran out after 2: 5 5; `check focus` of hallucination "A Shout" '
        "wanted another" in output
    )
    assert "cards.card:5:" in output  # the line of the check that rolled


def test_an_answer_that_fits_no_question_fails_at_run_time(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "a wrong title" {
        choose yes
        expect terror == 1
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "answer 'yes' does not fit: pick an option (Shout back / Run)" in output


def test_answers_never_asked_for_fail(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "too many answers" {
        choose "Run"
        choose yes
        expect location == stairs
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "1 answer was never asked for: 'yes'" in output


def test_given_pins_a_derived_stat(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "focus pinned" {
        given terror 5, focus 3
        choose "Shout back"
        dice 5 5 6
        expect terror == 4
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 0, output


def test_use_gives_the_card_and_uses_it(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        items="""
item "Bitter Tea" {
    type food
    use {
        discard this
        lose terror 2
    }
    test "calms" {
        given terror 3
        use "Bitter Tea"
        expect terror == 1
        expect items carried == 0
    }
}
""",
    )
    code, output = run("test", str(pack))
    assert code == 0, output


def test_carry_gives_the_player_a_card_before_the_card_under_test_runs(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        items="""
item "Heavy Boots" {
    type clothing
    while carried { dexterity -1 }
}
item "Bitter Tea" {
    type food
    use { discard this; lose terror 2 }
}
""",
        cards=SHOUT
        % """    test "boots slow you down" {
        carry "Heavy Boots"
        carry "Bitter Tea"
        expect dexterity == 2
        expect items carried == 1
        use "Bitter Tea"
        expect items carried == 0
    }""",
    )
    code, output = run("test", str(pack))
    assert code == 0, output
    (pack / "cards.card").write_text(
        SHOUT % '    test "no such card" { carry "Lead Boots"; expect terror == 1 }'
    )
    code, output = run("check", str(pack))
    assert code == 1, output
    assert "E0243" in output and 'the test carries "Lead Boots"' in output


def test_given_sets_clues_found_and_pills(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        clues="""
clue "Clue B" { letter B }
clue "Clue A" { letter A }
""",
        quirks="""
quirk "Counter" {
    condition "You carry nothing."
    when phenomenon revealed {
        if pills on this >= 2 and clues found == 2 { lose terror 1 }
    }
    test "paid out" {
        given terror 3, pills on this 2, clues found 2
        expect pills on this == 2
        expect clues found == 2
    }
}
""",
    )
    code, output = run("test", str(pack), "-v")
    assert code == 0, output


def test_next_turn_ends_the_turn_and_begins_another(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        quirks="""
quirk "Pacer" {
    condition "You end a turn on the stairs."
    when your turn ends { if location == stairs { place pill on this } }
    test "two more turns on the stairs" {
        given location stairs
        next turn
        next turn
        expect pills on this == 2
    }
}
""",
        items="""
item "Syrup" {
    type medicine
    use { discard this; bonus next focus -1 }
    test "drowsy" { use "Syrup"; expect bonus on next focus == -1 }
}
""",
    )
    code, output = run("check", str(pack), "--validate-ir")
    assert code == 0, output
    code, output = run("test", str(pack), "-v")
    assert code == 0, output


def test_k_selects_tests_by_name(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "runs" { choose "Run"; expect location == stairs }
    test "stays" { choose "Run"; expect location == hallway }""",
    )
    code, output = run("test", str(pack), "-k", "runs")
    assert code == 0, output
    assert output.rstrip().endswith("1 passed, 0 failed")
    # A pattern that matches nothing is an exit of its own, so a typo cannot pass CI.
    code, output = run("test", str(pack), "-k", "nothing like this")
    assert code == 4
    assert "0 passed, 0 failed: no test matches -k 'nothing like this'" in output
    code, output = run("test", str(pack), "-k", "nothing like this", "--format", "json")
    assert code == 4 and json.loads(output)["tests"] == []


def test_json_report(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "runs" { choose "Run"; expect location == stairs }
    test "stays" { choose "Run"; expect location == hallway }""",
    )
    code, output = run("test", str(pack), "--format", "json")
    assert code == 1
    report = json.loads(output)
    assert (report["passed"], report["failed"]) == (1, 1)
    failed = next(t for t in report["tests"] if not t["passed"])
    assert failed["test"] == "stays" and failed["line"] == 14
    assert failed["failure"] == "expected location == hallway, but location is f2-stairs"
    assert any("move: nurses-station → stairs (f2-stairs)" in line for line in failed["log"])


def test_junit_report_has_a_case_per_test_and_each_failure_with_its_log(tmp_path: Path) -> None:
    pack = shout_pack(
        tmp_path,
        """    test "runs" { choose "Run"; expect location == stairs }
    test "stays" { choose "Run"; expect location == hallway }""",
    )
    code, output = run("test", str(pack), "--format", "junit")
    assert code == 1
    suites = ElementTree.fromstring(output.encode())
    (suite,) = suites.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert cases["runs"].find("failure") is None
    failure = cases["stays"].find("failure")
    assert failure is not None and cases["stays"].get("line") == "14"
    assert failure.get("message") == "expected location == hallway, but location is f2-stairs"
    assert failure.text is not None and "move: nurses-station → stairs (f2-stairs)" in failure.text


def test_a_pack_with_errors_runs_no_tests(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, cards='item "X" { type weapon\n use { gain sanity 1 } }\n')
    code, output = run("test", str(pack))
    assert code == 1
    assert "error[E0201]" in output and "fix them first" in output


def test_a_runaway_effect_is_stopped_at_its_line(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        cards="""
item "Cursed Coin" {
    type medicine
    use {
        repeat 20 { repeat 20 { repeat 20 { repeat 20 { say "tick" } } } }
    }
    test "loops" { use "Cursed Coin"; expect terror == 5 }
}
""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "took more than 10000 steps" in output
    assert "cards.card:5:" in output


def test_cards_drawing_cards_are_stopped_by_depth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runtime.game.MAX_DEPTH", 4)
    pack = make_pack(
        tmp_path,
        cards="""
hallucination "Echo" {
    situation "You hear yourself."
    copies 10
    option "Listen" { draw hallucination }
    option "Leave" { end turn }
    test "echoes" {
        choose "Listen"; choose "Listen"; choose "Listen"; choose "Listen"; choose "Listen"
        expect terror == 1
    }
}
""",
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "cards resolved inside cards more than 4 deep" in output
    assert "cards.card:5:" in output


def test_vocabulary_without_a_runtime_is_logged_not_run(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        "pack: own\ntitle: Own\nversion: 0.1.0\nruleset: ./rules.yaml\n",
        cards="""
item "Chalk" {
    type food
    use { scribble on the wall; lose terror 1 }
    test "calms" { given terror 2; use "Chalk"; expect terror == 1 }
}
""",
    )
    (pack / "rules.yaml").write_text(
        "ruleset: own\ntitle: Own\nversion: 1\nextends: coma-ward\n"
        'verbs:\n  scribble: {pattern: "scribble on the wall"}\n'
    )
    code, output = run("test", str(pack), "-v")
    assert code == 0, output
    assert "note: the runtime does not simulate verb scribble" in output


def test_json_report_of_a_pack_with_errors_is_json(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, cards='item "X" { type weapon\n use { gain sanity 1 } }\n')
    code, output = run("test", str(pack), "--format", "json")
    assert code == 1
    report = json.loads(output)
    assert (report["passed"], report["failed"]) == (0, 0)
    assert report["diagnostics"][0]["code"] == "E0201"


def test_a_ruleset_the_runtime_cannot_run_is_refused_before_any_card_runs(
    tmp_path: Path,
) -> None:
    pack = make_pack(
        tmp_path,
        "pack: own\ntitle: Own\nversion: 0.1.0\nruleset: ./rules.yaml\n",
        cards='item "Map" { type food\n use { rummage hallway } }\n',
    )
    (pack / "rules.yaml").write_text(
        "ruleset: own\ntitle: Own\nversion: 1\nextends: coma-ward\n"
        'verbs:\n  rummage: {pattern: "rummage {place}"}\n'
    )
    code, output = run("test", str(pack))
    assert code == 1
    assert "error[E0603]: the coma-ward runtime cannot run verb 'rummage'" in output


def test_using_a_card_without_a_use_block_fails(tmp_path: Path) -> None:
    pack = shout_pack(tmp_path, '    test "use" { use "A Shout"; expect terror == 1 }')
    code, output = run("test", str(pack))
    assert code == 1
    assert 'hallucination "A Shout" has nothing to use' in output


def test_naming_a_card_file_runs_only_its_tests() -> None:
    code, output = run("test", str(SPECIMENS / "items.card"))
    assert code == 0, output
    assert output.rstrip().endswith("1 passed, 0 failed")


def test_a_failure_quotes_its_own_line_after_text_with_other_line_breaks(tmp_path: Path) -> None:
    # U+2028, a form feed and NEL inside quoted text split lines for str.splitlines, not for
    # the parser: every line after them was quoted from the wrong place ("expected , but").
    card = (
        'hallucination "Odd Lines" {\n'
        '    situation "A\u2028B\u000cC\u0085D"\n'
        '    option "Go" {\n        gain terror 1\n    }\n'
        '    test "it frightens" {\n        choose "Go"\n        expect terror == 5\n    }\n}\n'
    )
    code, output = run("test", str(make_pack(tmp_path / "lines", cards=card)))
    assert code == 1
    assert "expected terror == 5, but terror is 2" in output, output
