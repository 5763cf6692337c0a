"""`pillbox odds`: exact outcomes of every specimen card, pinned and checked against the dice."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.odds import odds_table
from runtime.cards import CardDef, Effect
from runtime.decisions import FirstChoice
from runtime.distributions import at_least
from runtime.game import Game
from runtime.games.coma_ward_dice import PoolFaces
from runtime.games.coma_ward_odds import pool_distribution
from runtime.odds import BlockOdds, Outcome, card_odds
from tests.conftest import ROOT, SPECIMEN_ROOTS, TESTS
from tests.helpers import make_pack, run
from tests.test_golden import GOLDEN, compare

SPECIMENS = TESTS / "specimens" / "coma-ward"
COMA_WARD_FACES = PoolFaces(frozenset({5, 6}), frozenset({4}), frozenset({1, 2, 3}))


def compiled(pack: Path) -> CompiledPack:
    loaded = load_checked(pack)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


def slug(card: CardDef) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", card.title.lower()).strip("-")
    return name + (f"-v{card.variant}" if card.variant is not None else "")


def odds_args(pack: Path, card: CardDef) -> list[str]:
    variant = ["--variant", str(card.variant)] if card.variant is not None else []
    return ["odds", str(pack), card.title, *variant]


SPECIMEN_CARDS = compiled(SPECIMENS).cards


@pytest.mark.parametrize("card", SPECIMEN_CARDS, ids=slug)
def test_odds_of_every_specimen_card_are_pinned(card: CardDef, update_goldens: bool) -> None:
    code, output = run(*odds_args(SPECIMENS, card), "--json")
    assert code == 0, output
    compare(output, GOLDEN / "odds" / f"{slug(card)}.json", update_goldens)


@pytest.mark.parametrize("root", SPECIMEN_ROOTS, ids=lambda p: p.parent.name)
def test_odds_work_on_every_card_of_the_specimens(root: Path) -> None:
    """Every card of the specimens, so a new specimen card is walked too."""
    pack = compiled(root / "coma-ward")
    table = odds_table(pack, [])
    for card in pack.cards:
        for block in card_odds(table, card):
            decided = {o.path for o in block.outcomes if _decisions(o)}
            if not decided:
                assert sum(o.probability for o in block.outcomes) == 1, (card.title, block.name)
            assert sum(o.weight for o in block.outcomes) == 1, (card.title, block.name)


def _decisions(outcome: Outcome) -> list[str]:
    return [step for step in outcome.path if not step.startswith(("check ", "roll "))]


def test_the_json_has_the_keys_scripts_read() -> None:
    code, output = run("odds", str(SPECIMENS), "The Figure at the End of the Hall", "--json")
    assert code == 0, output
    data = json.loads(output)
    assert set(data) >= {"card", "variant", "given", "blocks"}
    assert data["given"]["dexterity"] == 3
    back_away = data["blocks"][2]
    assert back_away["name"] == "Back away"
    assert set(back_away) >= {"name", "outcomes", "expected", "death"}
    first = back_away["outcomes"][0]
    assert set(first) >= {"path", "probability", "exact", "changes", "draws"}
    assert first["path"] == ["check dexterity: 0..1"]
    assert first["changes"] == {"terror": 1}
    assert (
        Fraction(first["exact"])
        == pool_distribution(3, COMA_WARD_FACES)[0] + (pool_distribution(3, COMA_WARD_FACES)[1])
    )
    paths = [o["path"] for o in back_away["outcomes"]]
    assert paths[1:] == [
        ["check dexterity: 2+", "may: yes", "check focus: 0..2"],
        ["check dexterity: 2+", "may: yes", "check focus: 3+"],
        ["check dexterity: 2+", "may: no"],
    ]
    assert back_away["outcomes"][1]["draws"] == {"hallucination": 1}
    assert back_away["outcomes"][2]["draws"] == {"item": 1}


def test_four_dice_pass_a_focus_check_as_design_says() -> None:
    """Terror 1 gives focus 4 in Coma Ward: `3+` on four dice is 0.2862
    (docs/readings.md#coma-ward-pool-check)."""
    code, output = run("odds", str(SPECIMENS), "Music from the Nursery", "--variant", "1", "--json")
    assert code == 0, output
    hum = json.loads(output)["blocks"][1]
    passed = next(o for o in hum["outcomes"] if o["path"] == ["check focus: 3+"])
    assert passed["probability"] == 0.2862
    assert Fraction(passed["exact"]) == at_least(pool_distribution(4, COMA_WARD_FACES), 3)
    assert hum["expected"]["terror"] == pytest.approx(0.7138 - 0.2862, abs=1e-4)


def test_given_stats_change_the_odds() -> None:
    code, output = run(
        "odds", str(SPECIMENS), "The Figure at the End of the Hall", "--set", "dexterity=0"
    )
    assert code == 0, output
    assert re.search(r"100\.0 %\s+check dexterity: 0\.\.1\s+terror \+1", output), output
    assert "given health 5, terror 1, dexterity 0" in output


def test_the_text_table_reads_per_option() -> None:
    code, output = run("odds", str(SPECIMENS), "Someone Says Your Name")
    assert code == 0, output
    assert "  Stay quiet\n" in output
    assert re.search(
        r"71\.4 %\s+choose: Hold your breath › check focus: 0\.\.2\s+terror \+1", output
    )
    # Said before the rows, plainly: the rows of a decision are alternatives, not a sum.
    plainly = "    percentages are per decision: a row is the chance of its path when the answers"
    assert plainly in output
    assert output.index(plainly) < output.index("71.4 %")
    assert "expected (each answer taken with even odds): " in output


def test_a_card_with_variants_says_which_and_draws_one_at_random() -> None:
    code, output = run("odds", str(SPECIMENS), "Music from the Nursery")
    assert code == 0, output
    assert "note: variant 1 of 2: --variant N shows another, --variant random" in output
    code, output = run("odds", str(SPECIMENS), "Music from the Nursery", "--variant", "random")
    assert code == 0 and "note: drew variant " in output and "as the deck would" in output
    code, output = run(
        "play",
        str(SPECIMENS),
        "Music from the Nursery",
        "--variant",
        "random",
        "--seed",
        "5",
        "--choose",
        "Hum along",
    )
    assert code == 0 and "note: drew variant 2 of 2" in output  # seeded: the same draw each run
    code, output = run("odds", str(SPECIMENS), "Music from the Nursery", "--variant", "two")
    assert code == 2 and "give a variant number from 1 to 10000, or random" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["No Such Card"], "no card titled 'No Such Card'"),
        (["Music from the Nursery", "--variant", "7"], "has no variant 7"),
        (["Chapel", "--set", "terror=9"], "out of range"),
        (["Chapel", "--set", "courage=1"], "is not a stat"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    code, output = run("odds", str(SPECIMENS), *args)
    assert code == 2, output
    assert message in output
    assert "Traceback" not in output


def test_death_is_counted(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        rooms='room "Pit" {\n number 1\n when revealed {\n  check focus {\n'
        "   0..1 { lose health 5 }\n   2+ { gain terror 1 }\n  }\n }\n}\n",
    )
    code, output = run("odds", str(pack), "Pit", "--json", "--set", "terror=3")
    assert code == 0, output
    block = json.loads(output)["blocks"][0]
    dies = at_least(pool_distribution(3, COMA_WARD_FACES), 0) - at_least(
        pool_distribution(3, COMA_WARD_FACES), 2
    )
    assert block["death"] == round(float(dies), 4)
    assert block["outcomes"][0]["death"] is True
    assert block["outcomes"][0]["changes"] == {"health": -5}
    assert block["expected"]["health"] == round(float(-5 * dies), 4)


def test_a_card_that_branches_past_the_limit_is_refused(tmp_path: Path) -> None:
    # 3 ** 8 paths, each short: the path limit stops it before the limit on work.
    roll = "roll d6 { 1..2 { gain terror 1 } 3..4 { lose terror 1 } 5..6 { } }"
    pack = make_pack(
        tmp_path / "p",
        rooms=f'room "Maze" {{\n number 1\n when revealed {{\n  repeat 8 {{ {roll} }}\n }}\n}}\n',
    )
    code, output = run("odds", str(pack), "Maze")
    assert code == 1, output
    assert "E0604" in output and "more than 5000 paths" in output
    assert "rooms.card:1:" in output or "rooms.card:" in output


def test_nested_repeats_and_rolls_multiply_paths(tmp_path: Path) -> None:
    roll = "roll d6 { 1..2 { gain terror 1 } 3..6 { } }"
    pack = make_pack(
        tmp_path / "p",
        rooms=f'room "Echo" {{\n number 1\n when revealed {{\n  repeat 3 {{ {roll} }}\n }}\n}}\n',
    )
    table = odds_table(compiled(pack), [])
    [block] = card_odds(table, compiled(pack).cards[0])
    assert len(block.outcomes) == 8
    # Three rolls, each +1 a third of the time; from terror 1, the bound of 5 is never reached.
    assert block.expected(["terror"])["terror"] == 1
    assert [o.path for o in block.outcomes][:2] == [
        ("roll d6: 1..2", "roll d6: 1..2", "roll d6: 1..2"),
        ("roll d6: 1..2", "roll d6: 1..2", "roll d6: 3..6"),
    ]
    assert math.isclose(sum(float(o.probability) for o in block.outcomes), 1.0)


# ------------------------------------------------------------------ against the real dice


class CountingGame(Game):
    """The real game and dice, with draws counted instead of resolved (as the odds do)."""

    drawn: dict[str, int]

    def draw(self, deck: str, count: int = 1) -> None:
        self.step()
        self.drawn[deck] = self.drawn.get(deck, 0) + count


def blocks_of(card: CardDef, pack: CompiledPack) -> list[tuple[str, Effect, bool]]:
    if card.options:
        return [(o.title, o.run, False) for o in card.options]
    found = []
    for block in card.blocks:
        rule = pack.rules.blocks.get(block.name)
        if block.run is not None and rule is not None:
            found.append((rule.written(block.args), block.run, rule.trigger == "use"))
    return found


def first_answers(block: BlockOdds) -> dict[tuple[object, ...], Fraction]:
    """The exact odds of each result when every `may` is answered yes (the first answer)."""
    odds: dict[tuple[object, ...], Fraction] = {}
    for outcome in block.outcomes:
        if all(step == "may: yes" for step in _decisions(outcome)):
            key = (tuple(sorted(outcome.changes.items())), tuple(sorted(outcome.draws.items())))
            odds[key] = odds.get(key, Fraction(0)) + outcome.probability
    return odds


RUNS = 3000


@pytest.mark.parametrize(
    "title", ["The Figure at the End of the Hall", "Music from the Nursery", "Unlabeled Vial"]
)
def test_exact_odds_agree_with_the_dice(title: str) -> None:
    """Seeded play of each block, first answers taken, lands where the exact odds say."""
    pack = compiled(SPECIMENS)
    table = odds_table(pack, [])
    stats = table.stats
    for card in [c for c in pack.cards if c.title == title]:
        walked = {block.name: block for block in card_odds(table, card)}
        for name, effect, carried in blocks_of(card, pack):
            exact = first_answers(walked[name])
            seen = Counter[tuple[object, ...]]()
            for seed in range(RUNS):
                game = CountingGame(
                    pack.rules, pack.cards, pack.module, seed=seed, decisions=FirstChoice()
                )
                game.drawn = {}
                before = {s: game.player.stats.get(s) for s in stats}
                instance = game.new_instance(card)
                if carried:
                    game.player.items.append(instance)
                game.resolve(instance, effect, name)
                changes = {
                    s: game.player.stats.get(s) - before[s]
                    for s in stats
                    if game.player.stats.get(s) != before[s]
                }
                seen[(tuple(sorted(changes.items())), tuple(sorted(game.drawn.items())))] += 1
            assert set(seen) <= set(exact), (title, name, seen, exact)
            for key, probability in exact.items():
                p = float(probability)
                error = 4.5 * math.sqrt(max(p * (1 - p), 1e-4) / RUNS)
                assert abs(seen[key] / RUNS - p) <= error, (title, name, key, seen[key], p)


def test_blocks_with_nothing_to_tell_are_named_once() -> None:
    # odds on a phenomenon printed "100.0 % (always) no change" for each of its round blocks.
    code, output = run("odds", str(ROOT / "content" / "coma-ward"), "High Water")
    assert code == 0, output
    assert "(always)  no change" not in output
    assert "  when set up, each round, round goals: nothing left to chance" in output
    assert "when phenomenon revealed" in output  # a block with chances is shown as before
