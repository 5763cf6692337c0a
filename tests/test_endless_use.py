"""The report flags a `use` that spends nothing and has no limit ("endless"): a card that heals
forever is no card to copy. A use that costs something, is spent, or is limited is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.report.analysis import analyse
from tests.helpers import compiled, make_pack, run

LOBOTOMY = "pack: p\ntitle: P\nversion: 0.1.0\nruleset: lobotomy\n"


def endless(folder: Path) -> dict[str, str]:
    """Each flagged card's title and its flag's text."""
    analysis = analyse(compiled(folder), [])
    return {c.card.title: f.text for c in analysis.cards for f in c.flags if f.kind == "endless"}


ITEMS = """\
item "Bottomless Flask" {
    type food
    use { gain health 1 }
}

item "Counted Pills" {
    type medicine
    charges 2
    use {
        spend a use
        gain health 1
    }
}

item "Last Biscuit" {
    type food
    use {
        gain health 1
        discard this
    }
}

item "Hard Bargain" {
    type food
    use {
        gain health 1
        gain terror 1
    }
}

item "Lucky Coin" {
    type clothing
    use {
        roll d6 {
            1..5 { }
            6 { draw item }
        }
    }
}

item "Painted Stone" {
    type clothing
    use { say "It is only a stone." }
}
"""


def test_a_use_that_gives_and_spends_nothing_is_flagged_and_a_paid_one_is_not(
    tmp_path: Path,
) -> None:
    flags = endless(make_pack(tmp_path / "p", items=ITEMS))
    assert flags == {
        # at full health a heal gains nothing: it is walked again halfway up every stat
        "Bottomless Flask": "its use spends nothing and has no limit: it gives health every time",
        "Lucky Coin": "its use spends nothing and has no limit: it gives a card of the item "
        "deck every time",
    }


def test_a_module_that_charges_for_a_use_and_a_cooldown_limit_it(tmp_path: Path) -> None:
    cards = """\
skill "Free Breath" {
    use { gain ap 1 }
}

skill "Paid Breath" {
    cost 1 ap
    use { gain health 1 }
}

skill "Slow Breath" {
    use {
        gain health 1
        cool down 2
    }
}
"""
    assert set(endless(make_pack(tmp_path / "p", LOBOTOMY, skills=cards))) == {"Free Breath"}


def test_a_turn_that_pays_for_every_use_flags_none(tmp_path: Path) -> None:
    """Comanauts' turn spends a die and an action on each use: no card's use is free."""
    cards = 'status "Second Wind" {\n    use { gain health 1 }\n}\n'
    manifest = LOBOTOMY.replace("lobotomy", "comanauts")
    assert endless(make_pack(tmp_path / "p", manifest, statuses=cards)) == {}


@pytest.mark.parametrize("game", ["coma-ward", "comanauts", "cool-name", "lobotomy", "--game"])
def test_a_new_pack_reports_no_flags(tmp_path: Path, game: str) -> None:
    how = ["--game"] if game == "--game" else ["--ruleset", game]
    code, output = run("new", str(tmp_path / "new"), *how)
    assert code == 0, output
    code, output = run("report", str(tmp_path / "new"), "-o", str(tmp_path / "r.html"))
    assert code == 0 and ", 0 flags, 0 diagnostics," in output, output
