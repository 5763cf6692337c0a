"""Check procedures as plug-ins: declared results, params, exact odds that agree with play."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Hashable
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.odds import odds_table
from compiler.ruleset import RulesetError, load_ruleset
from runtime.checks import ROLL, CheckProcedure
from runtime.dice import SeededDice
from runtime.games.base_checks import COUNT, TARGET, Count, Target
from runtime.games.coma_ward_dice import PoolFaces
from runtime.games.coma_ward_pool import POOL, Pool
from runtime.odds import card_odds
from tests.conftest import ROOT, good_packs
from tests.helpers import compiled, house_rules_pack, run

HOUSE = """ruleset: house
title: House
version: 1
extends: coma-ward
stats:
  imagination: {min: 2, max: 12, start: 7}
checks:
  nerve:
    pattern: "nerve [{modifier}]"
    text: "test your nerve[ ({modifier})]"
    procedure: target
    outcomes: [pass, fail]
    params: {count: 2, sides: 6, target: [imagination, modifier], wins: at_most}
  hit:
    pattern: "hit {dice:count} against {defense:count}"
    text: "roll {dice} dice against defense {defense}"
    procedure: count
    outcomes: damage
    params: {dice: [dice], at: 4, subtract: [defense]}
"""

CARDS = """hallucination "Steady Now" {
    situation "The floor tilts."
    option "Hold on" {
        check nerve -2 {
            pass { lose terror 1 }
            fail { gain terror 1 }
        }
    }
    option "Lash out" {
        check hit 3 against 1 {
            0 { }
            1 { lose terror 1 }
            2+ { lose terror 2 }
        }
    }
    test "a steady hand" {
        given imagination 9
        choose "Hold on"
        dice 3 4
        expect terror == 0
    }
}
"""


def house_pack(tmp_path: Path, cards: str = CARDS, rules: str = HOUSE) -> Path:
    return house_rules_pack(tmp_path / "house", "house", rules, cards)


def test_a_pass_fail_check_and_a_count_less_defense_have_exact_odds(tmp_path: Path) -> None:
    folder = house_pack(tmp_path)
    code, output = run("odds", str(folder), "Steady Now", "--set", "imagination=9", "--json")
    assert code == 0, output
    blocks = {block["name"]: block for block in json.loads(output)["blocks"]}
    nerve = {tuple(o["path"]): o["exact"] for o in blocks["Hold on"]["outcomes"]}
    # 2d6 at most 9 - 2 = 7: 21 of 36.
    assert nerve == {("check nerve -2: pass",): "7/12", ("check nerve -2: fail",): "5/12"}
    hit = {tuple(o["path"]): o["exact"] for o in blocks["Lash out"]["outcomes"]}
    # Three dice hitting on 4+ (each 1/2), less a defense of 1.
    assert hit == {
        ("check hit 3 against 1: 0",): "1/2",
        ("check hit 3 against 1: 1",): "3/8",
        ("check hit 3 against 1: 2+",): "1/8",
    }


def test_named_and_counted_checks_play_and_read(tmp_path: Path) -> None:
    folder = house_pack(tmp_path)
    code, output = run("test", str(folder))
    assert code == 0, output
    code, output = run("build", str(folder), "--text")
    assert code == 0, output
    assert "Test your nerve (−2)" in output or "Test your nerve (-2)" in output
    assert "2+ damage" in output


def test_coverage_follows_the_procedures_bounds(tmp_path: Path) -> None:
    gap = CARDS.replace("            2+ { lose terror 2 }\n", "")
    folder = house_pack(tmp_path, gap)
    code, output = run("check", str(folder))
    assert code == 1
    assert "does not cover 2..3 damage" in output, output


@pytest.mark.parametrize(
    ("written", "instead"),
    [
        ("procedure: target", "procedure: lucky"),
        ("outcomes: damage", "outcomes: [hit, miss]"),
        ("at: 4, subtract", "at: 4, sides: 1, subtract"),
        ("wins: at_most", "wins: sideways"),
    ],
)
def test_a_procedure_refuses_what_it_cannot_run_at_the_ruleset_line(
    tmp_path: Path, written: str, instead: str
) -> None:
    rules = HOUSE.replace(written, instead)
    (tmp_path / "rules.yaml").write_text(rules)
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    problems = caught.value.diagnostics
    assert problems and all(d.code == "E0412" for d in problems), problems
    line = next(n for n, text in enumerate(rules.splitlines(), 1) if instead in text)
    assert line in {d.span.line for d in problems}, (line, problems)


FACES = PoolFaces.from_ruleset({"success": [5, 6], "suspense": [4], "failure": [1, 2, 3]})

CASES: list[tuple[str, CheckProcedure, Hashable]] = [
    ("pool of 4", POOL, Pool(4, FACES, "check focus", "p")),
    ("pool of 1", POOL, Pool(1, FACES, "check focus", "p")),
    ("count 5 at 4+ less 2", COUNT, Count(5, 6, 4, 2, "check")),
    ("count 6 at 5+ on d8", COUNT, Count(6, 8, 5, 0, "check")),
    ("2d6 at most 7", TARGET, Target(2, 6, 7, True, "pass", "fail", "check")),
    ("d20 at least 12", TARGET, Target(1, 20, 12, False, "pass", "fail", "check")),
    ("roll 3d4", ROLL, (3, 4)),
]


@pytest.mark.parametrize(("name", "procedure", "prepared"), CASES, ids=[c[0] for c in CASES])
def test_exact_odds_agree_with_seeded_play(
    name: str, procedure: CheckProcedure, prepared: Hashable
) -> None:
    """The distribution a procedure claims is what its roll step gives, to sampling error."""
    odds = {branch.result: branch.probability for branch in procedure.odds(prepared)}
    assert sum(odds.values()) == Fraction(1)
    pack = compiled_specimens()
    rolls = 6_000
    seen: Counter[object] = Counter()
    for seed in range(3):
        game = pack.new_game(seed=seed, dice=SeededDice(random.Random(seed).getrandbits(32)))
        for _ in range(rolls // 3):
            seen[procedure.roll(game, prepared).result] += 1
    assert set(seen) <= set(odds), set(seen) - set(odds)
    for result, p in odds.items():
        observed = seen[result] / rolls
        spread = 4.5 * (float(p) * (1 - float(p)) / rolls) ** 0.5 + 1e-3
        assert abs(observed - float(p)) <= spread, (result, observed, float(p))


_SPECIMENS: list[CompiledPack] = []


def compiled_specimens() -> CompiledPack:
    if not _SPECIMENS:
        _SPECIMENS.append(compiled(ROOT / "tests" / "specimens" / "coma-ward"))
    return _SPECIMENS[0]


BUNDLED = sorted(path.parent for path in (ROOT / "content").glob("*/pack.yaml"))


@pytest.mark.parametrize("folder", [*BUNDLED, *good_packs()], ids=lambda p: "/".join(p.parts[-2:]))
def test_every_card_of_every_pack_has_its_odds(folder: Path) -> None:
    """No card that checks clean fails its walk: odds and the report never stop on one."""
    pack = compiled(folder)
    table = odds_table(pack, [])
    for card in pack.cards:
        card_odds(table, card)


def test_what_the_dice_decide_besides_the_result_is_a_path_of_its_own() -> None:
    """A natural 1 that costs a durability splits the outcome it falls in, and only it."""
    from runtime.checks import Arm, Branch
    from runtime.odds import _alternatives

    branches = (
        Branch(0, Fraction(1, 4), "a durability lost"),
        Branch(0, Fraction(1, 4)),
        Branch(1, Fraction(1, 2)),
    )
    arms = (Arm(0, 0, "0"), Arm(1, None, "1+"))
    found = [
        (a.label, a.probability, a.value.after) for a in _alternatives("check hit", arms, branches)
    ]
    assert found == [
        ("check hit: 0 (a durability lost)", Fraction(1, 4), "a durability lost"),
        ("check hit: 0", Fraction(1, 4), None),
        ("check hit: 1+", Fraction(1, 2), None),
    ]
