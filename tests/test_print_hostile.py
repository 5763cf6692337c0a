"""Hostile packs cannot hang `pillbox print`, fill the memory, or lose what was written.

Each test is an attacker's reproducer made small: an SVG `<use>` bomb that swallows alarms, a
gradient of a million stripes, thousands of boxes a card, an image of 169 megapixels in 20 KB,
a refused URL where WeasyPrint does not expect one, outputs that cannot be written, a print
interrupted or killed, a damaged face cache. Every one ends in a diagnostic (or a clean exit
of an interrupted print), with the old PDF as it was and no worker left running.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import multiprocessing
import os
import signal
import struct
import subprocess
import sys
import time
import zlib
from base64 import b64encode
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from compiler import cache
from compiler.printing import output, pdf, render, sheets, workers
from tests.conftest import ROOT
from tests.helpers import run
from tests.test_print_parallel import children
from tests.test_print_safety import PREVIOUS, SCALPEL, hostile, refused

LINUX = Path("/proc/self/stat").exists()
needs_proc = pytest.mark.skipif(not LINUX, reason="reads /proc")


def svg_bomb(levels: int = 9) -> str:
    """An SVG whose `<use>` elements each draw ten of the level below: 10**levels rectangles."""
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><defs>',
        '<rect id="a0" width="1" height="1"/>',
    ]
    for level in range(1, levels + 1):
        parts.append(f'<g id="a{level}">' + f'<use href="#a{level - 1}"/>' * 10 + "</g>")
    parts.append(f'</defs><use href="#a{levels}"/></svg>')
    return "".join(parts)


def png_header_of(width: int, height: int) -> bytes:
    """A small 1-bit PNG of this size: its rows are all zeros, which compress to nearly nothing."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    rows = zlib.compress(bytes(1 + (width + 7) // 8) * height, 9)
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


BOMB_WAYS = {
    "back": ({"back.svg": svg_bomb()}, ["--backs", "duplex"]),
    "one face": ({"card.html": '<img src="templates/bomb.svg">', "bomb.svg": svg_bomb()}, []),
}


# --- the deadline holds: a layout runs in a worker that is killed ---------------------------


@needs_proc
@pytest.mark.parametrize("way", BOMB_WAYS, ids=list(BOMB_WAYS))
def test_an_svg_use_bomb_is_stopped_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    # WeasyPrint's SVG drawing catches BaseException: an alarm in this process never stopped it.
    monkeypatch.setattr(sheets, "LAYOUT_SECONDS", 1.0)
    monkeypatch.setattr(sheets, "LAYOUT_SECONDS_PER_FACE", 0.0)
    templates, args = BOMB_WAYS[way]
    started = time.monotonic()
    output_text = refused(tmp_path, hostile(tmp_path, templates), *args)
    assert time.monotonic() - started < 6
    assert "error[E0701]: laying out the cards took longer than 1 s" in output_text
    assert children() == []


def test_the_whole_print_has_a_deadline_however_many_faces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sheets, "LAYOUT_SECONDS", 1000.0)  # as if there were thousands of faces
    monkeypatch.setattr(sheets, "PRINT_SECONDS", 1.0)
    pack = hostile(tmp_path, BOMB_WAYS["back"][0])
    output_text = refused(tmp_path, pack, "--backs", "duplex")
    assert "error[E0701]: laying out the cards took longer than the 1 s a whole print" in (
        output_text
    )


# --- memory: every layout, and the sheets, in a worker with a cap ---------------------------


def refused_in_a_process(
    tmp_path: Path, pack: Path, *args: str, limits: str = "pass"
) -> subprocess.CompletedProcess[str]:
    """Print the pack in a fresh process, with the limits lowered (`module.NAME = value; ...`):
    it must fail and leave the previous PDF alone. What it printed, stdout and stderr apart.

    A worker's cap is what it may add to the address space it was forked with; this test
    process holds room freed by earlier tests (pdfium's, say), so it would allow more.
    """
    target = tmp_path / "out.pdf"
    target.write_bytes(PREVIOUS)
    script = "; ".join(
        ["from compiler.printing import output, render", limits, "from compiler.cli import main"]
    )
    done = subprocess.run(
        [sys.executable, "-c", script + "; main()", "print", str(pack), "-o", str(target), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert target.read_bytes() == PREVIOUS
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    return done


@needs_proc
@pytest.mark.parametrize(
    "templates",
    [
        {"cards.css": ".trim{background:repeating-linear-gradient(red 0,blue 0.0002mm)}"},
        {"card.html": "{% for i in range(20000) %}<b>x</b>{% endfor %}"},
    ],
    ids=["gradient", "boxes"],
)
def test_a_layout_that_needs_too_much_memory_is_E0705(
    tmp_path: Path, templates: dict[str, str]
) -> None:
    started = time.monotonic()
    limits = "render.LAYOUT_MEMORY_MB = 100"  # 1024 by default: the same, slower
    done = refused_in_a_process(tmp_path, hostile(tmp_path, templates), limits=limits)
    assert time.monotonic() - started < 10
    assert "templates:1:1: error[E0705]: laying out the cards needs more than 100 MB" in done.stdout


@needs_proc
def test_sheets_and_previews_that_need_too_much_memory_are_E0705(tmp_path: Path) -> None:
    # A 600 dpi preview of a 200 × 280 mm card is a bitmap of 200 MB, drawn by pdfium.
    pngs = tmp_path / "png"
    args = ["--card", "200x280mm", "--dpi", "600", "--png", str(pngs)]
    limits = "output.FINISH_MEMORY_MB = 100"
    done = refused_in_a_process(tmp_path, hostile(tmp_path, {}), *args, limits=limits)
    assert "error[E0705]: making the sheets needs more than 100 MB of memory" in done.stdout
    assert not pngs.exists()  # made only once everything is written


@pytest.mark.parametrize("limit", ["MAX_CHUNK_BYTES", "MAX_LAID_OUT_BYTES"])
def test_laid_out_pages_too_large_to_hold_are_E0705(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    monkeypatch.setattr(render, limit, 1000)  # a face document is tens of kilobytes
    output_text = refused(tmp_path, hostile(tmp_path, {}))
    assert "error[E0705]: laying out the cards needs more PDF than a print may hold" in output_text


# --- interrupted or killed: nothing replaced, nothing left running --------------------------


def start_print(pack: Path, target: Path, *args: str) -> subprocess.Popen[bytes]:
    """`pillbox print` in a process of its own."""
    command = [sys.executable, "-m", "compiler", "print", str(pack), "-o", str(target), *args]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ)
    )


def forks_of(pid: int) -> list[int]:
    """The live processes forked by `pid` that run as it does: its workers (not the compiler
    a library may start to look for a shared library)."""
    found = []
    command = Path(f"/proc/{pid}/cmdline").read_bytes()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            same = (stat.parent / "cmdline").read_bytes() == command
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and same:
            found.append(int(stat.parent.name))
    return found


def workers_started(process: subprocess.Popen[bytes], count: int = 1) -> list[int]:
    """The print's workers, once `count` of them are laying out."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = forks_of(process.pid)
        if len(found) >= count:
            time.sleep(0.3)  # into the layout, past the fork's own first steps
            return found
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the print started no worker")


def gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether the process ends (or is a zombie: it runs no more) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


@needs_proc
@pytest.mark.parametrize(
    ("stop", "code", "message"),
    [
        (signal.SIGINT, 130, "pillbox: interrupted"),
        (signal.SIGTERM, 128 + signal.SIGTERM, "pillbox: terminated"),
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_an_interrupted_print_replaces_nothing_and_says_so_in_one_line(
    tmp_path: Path, stop: int, code: int, message: str
) -> None:
    pack = hostile(tmp_path, BOMB_WAYS["back"][0])
    target = tmp_path / "out.pdf"
    target.write_bytes(PREVIOUS)
    process = start_print(pack, target, "--backs", "duplex")
    workers: list[int] = []
    try:
        workers = workers_started(process)
        process.send_signal(stop)
        stdout, stderr = process.communicate(timeout=20)
        assert process.returncode == code, (stdout, stderr)
        assert stderr.decode().splitlines() == [message]
        assert target.read_bytes() == PREVIOUS
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
        assert len(workers) == 1 and gone(workers[0])
    finally:
        _stop_all(process, workers)


@needs_proc
def test_the_workers_of_a_killed_print_die_with_it(tmp_path: Path) -> None:
    # Enough faces for two workers; nested columns take each of them minutes.
    nested = "<div>" * 8 + "{{ card.title }}" + "</div>" * 8
    cards = "".join(f'item "Cup {n}" {{\n    type food\n}}\n' for n in range(40))
    pack = hostile(tmp_path, {"card.html": nested, "cards.css": "div { columns: 2 }"}, cards)
    process = start_print(pack, tmp_path / "out.pdf", "--no-cache")
    workers: list[int] = []
    try:
        workers = workers_started(process, min(len(os.sched_getaffinity(0)), 2))
        process.kill()
        process.wait(timeout=10)
        assert all(gone(worker) for worker in workers)
    finally:
        _stop_all(process, workers)


def _stop_all(process: subprocess.Popen[bytes], workers: list[int]) -> None:
    """Whatever a test found, no print nor worker of it is left to burn a core."""
    process.kill()
    for worker in workers:  # first: a worker left running holds the print's output pipes
        with contextlib.suppress(OSError):
            os.kill(worker, signal.SIGKILL)
    process.communicate()


# --- outputs: checked before any is written; a full disk names its file ---------------------


@pytest.mark.parametrize(
    ("png", "message"),
    [("afile", "--png {out}/afile: is a file, not a folder"), ("afile/sub", "is a file, not a")],
    ids=["a file", "under a file"],
)
def test_every_output_is_checked_before_any_is_written(
    tmp_path: Path, png: str, message: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.pdf").write_bytes(PREVIOUS)
    (out / "afile").write_text("not a folder")
    pack = hostile(tmp_path, {})
    code, text = run("print", str(pack), "-o", str(out / "old.pdf"), "--png", str(out / png))
    assert code == 2, text
    assert message.format(out=out) in text
    assert (out / "old.pdf").read_bytes() == PREVIOUS


@needs_proc
def test_a_full_disk_names_the_file_it_could_not_write_and_replaces_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync

    def full_for_pngs(handle: int) -> None:
        if ".png." in os.readlink(f"/proc/self/fd/{handle}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", full_for_pngs)  # the workers are forks: they have it too
    pngs = tmp_path / "png"
    pngs.mkdir()
    (pngs / "001-scalpel.png").write_bytes(b"the previous preview")
    target = tmp_path / "out.pdf"
    target.write_bytes(PREVIOUS)
    code, text = run("print", str(hostile(tmp_path, {})), "-o", str(target), "--png", str(pngs))
    assert code == 2, text
    assert f"cannot write {pngs / '001-scalpel.png'}: No space left on device" in text
    assert target.read_bytes() == PREVIOUS
    assert (pngs / "001-scalpel.png").read_bytes() == b"the previous preview"
    assert [p.name for p in [*tmp_path.iterdir(), *pngs.iterdir()] if ".tmp" in p.name] == []


# --- refused URLs where WeasyPrint does not expect an error ---------------------------------


def test_a_refused_color_profile_is_E0702_at_its_line(tmp_path: Path) -> None:
    css = "/* the design */\n.trim { color: black }\n@color-profile --x{src:url(file:///etc/passwd)}\n"
    output_text = refused(tmp_path, hostile(tmp_path, {"cards.css": css}))
    assert "templates/cards.css:3:28: error[E0702]: a template asks for 'file:///etc/passwd'" in (
        output_text
    )
    assert "cannot write" not in output_text


# --- images: measured before anything decodes them ------------------------------------------

HUGE = 13000  # 169 million pixels; the PNG is about 20 KB


def test_image_size_is_read_from_the_header_alone() -> None:
    # The header and the start of the pixels, which are cut off: no decoder could use them.
    header_only = png_header_of(HUGE, HUGE)[:33] + struct.pack(">I", 9000) + b"IDAT" + bytes(9)
    assert pdf.too_many_pixels(header_only)
    assert not pdf.too_many_pixels(png_header_of(600, 800))
    assert not pdf.too_many_pixels(b"@font-face { }")


@pytest.mark.parametrize("way", ["back image", "data URL"])
def test_an_image_of_too_many_pixels_is_E0704_and_no_warning_leaks(
    tmp_path: Path, way: str
) -> None:
    png = png_header_of(HUGE, HUGE)
    assert len(png) < 64 * 1024
    pack = hostile(tmp_path, {})
    if way == "back image":
        (pack / "templates" / "back.png").write_bytes(png)
    else:
        image = f'<img src="data:image/png;base64,{b64encode(png).decode()}">'
        (pack / "templates" / "card.html").write_text(image)
    # In a process of its own, so that what reaches its stderr can be seen.
    done = refused_in_a_process(tmp_path, pack, "--backs=duplex")
    assert "error[E0704]" in done.stdout and "over 40 million pixels: refused" in done.stdout
    if way == "back image":
        assert "templates/back.png:1:1: error[E0704]" in done.stdout
    assert done.stderr == ""


# --- a damaged face cache is a miss, never an error -----------------------------------------

Index = dict[str, Any]


def _faces(index: Index) -> dict[str, Any]:
    faces = index["data"]["faces"]
    assert isinstance(faces, dict)
    return faces


def _chunks(index: Index) -> dict[str, Any]:
    chunks = index["data"]["chunks"]
    assert isinstance(chunks, dict)
    return chunks


def _each_face(change: Callable[[list[Any]], None]) -> Callable[[Index], None]:
    def mutate(index: Index) -> None:
        for entry in _faces(index).values():
            change(entry)

    return mutate


def _each_chunk(change: Callable[[dict[str, Any]], None]) -> Callable[[Index], None]:
    def mutate(index: Index) -> None:
        for info in _chunks(index).values():
            change(info)

    return mutate


def _set(key: str | int, value: Any) -> Callable[[Any], None]:
    def change(node: Any) -> None:
        node[key] = value

    return change


def _pages_past_the_pdf(index: Index) -> None:
    """The index says each chunk has many more pages, and the faces are on the last of them."""
    _each_chunk(_set("pages", 50))(index)
    _each_face(_set(1, 40))(index)


def _files(value: Any) -> Callable[[dict[str, Any]], None]:
    return _set("files", value)


MUTATIONS: dict[str, Callable[[Index], None]] = {
    "data a list": lambda index: index.__setitem__("data", []),
    "faces a list": lambda index: index["data"].__setitem__("faces", [1, 2]),
    "chunks a string": lambda index: index["data"].__setitem__("chunks", "x"),
    "no chunks": lambda index: index["data"].pop("chunks"),
    "entry a dict": lambda index: _faces(index).update({key: {} for key in _faces(index)}),
    "entry short": _each_face(lambda entry: entry.pop()),
    "page a string": _each_face(_set(1, "0")),
    "page negative": _each_face(_set(1, -1)),
    "page a float": _each_face(_set(1, 0.0)),
    "page huge": _each_face(_set(1, 10**30)),
    "clipped a string": _each_face(_set(2, "no")),
    "used a string": _each_face(_set(3, "yesterday")),
    "used of 400 digits": _each_face(_set(3, 10**400)),
    "used not a number": _each_face(_set(3, float("nan"))),
    "chunk not a digest": _each_face(_set(0, "../../etc/passwd")),
    "chunk unknown": _each_face(_set(0, "0" * 64)),
    "pages past the PDF": _pages_past_the_pdf,
    "pages a string": _each_chunk(_set("pages", "2")),
    "pages negative": _each_chunk(_set("pages", -3)),
    "no pages": _each_chunk(lambda info: info.pop("pages")),
    "files a list": _each_chunk(_files([])),
    "file a string": _each_chunk(_files({"/a": "b"})),
    "file of numbers": _each_chunk(_files({"/a": [1, 2]})),
    "file with a NUL": _each_chunk(_files({"/a\x00b": ["/a", "0" * 64]})),
    "file empty": _each_chunk(_files({"": ["", ""]})),
    "file outside": _each_chunk(_files({"/etc/passwd": ["/etc/passwd", "0" * 64]})),
}


@pytest.fixture(scope="module")
def cached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    """A one-card pack with a back image, and the face cache one print of it leaves (by name,
    "first.pdf" the print)."""
    scratch = tmp_path_factory.mktemp("cached")
    pack = hostile(scratch, {})
    (pack / "templates" / "back.png").write_bytes(png_header_of(60, 80))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(scratch / "cache"))
        code, text = run("print", str(pack), "-o", str(scratch / "first.pdf"), "--backs=duplex")
        assert code == 0, text
        (folder,) = cache.cache_dir().glob("print-*")
        files = {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}
    yield pack, {**files, "first.pdf": (scratch / "first.pdf").read_bytes()}


def _text(data: bytes) -> list[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        return [str(page.get_textpage().get_text_range()) for page in document]
    finally:
        document.close()


@pytest.mark.parametrize("mutation", MUTATIONS, ids=list(MUTATIONS))
def test_a_damaged_face_cache_is_laid_out_again(
    tmp_path: Path, cached: tuple[Path, dict[str, bytes]], mutation: str
) -> None:
    pack, files = cached
    name = hashlib.sha256(str(pack.resolve()).encode()).hexdigest()[:24]  # as FaceCache names it
    folder = cache.cache_dir() / f"print-{name}"
    folder.mkdir(parents=True)
    for file, data in files.items():  # the cache as the first print left it...
        if file != "first.pdf":
            (folder / file).write_bytes(data)
    index = json.loads(files["index.json"])
    MUTATIONS[mutation](index)  # ...damaged one way
    (folder / "index.json").write_text(json.dumps(index))
    code, text = run("print", str(pack), "-o", str(tmp_path / "out.pdf"), "--backs=duplex")
    assert code == 0, text
    assert _text((tmp_path / "out.pdf").read_bytes()) == _text(files["first.pdf"])


# --- chunks: bounded, so that a worker's memory cap fits every pack -------------------------


def test_chunks_hold_at_most_a_hundred_faces() -> None:
    from compiler.printing.layout import Face

    faces = [Face(f"<p>{n}</p>", "item", str(n)) for n in range(1000)]
    same = [Face("<p>the same</p>", "item", str(n)) for n in range(1000)]  # never a cut there
    for each in (faces, same):
        parts = render.chunks_of(each)
        assert [face for part in parts for face in part] == each
        assert max(len(part) for part in parts) <= render.MAX_CHUNK_FACES


def test_one_core_lays_a_large_pack_out_in_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render, "PARALLEL_FACES", 4)
    monkeypatch.setattr(render, "CHUNK_FACES", 2)
    monkeypatch.setattr(render, "MAX_CHUNK_FACES", 3)
    monkeypatch.setattr(render, "_cores", lambda: 1)
    documents: list[str] = []
    real = render.document

    def counted(*args: Any) -> str:
        documents.append(real(*args))
        return documents[-1]

    monkeypatch.setattr(render, "document", counted)
    cards = "".join(f'item "Cup {n}" {{\n    type food\n}}\n' for n in range(8))
    code, text = run("print", str(hostile(tmp_path, {}, cards)), "-o", str(tmp_path / "o.pdf"))
    assert code == 0, text
    assert len(documents) >= 3


# --- review fixes: where a refusal points, what a failed print leaves, the workers --------


def test_a_refused_url_is_pointed_at_only_in_a_template_the_sandbox_reads(
    tmp_path: Path,
) -> None:
    # `a-notes.html` is no template name: no face is made from it, though it names the URL.
    templates = {
        "card.html": "<p>{{ card.title }}</p>\n<img src='file:///etc/passwd'>",
        "a-notes.html": "<img src='file:///etc/passwd'>",
    }
    output_text = refused(tmp_path, hostile(tmp_path, templates))
    assert "templates/card.html:2:11: error[E0702]" in output_text, output_text


_START = multiprocessing.process.BaseProcess.start


def _cannot_fork(after: int = 0) -> Callable[..., None]:
    """A Process.start that fails as fork(2) does when the user has too many processes, after
    `after` starts that work."""
    started = [0]

    def start(process: multiprocessing.process.BaseProcess) -> None:
        started[0] += 1
        if started[0] > after:
            raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        _START(process)

    return start


@pytest.mark.parametrize(
    ("doing", "args"),
    [("laying out the cards", ["--no-cache"]), ("making the sheets", [])],
    ids=["layout", "sheets"],
)
def test_a_worker_the_system_cannot_start_is_E0708(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doing: str, args: list[str]
) -> None:
    if doing == "making the sheets":
        monkeypatch.setattr(render, "can_fork", lambda: False)  # the layout runs here
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", _cannot_fork())
    output_text = refused(tmp_path, hostile(tmp_path, {}), *args)
    assert f"pack:1:1: error[E0708]: cannot start a process for {doing}: Resource temporarily" in (
        output_text
    )
    assert "cannot write" not in output_text


@needs_proc
def test_the_workers_that_start_do_the_work_and_nothing_is_left_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", _cannot_fork())
    with pytest.raises(workers.WorkerFailed) as failed:
        workers.run_in_workers(lambda task: task, 3, 2, time.monotonic() + 30, 256, 1024)
    assert failed.value.reason == "start" and len(os.listdir("/proc/self/fd")) == before
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", _cannot_fork(after=1))
    assert workers.run_in_workers(
        lambda task: task * 2, 3, 2, time.monotonic() + 30, 256, 1024
    ) == [
        0,
        2,
        4,
    ]


class _TwoArguments(Exception):
    """An error whose `__init__` takes other arguments than its `args`: pickle.loads fails."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"{left} {right}")


def test_an_error_that_does_not_unpickle_reaches_the_parent_as_its_traceback() -> None:
    def work(task: int) -> None:
        raise _TwoArguments("a bug", "in a worker")

    with pytest.raises(RuntimeError, match="_TwoArguments: a bug in a worker"):
        workers.run_in_workers(work, 1, 1, time.monotonic() + 30, 256, 1024)


def _after_memory(error: Exception) -> Callable[[int], None]:
    def work(task: int) -> None:
        held = bytearray(48 * 2**20)  # three quarters of the allowance below
        error.add_note(f"after {len(held)} bytes")
        raise error

    return work


@needs_proc
@pytest.mark.parametrize(
    ("error", "memory"),
    [
        (ValueError("a bug"), False),
        (KeyError("a bug"), False),
        (RuntimeError("std::bad_alloc"), True),
        (OSError(errno.ENOMEM, os.strerror(errno.ENOMEM)), True),
        (pikepdf.PdfError("unable to find /Root dictionary"), True),
        (SystemError("error return without exception set"), True),
    ],
    ids=["bug", "key", "bad_alloc", "ENOMEM", "qpdf", "C returned NULL"],
)
def test_only_memory_errors_after_much_memory_are_out_of_memory(
    error: Exception, memory: bool
) -> None:
    work = _after_memory(error)
    expected = workers.WorkerFailed if memory else type(error)
    with pytest.raises(expected) as raised:
        workers.run_in_workers(work, 1, 1, time.monotonic() + 30, 64, 1024)
    assert not memory or raised.value.reason == "memory"  # type: ignore[attr-defined]


TWO_CARDS = SCALPEL + 'item "Bandage" {\n    type medicine\n}\n'
PREVIEWS = ("001-scalpel.png", "002-bandage.png")


def _hidden(*folders: Path) -> list[str]:
    """Temporary or set-aside files and folders a print left in these folders."""
    return [p.name for folder in folders for p in folder.iterdir() if p.name.startswith(".")]


def test_a_failed_print_makes_no_png_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*args: Any) -> bytes:
        raise MemoryError  # in the worker, after the folder used to be made

    monkeypatch.setattr(output, "impose", fails)
    pngs = tmp_path / "new" / "png"
    output_text = refused(tmp_path, hostile(tmp_path, {}), "--png", str(pngs))
    assert "error[E0705]: making the sheets needs more than" in output_text
    assert not (tmp_path / "new").exists() and _hidden(tmp_path) == []


def _failing_rename(monkeypatch: pytest.MonkeyPatch, final: Path) -> None:
    """Make renaming a file onto `final` fail, as a file system that fails may."""
    real = os.replace

    def replace(source: Any, target: Any) -> None:
        if Path(target) == final and ".tmp" in str(source):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "rename", replace)


@pytest.mark.parametrize("fails", ["002-bandage.png", "out.pdf"])
def test_a_rename_that_fails_leaves_every_old_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    pngs = tmp_path / "png"
    pngs.mkdir()
    for name in PREVIEWS:
        (pngs / name).write_bytes(b"the previous " + name.encode())
    target = tmp_path / "out.pdf"
    target.write_bytes(PREVIOUS)
    _failing_rename(monkeypatch, (pngs if fails.endswith(".png") else tmp_path) / fails)
    pack = hostile(tmp_path, {}, TWO_CARDS)
    code, text = run("print", str(pack), "-o", str(target), "--png", str(pngs))
    assert code == 2 and f"{fails}: Input/output error" in text, text
    assert target.read_bytes() == PREVIOUS
    assert [(pngs / name).read_bytes() for name in PREVIEWS] == [
        b"the previous " + name.encode() for name in PREVIEWS
    ]
    assert _hidden(tmp_path, pngs) == []


def test_a_new_png_folder_is_taken_back_when_the_pdf_cannot_be_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.pdf"
    target.write_bytes(PREVIOUS)
    _failing_rename(monkeypatch, target)
    pngs = tmp_path / "new" / "png"
    pack = hostile(tmp_path, {}, TWO_CARDS)
    code, text = run("print", str(pack), "-o", str(target), "--png", str(pngs))
    assert code == 2 and "out.pdf: Input/output error" in text, text
    assert target.read_bytes() == PREVIOUS
    assert not (tmp_path / "new").exists() and _hidden(tmp_path) == []


def test_sizes_weasyprint_cannot_compute_are_E0701(tmp_path: Path) -> None:
    # A font of 1e30px reaches Pango as no size at all; drawing its text then divides by zero.
    css = ".card { font-size: 1e30px; width: 1e30mm }\n@page { size: 1mm 1mm; margin: 0 }"
    output = refused(tmp_path, hostile(tmp_path, {"cards.css": css}))
    assert "templates:1:1: error[E0701]: laying out the cards failed on sizes" in output
    assert "ZeroDivisionError" in output


def test_workers_killed_at_the_end_leave_no_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child is killed, never cleans up: what it made in its temporary folder goes with the
    run's folder (WeasyPrint's fonts folder of a document was left in /tmp by every print)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = workers.run_in_workers(
        lambda task: tempfile.mkdtemp(prefix="kept-"), 3, 2, time.monotonic() + 30, 512, 4096
    )
    assert len(made) == 3 and all(str(tmp_path) in folder for folder in made)
    assert list(tmp_path.iterdir()) == []


def test_a_print_of_a_million_copies_is_E0709_before_any_layout(tmp_path: Path) -> None:
    """A ruleset may allow a million copies: the print refuses it at once, at that card, and
    writes nothing (it ran past two minutes and a gigabyte before)."""
    from tests.helpers import house_rules_pack

    rules = "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\n"
    rules += "slots:\n  copies: {integer: [1, 1000000]}\n"
    cards = 'item "Scrap" {\n    type food\n}\n\nitem "Pebble" {\n    type food\n'
    cards += "    copies 1000000\n}\n"
    pack = house_rules_pack(tmp_path / "pack", "house", rules, cards)
    target = tmp_path / "out.pdf"
    started = time.monotonic()
    code, output = run("print", str(pack), "-o", str(target))
    assert code == 1, output
    assert "cards.card:5:1: error[E0709]: the print would lay out 1,000,001 cards" in output
    assert "(1,000,000 of this one)" in output and not target.exists()
    assert time.monotonic() - started < 60


def _a_gone_process() -> int:
    """The number of a process that is not running."""
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except OSError:
            pass
        pid -= 1


def test_a_later_print_removes_what_a_killed_one_left_half_written(tmp_path: Path) -> None:
    # SIGKILL during the renames left up to 74 hidden .NAME.TOKEN.tmp files that nothing ever
    # removed. A print's temporary names carry its process number: a later print removes
    # those of processes gone, and leaves a running print's and any set-aside .old file.
    gone, alive = _a_gone_process(), os.getpid()
    pngs = tmp_path / "png"
    pngs.mkdir()
    left = [
        tmp_path / f".out.pdf.{gone}-0123456789ab.tmp",
        pngs / f".page-1.png.{gone}-0123456789ab.tmp",
    ]
    kept = [
        tmp_path / f".out.pdf.{alive}-0123456789ab.tmp",
        tmp_path / f".out.pdf.{gone}-0123456789ab.old",
    ]
    for path in [*left, *kept]:
        path.write_bytes(b"half")
    abandoned_folder = tmp_path / f".png2.{gone}-0123456789ab.tmp"
    abandoned_folder.mkdir()
    (abandoned_folder / "page-1.png").write_bytes(b"half")
    out = tmp_path / "out.pdf"
    specimens = ROOT / "tests" / "specimens" / "coma-ward"
    code, said = run("print", str(specimens), "-o", str(out), "--png", str(pngs))
    assert code == 0, said
    assert [path.exists() for path in left] == [False, False]
    assert [path.exists() for path in kept] == [True, True]
    assert not abandoned_folder.exists()


def test_two_prints_racing_into_one_new_folder_is_no_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The second of two prints into the same new --png folder stopped with "Usage: ... Error:
    # cannot write race/png: Directory not empty" and exit 2, as if mistyped.
    pngs = tmp_path / "race" / "png"
    real = output._put_in_place

    def another_print_got_there_first(renames: Any, token: str) -> None:
        pngs.mkdir(parents=True, exist_ok=True)
        (pngs / "page-1.png").write_bytes(b"the other print's")
        real(renames, token)

    monkeypatch.setattr(output, "_put_in_place", another_print_got_there_first)
    specimens = ROOT / "tests" / "specimens" / "coma-ward"
    code, said = run("print", str(specimens), "--png", str(pngs), "-o", str(tmp_path / "o.pdf"))
    assert code == 1, said
    assert "was made by something else while this print ran" in said and "Usage" not in said
    assert (pngs / "page-1.png").read_bytes() == b"the other print's"
    assert not (tmp_path / "o.pdf").exists()


def test_only_given_twice_is_refused_not_cut_to_the_last(tmp_path: Path) -> None:
    # `print . --only A --only B --only C` printed one card: click kept the last --only alone.
    specimens = ROOT / "tests" / "specimens" / "coma-ward"
    out = tmp_path / "o.pdf"
    code, said = run("print", str(specimens), "-o", str(out), "--only", "item", "--only", "room")
    assert code == 2 and "--only is given 'item', 'room'" in said, said
    assert not out.exists()
