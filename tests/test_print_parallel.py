"""Faces laid out in worker processes print exactly what one process prints, within the same
limits, and leave nothing behind: no process, no zombie, no temporary file.

The specimens are too few for the workers on their own, so these tests lower the threshold.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from compiler.printing import render
from compiler.printing.layout import Face
from tests.conftest import TESTS
from tests.helpers import run
from tests.test_print_geometry import POKER, read_pdf
from tests.test_print_safety import hostile, refused

SPECIMENS = TESTS / "specimens" / "coma-ward"


@pytest.fixture
def in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lay out in two workers from four faces up, in chunks of two faces or more."""
    monkeypatch.setattr(render, "PARALLEL_FACES", 4)
    monkeypatch.setattr(render, "CHUNK_FACES", 2)
    monkeypatch.setattr(render, "_cores", lambda: 2)


RESOURCE_TRACKER = b"multiprocessing.resource_tracker"
"""multiprocessing's resource tracker: started once by the first pool of a process (any earlier
test of the same worker may have started it) and living as long as the process, by design."""


def children() -> list[str]:
    """This process's children, zombies included, as /proc shows them (but the resource
    tracker, which belongs to the process, not to the print)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and RESOURCE_TRACKER not in command:
            found.append(f"{stat.parent.name} {fields[0]}")
    return found


def cards_of(pdf: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Per page, each card's box (rounded) and the text on it."""
    return [
        [
            (round(c.x, 2), round(c.y, 2), round(c.w, 2), round(c.h, 2), c.text)
            for c in page.cards(*POKER, bleed=3.0)
        ]
        for page in read_pdf(pdf)
    ]


def test_chunks_are_contiguous_cover_every_face_once_and_are_cut_by_the_faces() -> None:
    faces = [Face(f"<p>{i}</p>" + "x" * (i % 3), "item", str(i)) for i in range(205)]
    parts = render.chunks_of(faces)
    assert [face for part in parts for face in part] == faces
    sizes = [len(part) for part in parts]
    assert len(sizes) >= 4 and max(sizes) <= render.MAX_CHUNK_FACES
    assert min(sizes[:-1]) >= render.CHUNK_FACES
    # Not which card a face is: the same faces of other cards are cut the same.
    renumbered = [Face(face.html, face.kind, f"other {face.key}") for face in faces]
    assert [len(part) for part in render.chunks_of(renumbered)] == sizes
    # A face added in the middle changes the chunks around it, not those before or after.
    added = [*faces[:100], Face("<p>new</p>", "item", "new"), *faces[100:]]
    old = {tuple(face.key for face in part) for part in parts}
    new = {tuple(face.key for face in part) for part in render.chunks_of(added)}
    assert len(old - new) <= 2 and len(new - old) <= 2


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_print_what_one_process_prints_and_one_core_what_two_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_workers: None
) -> None:
    # One test, so that the print on two cores is made once for both comparisons: with the
    # serial print (the same cards), and byte for byte with the print on one core.
    args = ["--png", "", "--dpi", "40", "--backs", "duplex"]
    outputs = {}
    for name, cores, cache in (("parallel", 2, "--no-cache"), ("one-core", 1, "--no-cache")):
        monkeypatch.setattr(render, "_cores", lambda cores=cores: cores)
        args[1] = str(tmp_path / f"png-{name}")
        pdf = tmp_path / f"{name}.pdf"
        code, output = run("print", str(SPECIMENS), "-o", str(pdf), *args, cache)
        assert code == 0, output
        outputs[name] = output
        assert children() == [] and multiprocessing.active_children() == []
    # The chunks were cut by the cores the machine had, and the PDF's bytes followed the cuts:
    # `taskset -c 0 pillbox print` and the same on two cores gave different files.
    assert (tmp_path / "one-core.pdf").read_bytes() == (tmp_path / "parallel.pdf").read_bytes()
    monkeypatch.setattr(render, "_cores", lambda: 2)
    monkeypatch.setattr(render, "PARALLEL_FACES", 10_000)
    args[1] = str(tmp_path / "png-serial")
    code, outputs["serial"] = run(
        "print", str(SPECIMENS), "-o", str(tmp_path / "serial.pdf"), *args
    )
    assert code == 0, outputs["serial"]
    assert children() == [] and multiprocessing.active_children() == []
    assert outputs["parallel"].replace("parallel", "serial") == outputs["serial"]
    assert cards_of(tmp_path / "parallel.pdf") == cards_of(tmp_path / "serial.pdf")
    made = sorted(p.name for p in (tmp_path / "png-parallel").iterdir())
    assert made == sorted(p.name for p in (tmp_path / "png-serial").iterdir()) and len(made) == 21
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tmp") == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_worker_past_the_deadline_is_killed_and_reaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_workers: None
) -> None:
    monkeypatch.setattr("compiler.printing.sheets.LAYOUT_SECONDS", 1.0)
    monkeypatch.setattr("compiler.printing.sheets.LAYOUT_SECONDS_PER_FACE", 0.0)
    # Nested columns take WeasyPrint time exponential in their depth: this one, minutes.
    nested = "<div>" * 8 + "{{ card.title }}" + "</div>" * 8
    cards = "".join(f'item "Cup {n}" {{\n    type food\n}}\n' for n in range(6))
    pack = hostile(tmp_path, {"card.html": nested, "cards.css": "div { columns: 2 }"}, cards)
    started = time.monotonic()
    output = refused(tmp_path, pack)
    assert time.monotonic() - started < 10
    assert "error[E0701]: laying out the cards took longer than 1 s" in output
    assert children() == [] and multiprocessing.active_children() == []


def test_html_too_deep_for_a_worker_is_refused(tmp_path: Path, in_workers: None) -> None:
    cards = "".join(f'item "Cup {n}" {{\n    type food\n}}\n' for n in range(6))
    deep = "{% for i in range(400) %}<div>{% endfor %}x"
    output = refused(tmp_path, hostile(tmp_path, {"card.html": deep}, cards))
    assert "error[E0701]: laying out the cards is nested too deeply" in output
