"""Untrusted packs: nothing outside the pack is read, odd input is a diagnostic, never a crash."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cache import cache_dir
from compiler.check import check_paths
from compiler.cli import main

MANIFEST = "pack: p\ntitle: T\nversion: 0.1.0\nruleset: coma-ward\n"
CARD = 'item "Clean Towel" {\n    type clothing\n}\n'


def run(*args: str) -> tuple[int, str]:
    """Run the CLI in-process."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def pack(folder: Path, manifest: str = MANIFEST, **cards: str) -> Path:
    """A pack folder with a pack.yaml and card files named by keyword."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.yaml").write_text(manifest)
    for name, text in cards.items():
        (folder / f"{name}.card").write_text(text)
    return folder


def test_symlinked_pack_yaml_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("pack: p\ntitle: TOPSECRET\nversion: 0.1.0\nruleset: coma-ward\n")
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "pack.yaml").symlink_to(secret)
    (folder / "a.card").write_text(CARD)
    code, output = run("check", "--color", "never", str(folder))
    assert code == 1
    assert "TOPSECRET" not in output
    assert "not a plain file" in output


def test_symlinked_card_file_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.card"
    outside.write_text('item "Stolen" {\n  type food\n}\n')
    folder = pack(tmp_path / "p", a=CARD)
    (folder / "b.card").symlink_to(outside)
    report = check_paths([folder], use_cache=False)
    assert [d.code for d in report.diagnostics] == ["E0404"]
    assert report.cards == 1


@pytest.mark.parametrize("pattern", ["**a", ".", "./", "[", "cards/**/", "*" * 300])
def test_odd_sources_patterns_are_diagnostics(tmp_path: Path, pattern: str) -> None:
    folder = pack(tmp_path / "p", MANIFEST + f"sources: [{json.dumps(pattern)}]\n", a=CARD)
    code, output = run("check", "--format", "json", str(folder))
    assert code in (0, 1), output
    json.loads(output)


def test_sources_may_not_leave_the_pack(tmp_path: Path) -> None:
    (tmp_path / "x.card").write_text(CARD)
    folder = pack(tmp_path / "p", MANIFEST + 'sources: ["../*.card"]\n', a=CARD)
    report = check_paths([folder], use_cache=False)
    assert [d.code for d in report.diagnostics] == ["E0403"]


def test_named_file_through_a_symlinked_folder(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p", a='item "X" {\n  type weapn\n}\n')
    (tmp_path / "link").symlink_to(folder)
    code, _ = run("check", str(tmp_path / "link" / "a.card"))
    assert code == 1  # the error is found, not a false clean


def test_named_file_outside_sources_is_a_usage_error(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p", a=CARD)
    (folder / "notes.txt").write_text("hello")
    code, output = run("check", str(folder / "notes.txt"))
    assert code == 2 and "not one of the card files" in output


def test_loose_files_with_glob_characters_in_their_names(tmp_path: Path) -> None:
    card = tmp_path / "a[1].card"
    card.write_text('item "X" {\n  type weapn\n}\n')
    code, _ = run("check", "--ruleset", "coma-ward", str(card))
    assert code == 1


def test_nested_pack_is_not_read_by_the_outer_one(tmp_path: Path) -> None:
    outer = pack(tmp_path / "outer", a=CARD)
    pack(outer / "inner", MANIFEST.replace("coma-ward", "other"), b="nonsense { }")
    report = check_paths([outer], use_cache=False)
    assert report.errors == 0 and report.files == 1


def test_no_cache_writes_no_cache_at_all(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p", a=CARD)
    check_paths([folder], use_cache=False)
    assert not any(cache_dir().iterdir()) if cache_dir().exists() else True


def test_nul_bytes_lone_cr_and_empty_files(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p")
    (folder / "bin.card").write_bytes(b'item "x" {\n  type \x00food\n}\n')
    (folder / "mac.card").write_bytes(b'item "Mac" {\r  type wepon\r}\r')
    (folder / "empty.card").write_text("# nothing yet\n")
    report = check_paths([folder], use_cache=False)
    found = {(Path(d.span.file).name, d.code, d.span.line) for d in report.diagnostics}
    assert ("bin.card", "E0407", 2) in found
    assert ("mac.card", "E0201", 2) in found
    assert ("empty.card", "W0408", 1) in found


def test_huge_pack_yaml_is_refused(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p", MANIFEST + "#" + "x" * 70_000 + "\n", a=CARD)
    code, output = run("check", "--color", "never", str(folder))
    assert code == 1 and "too large" in output


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for level in range(1, 9):
        bomb += (
            f"{'abcdefghij'[level]}: &{'abcdefghij'[level]} ["
            + ", ".join([f"*{'abcdefghij'[level - 1]}"] * 9)
            + "]\n"
        )
    folder = pack(tmp_path / "p", MANIFEST + bomb, a=CARD)
    code, output = run("check", "--color", "never", str(folder))
    assert code == 1 and "aliases are not allowed" in output


def test_duplicate_key_naming_an_alias_bomb_is_fast(tmp_path: Path) -> None:
    bomb = 'a0: &a0 ["lol", "lol"]\n'
    bomb += "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 12))
    folder = pack(tmp_path / "p", MANIFEST + bomb + "title: *a11\n", a=CARD)
    code, output = run("check", "--color", "never", str(folder))
    assert code == 1 and "not allowed" in output


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_card_file(tmp_path: Path) -> None:
    folder = pack(tmp_path / "p", a=CARD)
    (folder / "a.card").chmod(0)
    report = check_paths([folder], use_cache=False)
    assert [d.code for d in report.diagnostics] == ["E0402"]
