"""Combining rulesets: `extends:` a list, merged in C3 order, earlier winning, conflicts refused."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from compiler.lineage import linearize
from compiler.ruleset import (
    MAX_EXTENDS_DEPTH,
    MAX_RULESET_FILES,
    RulesetError,
    lineage_documents,
    load_ruleset,
)
from tests.helpers import compiled, house_rules_pack, run

HEADER = "ruleset: {name}\ntitle: {name}\nversion: 1\n"

SNEER_A = 'verbs:\n  sneer:\n    pattern: "sneer at {subject}"\n    text: "sneer at {subject}"\n'
SNEER_B = 'verbs:\n  sneer:\n    pattern: "sneer at {subject} twice"\n    text: "sneer"\n'

CARD = """\
weapon "Oaken Staff" {
    non-lethal
    use { hit the target for 2 body }
    test "a fantasy pack plays the injury rules" {
        play "Troll"
        use "Oaken Staff"
        expect target body == 0 and target body_wounds == 1
    }
}

foe "Troll" {
    body 2
    test "it stands" { play "Troll"; expect target body == 2 }
}
"""


def ruleset_file(folder: Path, name: str, extends: str, body: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(HEADER.format(name=name) + f"extends: {extends}\n" + body)
    return path


def problems(folder: Path, file: str = "rules.yaml") -> list[tuple[str, int, int, str]]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(file, base_dir=folder)
    return [(d.code, d.span.line, d.span.column, d.message) for d in caught.value.diagnostics]


def test_a_fantasy_pack_extends_the_injury_rules_and_base(tmp_path: Path) -> None:
    rules = HEADER.format(name="fantasy") + "extends: [cool-name, base]\n"
    folder = house_rules_pack(tmp_path, "fantasy", rules, CARD)
    pack = compiled(folder)
    assert pack.rules.game == "cool-name"  # base is what cool-name extends: cool-name wins
    assert {"hit", "coup", "gain", "draw"} <= set(pack.checked.ruleset.verbs.by_name)
    code, output = run("test", str(folder))
    assert code == 0 and "2 passed, 0 failed" in output, output


def test_earlier_wins_and_a_shared_base_merges_last(tmp_path: Path) -> None:
    # house.yaml extends cool-name and rewords `hit`; listed first, it wins over cool-name,
    # which comes after it (and base after both), whatever order the list gives them.
    hit = '{pattern: "hit {subject} for {amount} {vitality}", text: "wallop {subject}"}'
    ruleset_file(tmp_path, "house", "cool-name", f"verbs:\n  hit: {hit}\n")
    ruleset_file(tmp_path, "rules", "[house.yaml, cool-name, base]")
    ruleset = load_ruleset("rules.yaml", base_dir=tmp_path)
    assert ruleset.wording.texts["verbs"]["hit"] == "wallop {subject}"
    assert ruleset.verbs.by_name["hit"].source == "hit {subject} for {amount} {vitality}"
    assert ruleset.runtime == "cool-name"


def test_two_rulesets_defining_a_verb_differently_is_a_conflict_at_its_line(
    tmp_path: Path,
) -> None:
    ruleset_file(tmp_path, "house-a", "cool-name", SNEER_A)
    ruleset_file(tmp_path, "house-b", "cool-name", SNEER_B)
    ruleset_file(tmp_path, "rules", "\n  - house-a.yaml\n  - house-b.yaml")
    (found,) = problems(tmp_path)
    code, line, column, message = found
    assert (code, line, column) == ("E0445", 6, 5)  # the item that brings the second one
    assert message.startswith("verbs › sneer is defined differently by house-a (")
    assert "house-a.yaml:6)" in message and "house-b.yaml:6)" in message


def test_the_combining_ruleset_settles_a_conflict_by_stating_it(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "house-a", "cool-name", SNEER_A)
    ruleset_file(tmp_path, "house-b", "cool-name", SNEER_B)
    ruleset_file(tmp_path, "rules", "[house-a.yaml, house-b.yaml]", SNEER_A)
    assert load_ruleset("rules.yaml", base_dir=tmp_path).verbs.by_name["sneer"]
    ruleset_file(tmp_path, "rules", "[house-a.yaml, house-b.yaml]", "verbs: {sneer: null}\n")
    assert "sneer" not in load_ruleset("rules.yaml", base_dir=tmp_path).verbs.by_name


def test_rulesets_that_agree_do_not_conflict(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "house-a", "cool-name", SNEER_A)
    ruleset_file(tmp_path, "house-b", "cool-name", SNEER_A)
    ruleset_file(tmp_path, "rules", "[house-a.yaml, house-b.yaml]")
    assert "sneer" in load_ruleset("rules.yaml", base_dir=tmp_path).verbs.by_name


def test_two_games_name_their_own_runtimes(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "[cool-name, lobotomy]")
    found = problems(tmp_path)
    assert {code for code, *_ in found} == {"E0445"}
    assert any(message.startswith("runtime is defined differently") for *_, message in found)
    assert all((line, column) == (4, 22) for _, line, column, _ in found)


def test_a_ruleset_listed_before_one_that_extends_it_is_refused(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "[base, cool-name]")
    assert [(code, line) for code, line, *_ in problems(tmp_path)] == [("E0446", 4)]


def test_a_pack_ruleset_extends_no_file_outside_its_folder(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "outside", "base")
    ruleset_file(tmp_path / "pack", "rules", "[../outside.yaml]")
    assert [code for code, *_ in problems(tmp_path / "pack")] == ["E0411"]
    ruleset_file(tmp_path / "pack", "rules", "[missing.yaml]")
    assert [code for code, *_ in problems(tmp_path / "pack")] == ["E0410"]


def test_an_edited_extended_file_is_read_again(tmp_path: Path) -> None:
    house = ruleset_file(tmp_path, "house-a", "cool-name", SNEER_A)
    ruleset_file(tmp_path, "rules", "[house-a.yaml, cool-name]")
    assert load_ruleset("rules.yaml", base_dir=tmp_path).verbs.by_name["sneer"]
    house.write_text(house.read_text().replace("sneer", "jeer"))
    os.utime(house, ns=(1, 1))  # a new version even within the file system's clock tick
    reloaded = load_ruleset("rules.yaml", base_dir=tmp_path)
    assert "jeer" in reloaded.verbs.by_name and "sneer" not in reloaded.verbs.by_name


def test_the_files_a_pack_ruleset_combines_weigh_no_more_than_one(tmp_path: Path) -> None:
    padding = "# " + "x" * 98 + "\n"
    ruleset_file(tmp_path, "house-a", "cool-name", padding * 1_500)
    ruleset_file(tmp_path, "house-b", "cool-name", padding * 1_500)
    ruleset_file(tmp_path, "rules", "[house-a.yaml, house-b.yaml]")
    ((code, _, _, message),) = problems(tmp_path)
    # It named the file read last (house-b.yaml), which combines nothing.
    assert code == "E0412" and message == "the ruleset files rules.yaml combines are too large"


def _chain(folder: Path, files: int) -> None:
    """rules.yaml extends r1.yaml, which extends r2.yaml ..., the last cool-name."""
    names = ["rules", *(f"r{index}" for index in range(1, files))]
    for name, parent in zip(names, [*names[1:], None], strict=True):
        ruleset_file(folder, name, f"{parent}.yaml" if parent else "cool-name")


def test_a_chain_of_extends_deeper_than_the_bound_is_refused_at_the_top_extends(
    tmp_path: Path,
) -> None:
    # A thousand small files each extending the next once took minutes (cubic merging) and
    # then overflowed the stack, blamed on a valid file.
    _chain(tmp_path, 1000)
    found = problems(tmp_path)
    assert [(code, line, column) for code, line, column, _ in found] == [("E0447", 4, 10)]
    assert f"more than {MAX_EXTENDS_DEPTH} deep" in found[0][3]


def test_a_chain_of_extends_within_the_bound_merges(tmp_path: Path) -> None:
    _chain(tmp_path, MAX_EXTENDS_DEPTH - 2)  # the pack's files, then cool-name, then base
    assert load_ruleset("rules.yaml", base_dir=tmp_path).name == "rules"


def _c3_by_search(own: str, lineages: list[list[str]]) -> list[str] | None:
    """C3 as first written: search every tail for each candidate (cubic on long chains)."""
    pending = [list(s) for s in (*lineages, [s[0] for s in lineages if s]) if s]
    order = [own]
    while pending:
        head = next((s[0] for s in pending if not any(s[0] in o[1:] for o in pending)), None)
        if head is None:
            return None
        order.append(head)
        pending = [[k for k in s if k != head] for s in pending]
        pending = [s for s in pending if s]
    return order


def test_the_linear_merge_order_is_the_c3_order_of_every_small_graph() -> None:
    rng = random.Random(2026)
    for _ in range(3000):
        size = rng.randint(1, 7)
        parents = {i: [j for j in range(i + 1, size) if rng.random() < 0.45] for i in range(size)}
        orders: dict[int, list[str] | None] = {}
        for node in reversed(range(size)):
            found = [orders[p] for p in rng.sample(parents[node], len(parents[node]))]
            if any(lineage is None for lineage in found):
                orders[node] = None
                continue
            lineages = [list(lineage) for lineage in found if lineage is not None]
            expected = _c3_by_search(str(node), lineages)
            assert linearize(str(node), lineages) == expected
            orders[node] = expected


def test_a_value_that_must_be_true_is_explained_not_a_crash(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "cool-name", "slots:\n  mood: {text: false}\n")
    ((code, line, _, message),) = problems(tmp_path)
    assert code == "E0412" and line == 6 and "False is not allowed" in message


@pytest.mark.parametrize("base", ["3", "{stats: strength}", "{stats: [strength], dice: two}"])
def test_a_dice_check_whose_base_is_malformed_is_explained(tmp_path: Path, base: str) -> None:
    check = (
        "checks:\n  brace:\n    pattern: brace\n    text: brace\n    procedure: coma-ward-attack\n"
        "    outcomes: successes\n    params:\n"
        f"      base: {base}\n"
        "      faces: {success: [6], suspense: [], failure: [1, 2, 3, 4, 5]}\n"
    )
    ruleset_file(tmp_path, "rules", "coma-ward", check)
    ((code, line, _, message),) = problems(tmp_path)
    assert code == "E0412" and line == 12 and "its base" in message, message


def placed(folder: Path, file: str = "rules.yaml") -> list[tuple[str, str, int, int, str]]:
    """Each problem of loading a ruleset: its code, the file it is in, line, column, message."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(file, base_dir=folder)
    return [
        (d.code, Path(d.span.file).name, d.span.line, d.span.column, d.message)
        for d in caught.value.diagnostics
    ]


def test_a_cycle_of_two_is_told_as_a_cycle_where_it_closes(tmp_path: Path) -> None:
    # It was "ruleset 'rules.yaml' extends itself", said in b.yaml, which does not.
    ruleset_file(tmp_path, "rules", "b.yaml")
    ruleset_file(tmp_path, "b", "rules.yaml")
    assert placed(tmp_path) == [
        (
            "E0412",
            "b.yaml",
            4,
            10,
            "extends 'rules.yaml', which extends this one: "
            "a cycle rules.yaml → b.yaml → rules.yaml",
        )
    ]


def test_a_cycle_of_three_below_the_pack_ruleset_is_told_with_each_file(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "b.yaml")
    ruleset_file(tmp_path, "b", "c.yaml")
    ruleset_file(tmp_path, "c", "d.yaml")
    ruleset_file(tmp_path, "d", "[cool-name, b.yaml]")
    ((code, file, line, column, message),) = placed(tmp_path)
    assert (code, file, line, column) == ("E0412", "d.yaml", 4, 22)
    assert message.endswith("a cycle b.yaml → c.yaml → d.yaml → b.yaml")


def test_a_file_extending_a_link_to_itself_is_told_so(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "same.yaml")
    (tmp_path / "same.yaml").symlink_to(tmp_path / "rules.yaml")
    assert placed(tmp_path) == [
        (
            "E0412",
            "rules.yaml",
            4,
            10,
            "extends 'same.yaml', which is this file (rules.yaml) itself",
        )
    ]


def test_a_diamond_merges_its_shared_ruleset_once_after_both_sides(tmp_path: Path) -> None:
    ruleset_file(tmp_path, "rules", "[b.yaml, c.yaml]")
    ruleset_file(tmp_path, "b", "d.yaml", SNEER_A)
    ruleset_file(tmp_path, "c", "d.yaml")
    ruleset_file(tmp_path, "d", "cool-name", SNEER_B)
    ruleset = load_ruleset("rules.yaml", base_dir=tmp_path)
    order = [Path(document.file).name for _, document in lineage_documents(ruleset)]
    assert order == ["rules.yaml", "b.yaml", "c.yaml", "d.yaml", "ruleset.yaml", "ruleset.yaml"]
    assert ruleset.verbs.by_name["sneer"].source == "sneer at {subject}"  # b's over d's


def test_a_diamond_whose_sides_list_their_parents_in_opposite_orders_cannot_merge(
    tmp_path: Path,
) -> None:
    ruleset_file(tmp_path, "rules", "[b.yaml, c.yaml]")
    ruleset_file(tmp_path, "b", "[d.yaml, e.yaml]")
    ruleset_file(tmp_path, "c", "[e.yaml, d.yaml]")
    ruleset_file(tmp_path, "d", "cool-name")
    ruleset_file(tmp_path, "e", "cool-name")
    assert [(code, file, line, column) for code, file, line, column, _ in placed(tmp_path)] == [
        ("E0446", "rules.yaml", 4, 10)
    ]


@pytest.mark.parametrize(
    ("extends", "column", "message"),
    [
        ("[b.yaml, b.yaml]", 10, "ruleset: 'extends' lists 'b.yaml' twice"),
        ("[cool-name, cool-name]", 10, "ruleset: 'extends' lists 'cool-name' twice"),
        ("[b.yaml, ./b.yaml]", 19, "extends './b.yaml', the same file as 'b.yaml' before it"),
        ("[b.yaml, link.yaml]", 19, "extends 'link.yaml', the same file as 'b.yaml' before it"),
    ],
)
def test_extends_naming_one_ruleset_twice_says_so(
    tmp_path: Path, extends: str, column: int, message: str
) -> None:
    # Twice as written, the schema said "is not valid under any of the given schemas"; twice
    # by another path, "one is listed before a ruleset that extends it" (E0446).
    ruleset_file(tmp_path, "rules", extends)
    ruleset_file(tmp_path, "b", "cool-name")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "b.yaml")
    assert placed(tmp_path) == [("E0412", "rules.yaml", 4, column, message)]


def test_a_list_of_extends_too_long_is_told_by_its_length_not_quoted_whole(
    tmp_path: Path,
) -> None:
    ruleset_file(tmp_path, "rules", "[" + ", ".join(f"r{index}.yaml" for index in range(500)) + "]")
    ((code, file, line, column, message),) = placed(tmp_path)
    assert (code, file, line, column, message) == (
        "E0412",
        "rules.yaml",
        4,
        10,
        "ruleset: 'extends' lists 500 items",
    )


def test_rulesets_extending_eight_each_stop_at_the_bound_of_files(tmp_path: Path) -> None:
    # Layers of eight files, each extending the eight of the next layer: within the depth and
    # the bytes, thirty layers made 240 files and took ten seconds; a few thousand, minutes.
    layers, width = 30, 8

    def layer(number: int) -> str:
        return "[" + ", ".join(f"l{number}w{index}.yaml" for index in range(width)) + "]"

    ruleset_file(tmp_path, "rules", layer(0))
    for number in range(layers):
        for index in range(width):
            parent = layer(number + 1) if number + 1 < layers else "cool-name"
            ruleset_file(tmp_path, f"l{number}w{index}", parent)
    ((code, file, line, column, message),) = placed(tmp_path)
    assert (code, file, line, column) == ("E0447", "rules.yaml", 4, 10)
    assert f"are more than {MAX_RULESET_FILES} files" in message


def test_a_cycle_checked_from_the_command_line_exits_1_without_a_traceback(
    tmp_path: Path,
) -> None:
    folder = house_rules_pack(
        tmp_path, "fantasy", HEADER.format(name="f") + "extends: b.yaml\n", CARD
    )
    ruleset_file(folder, "b", "c.yaml")
    ruleset_file(folder, "c", "rules.yaml")
    code, output = run("check", str(folder))
    assert code == 1 and "c.yaml:4:10: error[E0412]" in output and "a cycle" in output, output
    assert "Traceback" not in output
