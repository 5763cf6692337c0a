"""The check cache: a warm re-check reads only the summary, a changed file is checked again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compiler.check
import compiler.pipeline
from compiler.cache import cache_dir
from compiler.check import check_paths

CARD = 'item "Towel {n}" {{\n    type clothing\n}}\n'


def make_pack(folder: Path, files: int) -> Path:
    """A pack of `files` one-card files."""
    folder.mkdir()
    (folder / "pack.yaml").write_text("pack: p\ntitle: T\nversion: 0.1.0\nruleset: coma-ward\n")
    for n in range(files):
        (folder / f"f{n}.card").write_text(CARD.format(n=n))
    return folder


def count_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record which files the per-file stage really checks."""
    seen: list[str] = []
    real = compiler.pipeline.check_file

    def spy(ruleset: object, shown: str, text: str, *rest: object) -> object:
        seen.append(Path(shown).name)
        return real(ruleset, shown, text, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler.pipeline, "check_file", spy)
    return seen


def test_only_changed_files_are_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack(tmp_path / "pack", 3)
    seen = count_checks(monkeypatch)
    first = check_paths([pack])
    assert sorted(seen) == ["f0.card", "f1.card", "f2.card"]
    seen.clear()
    again = check_paths([pack])
    assert seen == []  # the summary answered
    assert again.cards == first.cards == 3
    (pack / "f1.card").write_text(CARD.format(n=1).replace("clothing", "clothng"))
    changed = check_paths([pack])
    assert seen == ["f1.card"]
    assert changed.errors == 1


def test_cross_file_problems_are_found_with_a_warm_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack(tmp_path / "pack", 2)
    assert check_paths([pack]).errors == 0
    (pack / "f1.card").write_text(CARD.format(n=0))  # now a duplicate title of f0's card
    report = check_paths([pack])
    assert [d.code for d in report.diagnostics] == ["E0310"]


def test_cache_is_json_in_the_users_folder(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", 1)
    check_paths([pack])
    files = sorted(cache_dir().glob("check-*"))
    assert [f.suffix for f in files] == [".json", ".json"]
    for file in files:
        json.loads(file.read_text())  # plain JSON, nothing else


def test_a_damaged_cache_is_ignored(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", 1)
    check_paths([pack])
    for file in cache_dir().glob("check-*"):
        file.write_text("{not json")
    assert check_paths([pack]).cards == 1


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", 1)
    check_paths([pack], use_cache=False)
    assert not list(cache_dir().glob("check-*"))


def test_no_cache_does_not_hash_pillbox_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cache keys hash every file of pillbox's code; `--no-cache`, the run that must
    # start fast, has no use for them.
    def refuse() -> str:
        raise AssertionError("tool_fingerprint read without a cache")

    monkeypatch.setattr(compiler.check, "tool_fingerprint", refuse)
    pack = make_pack(tmp_path / "pack", 2)
    report = check_paths([pack], use_cache=False)
    assert report.errors == 0 and report.files == 2
