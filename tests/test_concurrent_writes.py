"""Two runs of pillbox writing the same outputs and caches at once: neither fails for it, and
every file left is whole (one run's or the other's, never a mix or a part of one)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from compiler import cache
from compiler.files import write_atomically
from compiler.printing import output
from tests.conftest import ROOT, TESTS

SPECIMENS = TESTS / "specimens" / "coma-ward"


def test_a_file_set_aside_by_another_print_meanwhile_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two prints replacing one PDF: the second saw the old file, then the first set it aside
    # before the second could, and the second stopped with "cannot write o.pdf: No such file
    # or directory" and exit 2 (three processes putting files in place at once: 4 times in
    # 6,000).
    final = tmp_path / "o.pdf"
    final.write_bytes(b"old")
    temporary = tmp_path / ".o.pdf.1-0123456789ab.tmp"
    temporary.write_bytes(b"new")
    real = output._rename

    def the_other_print_first(source: Path, target: Path, shown: Path | None = None) -> None:
        if source == final:
            os.replace(final, tmp_path / ".o.pdf.2-0123456789ab.old")
        real(source, target, shown)

    monkeypatch.setattr(output, "_rename", the_other_print_first)
    output._put_in_place([(temporary, final)], "1-0123456789ab")
    assert final.read_bytes() == b"new" and not temporary.exists()


def test_files_written_from_many_threads_at_once_are_always_whole(tmp_path: Path) -> None:
    targets = [tmp_path / "out.json", tmp_path / "cache" / "c.json"]
    writers = [write_atomically, cache.write_file]
    texts = [json.dumps({"writer": n, "data": "x" * 50_000 * (n + 1)}).encode() for n in range(4)]
    failures: list[BaseException] = []
    read_whole: list[bool] = []

    def write(n: int) -> None:
        try:
            for _ in range(40):
                for target, writer in zip(targets, writers, strict=True):
                    writer(target, texts[n])
        except BaseException as error:  # told by the assertion below
            failures.append(error)

    def read() -> None:
        while any(thread.is_alive() for thread in threads):
            for target in targets:
                with contextlib.suppress(FileNotFoundError):  # not written yet
                    read_whole.append(target.read_bytes() in texts)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    reader = threading.Thread(target=read)
    for thread in threads:
        thread.start()
    reader.start()
    for thread in [*threads, reader]:
        thread.join()
    assert failures == []
    assert read_whole and all(read_whole)
    assert sorted(path.name for path in tmp_path.rglob("*") if path.is_file()) == [
        "c.json",
        "out.json",
    ]


def test_two_prints_and_two_checks_of_a_pack_at_once_all_succeed_with_whole_outputs(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    for name in ("pack.yaml", "items.card"):
        shutil.copy(SPECIMENS / name, pack / name)
    out = tmp_path / "out"
    pngs = out / "png"
    pngs.mkdir(parents=True)
    (out / "cards.pdf").write_bytes(b"an older print")
    commands = [
        ["print", str(pack), "-o", str(out / "cards.pdf"), "--png", str(pngs), "--dpi", "30"],
        ["check", str(pack)],
    ]
    environment = {**os.environ, "PILLBOX_CACHE_DIR": str(tmp_path / "cache")}
    running = [
        subprocess.Popen(
            [sys.executable, "-m", "compiler", *arguments],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for arguments in commands
        for _ in range(2)
    ]
    said = [process.communicate(timeout=120)[0] for process in running]
    assert [process.returncode for process in running] == [0] * 4, said
    assert not any("Traceback" in text for text in said)
    with pikepdf.open(out / "cards.pdf") as pdf:
        assert len(pdf.pages) == 2
    previews = sorted(pngs.iterdir())
    assert len(previews) == 8
    for preview in previews:
        with Image.open(preview) as image:
            image.load()
    cached = list((tmp_path / "cache").rglob("*.json"))
    assert cached and all(json.loads(path.read_bytes()) for path in cached)
    leftovers = [path for path in tmp_path.rglob(".*") if path.name != ".lock"]
    assert leftovers == []
