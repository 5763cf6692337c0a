"""Checker behaviour on hostile or unusual cards: no hangs, no internal errors, no follow-ons."""

from __future__ import annotations

import gc
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import compiler.check
import compiler.pipeline
from compiler.check import check_paths
from compiler.gamerules import game_rules
from compiler.passes import PACK_PASSES, printed_title, run_passes
from compiler.pipeline import check_file
from compiler.ruleset import load_ruleset
from compiler.simulated import every_word_has_code
from runtime.games import game_module
from tests.helpers import make_pack, run


def codes(text: str) -> list[str]:
    """The diagnostic codes of one file, checked alone and with the pack-wide passes."""
    ruleset = load_ruleset("coma-ward")
    result = check_file(ruleset, "t.card", text)
    found = result.diagnostics + run_passes(ruleset, result.cards, PACK_PASSES)
    return sorted(d.code for d in found)


def hallucination(option_body: str) -> str:
    """A hallucination whose first option holds `option_body`."""
    return (
        'hallucination "H" {\n  situation "s"\n  option "A" {\n'
        + option_body
        + '\n  }\n  option "B" { end turn }\n}\n'
    )


def test_huge_rolls_and_pools_do_not_hang() -> None:
    item = 'item "V" {{\n  type medicine\n  use {{ {} }}\n}}\n'
    assert codes(item.format("roll 999999d999999 { 1+ { gain terror 1 } }")) == ["E0203", "E0203"]
    assert codes(hallucination("check focus +99999999999 { 0+ { gain terror 1 } }")) == ["E0203"]
    assert codes(hallucination("check focus { 0..99999999999 { end turn } }")) == []


def test_bad_labels_do_not_also_report_gaps() -> None:
    assert codes(hallucination("check focus { low { end turn } 1+ { end turn } }")) == ["E0220"]
    assert codes(hallucination("check focus { 2..0 { end turn } 3+ { end turn } }")) == ["E0303"]


def test_titles_and_variants_are_checked_before_the_schema() -> None:
    assert codes(hallucination("end turn").replace('"H" {', '"H" variant 0 {')) == ["E0203"]
    assert codes(hallucination("end turn").replace('"H"', '""')) == ["E0221"]
    assert codes(hallucination("end turn").replace('option "A"', 'option ""')) == ["E0221"]
    long_text = 'say "' + "x" * 20_001 + '"'
    assert codes(hallucination(long_text)) == ["E0222"]


def test_open_top_outcome_warning() -> None:
    assert codes(hallucination("check focus { 0..2 { end turn } 3..5 { end turn } }")) == ["W0304"]


def test_worker_processes_give_the_same_report(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.check import check_paths
    from tests.conftest import TESTS

    folder = TESTS / "specimens" / "bad"
    alone = check_paths([folder], use_cache=False)
    monkeypatch.setattr(compiler.pipeline, "PARALLEL_MIN_BYTES", 0)
    workers: list[int] = []
    real_check_files = compiler.pipeline.check_files

    def spy(*args: object, **kwargs: object) -> object:
        results = real_check_files(*args, **kwargs)  # type: ignore[arg-type]
        workers.append(compiler.pipeline.LAST_RUN_WORKERS[0])
        return results

    monkeypatch.setattr("compiler.check.check_files", spy)  # where check_paths looks it up
    together = check_paths([folder], use_cache=False)
    if (os.cpu_count() or 1) > 1:
        assert workers and workers[0] > 1, "the worker processes did not run"
    assert together.diagnostics == alone.diagnostics
    assert together.cards == alone.cards


def test_an_unknown_word_with_nothing_close_lists_the_words_there() -> None:
    ruleset = load_ruleset("coma-ward")
    found = check_file(
        ruleset, "t.card", hallucination("go basement\nmove to basement")
    ).diagnostics
    verb = next(d for d in found if d.code == "E0200")
    # Every verb by its leading words, with the ruleset's summary of it.
    assert verb.help is not None and verb.help.startswith("the verbs here:\n")
    assert "    gain: raise a stat" in verb.help and "    move to: move the player" in verb.help
    place = next(d for d in found if d.code == "E0201")
    assert place.help is not None and place.help.startswith("the places here: ")
    assert "nurses-station" in place.help and "f3-room-4" in place.help
    # A word close to one keeps the single suggestion.
    close = check_file(ruleset, "t.card", hallucination("gian terror 1")).diagnostics
    assert [d.help for d in close if d.code == "E0200"] == ["did you mean 'gain'?"]


def _pack_with_a_verb(folder: Path, name: str, verb: str, effects: str) -> None:
    """A pack of one card whose `when drawn` runs these lines, on a ruleset that extends Coma
    Ward's with one verb (`word: {pattern: ...}`)."""
    (folder / "ruleset.yaml").write_text(
        f"ruleset: {name}\ntitle: {name.title()}\nversion: 1\nextends: coma-ward\n"
        f"verbs:\n  {verb}\n"
    )
    (folder / "pack.yaml").write_text("pack: w\ntitle: W\nversion: 1.0.0\nruleset: ruleset.yaml\n")
    lines = "".join(f"        {line}\n" for line in effects.splitlines())
    (folder / "a.card").write_text(
        f'item "Moon Stone" {{\n    type clue\n    when drawn {{\n{lines}    }}\n}}\n'
    )


def test_a_word_no_runtime_module_implements_is_W0330_and_not_executable(tmp_path: Path) -> None:
    verb = 'howl: {pattern: "howl {amount}", summary: "howl at the moon"}'
    _pack_with_a_verb(tmp_path, "howling", verb, "howl 3\ngain terror 1")
    report = check_paths([tmp_path], None, use_cache=False)
    (found,) = [d for d in report.diagnostics if d.code != "W0324"]  # one card is no game
    assert found.code == "W0330" and (found.span.line, found.span.column) == (4, 9)
    assert (
        "verb 'howl' of ruleset 'howling' has no code in the 'coma-ward' runtime" in found.message
    )
    assert report.executable == 0.5  # the howl runs no more than `rule` text would


def test_a_pack_loaded_again_is_not_parsed_again_and_each_load_has_its_own_ir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` loads the pack at every save: a file unchanged since is not checked again, and
    what one load is given is a copy no other load shares; an edited file is checked anew."""
    from compiler import kept
    from compiler.build import load_checked
    from tests.helpers import make_pack

    monkeypatch.setattr(kept, "_keeping", [True])  # as serve and the language server keep
    pack = make_pack(tmp_path / "pack", cards='item "Cup" {\n    type food\n}\n')
    first = load_checked(pack).pack
    checked: list[str] = []
    real = compiler.pipeline.check_file
    monkeypatch.setattr(
        compiler.pipeline,
        "check_file",
        lambda ruleset, shown, *rest: checked.append(shown) or real(ruleset, shown, *rest),
    )
    second = load_checked(pack).pack
    assert first is not None and second is not None and checked == []
    assert second.cards == first.cards and second.cards[0] is not first.cards[0]
    (pack / "cards.card").write_text('item "Mug" {\n    type food\n}\n')
    third = load_checked(pack).pack
    assert third is not None and third.cards[0]["title"] == "Mug" and len(checked) == 1


def test_titles_that_print_alike_are_warned_of(tmp_path: Path) -> None:
    # Knife, a Knife with a zero-width space, one with a soft hyphen and a direction mark,
    # a full-width one and one with a Cyrillic і: unique titles to the check, five cards
    # called Knife in print. A Café with an accent is its own title.
    titles = ["Knife", "Kn\u200bife", "Kni\u00adfe\u200e", "Ｋｎｉｆｅ", "Kn\u0456fe", "Café"]
    cards = "".join(f'item "{title}" {{\n    type weapon\n}}\n\n' for title in titles)
    folder = make_pack(tmp_path / "knives", cards=cards)
    code, output = run("check", "--no-cache", str(folder))
    assert code == 0, output  # a warning: the pack still checks
    warned = [line for line in output.splitlines() if "warning[W0316]" in line]
    assert [line.split(":")[1] for line in warned] == ["5", "9", "13", "17"], output
    assert "first at" in output and "'Kn\\u200bife'" in output


def test_an_ascii_title_prints_as_it_is_written() -> None:
    # printed_title returns an ASCII title at once (a pack of ten thousand titles is checked
    # faster): it holds because NFKC and the left-out format characters leave ASCII alone.
    every = "".join(map(chr, range(128)))
    assert printed_title(every) == every
    assert all(unicodedata.normalize("NFKC", c) == c for c in every)
    assert not any(unicodedata.category(c) == "Cf" for c in every)


def test_a_number_out_of_a_slot_s_kind_says_what_the_slot_takes(tmp_path: Path) -> None:
    # `copies -3` said "expected a number, found '-3'": it is a number, only not one that
    # copies can have.
    card = 'item "Cup" {\n    type food\n    copies -3\n}\n'
    code, output = run("check", "--no-cache", str(make_pack(tmp_path / "cups", cards=card)))
    assert code == 1
    assert "expected a number from 1 to 20, written without a sign, found '-3'" in output


def test_the_cycle_collector_waits_for_a_check_and_is_left_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    during: list[bool] = []

    def passes(*args: Any) -> list[Any]:
        during.append(gc.isenabled())
        return run_passes(*args)

    monkeypatch.setattr(compiler.check, "run_passes", passes)
    pack = Path("tests/specimens/coma-ward")
    assert gc.isenabled()
    check_paths([pack], use_cache=False)
    assert during == [False] and gc.isenabled()
    gc.disable()
    try:
        check_paths([pack], use_cache=False)
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


def test_the_unsimulated_walk_is_skipped_only_where_it_could_find_nothing(tmp_path: Path) -> None:
    coma = load_ruleset("coma-ward")
    rules = game_rules(coma)
    assert every_word_has_code(coma, game_module(rules.game), rules)
    # a verb with no code, whatever its slots are named: it must walk
    for verb in ('howl: {pattern: "howl {amount}"}', 'mark: {pattern: "mark {verb:stat}"}'):
        (tmp_path / "r.yaml").write_text(
            f"ruleset: r\ntitle: R\nversion: 1\nextends: coma-ward\nverbs:\n  {verb}\n"
        )
        ruleset = load_ruleset(str(tmp_path / "r.yaml"))
        rules = game_rules(ruleset)
        assert not every_word_has_code(ruleset, game_module(rules.game), rules), verb


def test_a_slot_named_like_a_word_key_is_not_taken_for_a_word(tmp_path: Path) -> None:
    # `mark terror`: a verb whose slot is named `verb`; its value is a stat, not a verb
    verb = 'mark: {pattern: "mark {verb:stat}", summary: "mark a stat"}'
    _pack_with_a_verb(tmp_path, "marking", verb, "mark terror")
    report = check_paths([tmp_path], None, use_cache=False)
    found = [d.message for d in report.diagnostics if d.code == "W0330"]
    assert len(found) == 1 and "verb 'mark' of ruleset 'marking'" in found[0], found
