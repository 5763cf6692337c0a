"""The rule lists: each bundled game's page (docs/<game>.md) ends with a table of every rule of
its rulebook, in this project's words, with the rulebook line it comes from, where it is
implemented, and what proves it: a Python test by its name in backticks, a card test of the
game's pack by its name in quotes, or a documented reading (`reading:` and a link). A rule not
implemented yet says `missing:` and why: it counts against the coverage, and is never hidden.

Each test named must exist, and each row must name a test, a reading or that it is missing:
deleting a test a rule names fails here. The page states its coverage (`Tested: N of M rules
(P %)`), which must agree with the table; it is the game's rule coverage as a docs page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
GAMES = ("comanauts", "cool-name", "coma-ward", "lobotomy")
HEADING = re.compile(r"^## Every rule of the (?:rulebook|page)\b.*$", re.M)
COVERAGE = re.compile(r"Tested: (\d+) of (\d+) rules \((\d+) %\)")
WHERE = re.compile(r"(?:\d+(?:-\d+)?|p\. \d+)(?:, (?:\d+(?:-\d+)?|p\. \d+))*")


@dataclass(frozen=True)
class Rule:
    """A row of a game's rule list."""

    where: str
    text: str
    python: tuple[str, ...]
    cards: tuple[str, ...]
    reading: bool
    missing: bool
    row: str


@cache
def python_tests() -> frozenset[str]:
    """Every test function of the suite, by its name."""
    return frozenset(
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(
            r"^(?:    )?def (test_\w+)\(", path.read_text(encoding="utf-8"), re.M
        )
    )


def card_tests(game: str) -> frozenset[str]:
    """Every card test's name in the game's bundled pack (its starter and cards)."""
    return frozenset(
        name
        for path in (ROOT / "content" / game).rglob("*.card")
        for name in re.findall(r'^\s+test "([^"]+)"', path.read_text(encoding="utf-8"), re.M)
    )


def rule_list(game: str) -> tuple[str, list[Rule]] | None:
    """The game page's rule list section and its rows, if the page has one."""
    page = (DOCS / f"{game}.md").read_text(encoding="utf-8")
    found = HEADING.search(page)
    if found is None:
        return None
    section = page[found.end() :].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    rules = []
    for row in rows[2:]:  # the header and its rule (`|---|`)
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        assert len(cells) == 4, f"{game}: a row of four cells, not {len(cells)}: {row}"
        where, text, _implemented, proof = cells
        assert WHERE.fullmatch(where), f"{game}: a rulebook line, not {where!r}: {row}"
        rules.append(
            Rule(
                where,
                text,
                tuple(re.findall(r"`(test_\w+)`", proof)),
                tuple(re.findall(r'"([^"]+)"', proof)),
                "reading:" in proof,
                proof.startswith("missing:"),
                row,
            )
        )
    return section, rules


LISTED = [game for game in GAMES if rule_list(game) is not None]


def test_the_games_with_a_rule_list_are_known() -> None:
    """The games whose lists are written (issue 34 asks for all four)."""
    assert set(LISTED) == set(GAMES)


def problems(
    game: str, rules: list[Rule], python: frozenset[str], cards: frozenset[str]
) -> list[str]:
    """What is wrong with a game's rule list: a rule nothing proves, a test that is not there."""
    found = [] if rules else [f"{game}: the rule list has no rows"]
    for rule in rules:
        if not (rule.python or rule.cards or rule.reading or rule.missing):
            found.append(f"{game}: nothing proves {rule.row}")
        found.extend(
            f"{game}: no test {name} ({rule.row})" for name in rule.python if name not in python
        )
        found.extend(
            f"{game}: no card test {name!r} in its pack ({rule.row})"
            for name in rule.cards
            if name not in cards
        )
    return found


@pytest.mark.parametrize("game", LISTED)
def test_every_rule_names_a_test_that_exists_or_a_reading(game: str) -> None:
    listed = rule_list(game)
    assert listed is not None
    assert problems(game, listed[1], python_tests(), card_tests(game)) == []


@pytest.mark.parametrize("game", LISTED)
def test_the_page_states_its_coverage_as_the_table_has_it(game: str) -> None:
    listed = rule_list(game)
    assert listed is not None
    section, rules = listed
    tested = sum(1 for rule in rules if rule.python or rule.cards)
    stated = COVERAGE.search(section)
    percent = round(100 * tested / len(rules))
    expected = f"Tested: {tested} of {len(rules)} rules ({percent} %)"
    assert stated is not None and stated.group(0) == expected, f"{game}: write {expected!r}"


def test_a_rule_whose_test_is_deleted_or_that_names_nothing_fails() -> None:
    game = LISTED[0]
    listed = rule_list(game)
    assert listed is not None
    rules = listed[1]
    python, cards = python_tests(), card_tests(game)
    proved = next(rule for rule in rules if rule.python)
    found = problems(game, rules, python - {proved.python[0]}, cards)
    assert f"{game}: no test {proved.python[0]} ({proved.row})" in found
    assert all(proved.python[0] in problem for problem in found)
    bare = Rule("1", "a rule", (), (), False, False, "| 1 | a rule | | |")
    assert problems(game, [bare], python, cards) == [f"{game}: nothing proves {bare.row}"]


@pytest.mark.parametrize("game", LISTED)
def test_the_first_rule_under_the_header_is_read(game: str) -> None:
    """The header's rule (`|---|`) is skipped, not the table's first rule."""
    listed = rule_list(game)
    assert listed is not None
    section, rules = listed
    lines = section.splitlines()
    first = lines[next(i for i, line in enumerate(lines) if line.startswith("|---")) + 1]
    assert rules[0].row == first
