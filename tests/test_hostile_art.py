"""Hostile per-card art and `print --calibrate` options (issue 29): art is refused at the card's
`art` line (or drawn without its hostile part), an option is a one-line usage error; none is a
traceback, reads outside the pack, reaches the network, hangs or takes gigabytes.

The pack of hostile art is checked in a process held to 2 GB of address space: the SVG whose
elements nested 20,000 deep stopped `check` and `print` with a RecursionError (exit 3), four
million empty elements took 16 s and 765 MB, and pictures held inside SVG art as `data:` URLs
(a 60000 × 60000 PNG, an SVG of ten million `<use>` copies) checked clean, then failed print
after 33 s blaming the templates.
"""

from __future__ import annotations

import base64
import builtins
import io
import os
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from compiler.printing.art import art_file
from compiler.printing.svgcheck import svg_problem
from tests.conftest import ROOT, TESTS
from tests.helpers import make_pack, run

OWN = TESTS / "data" / "art" / "images" / "own.png"
SVG = 'xmlns="http://www.w3.org/2000/svg"'
NOWHERE = "http://127.0.0.1:9"
"""A web address no test may reach (nothing listens there; refused before it is asked)."""


def svg(body: str, *, head: str = "", attributes: str = "") -> str:
    """An SVG document around `body`."""
    return f"{head}<svg {SVG} {attributes}>{body}</svg>"


def data_url(kind: str, data: bytes | str) -> str:
    """A base64 `data:` URL of these bytes."""
    raw = data.encode() if isinstance(data, str) else data
    return f"data:{kind};base64,{base64.b64encode(raw).decode()}"


def held(kind: str, data: bytes | str) -> str:
    """An SVG element that draws a picture the SVG holds as a `data:` URL."""
    return f'<image width="9" height="9" href="{data_url(kind, data)}"/>'


def png_of(width: int, height: int, pixels: bytes = b"") -> bytes:
    """A PNG whose header says this size and whose IDAT holds `pixels` compressed (none: the
    header alone is read)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = chunk(b"IDAT", zlib.compress(pixels)) if pixels else b""
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + idat + chunk(b"IEND", b"")


LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lol">'
    + "".join(f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(9))
    + f"]><svg {SVG}><text>&j;</text></svg>"
)
"""A billion laughs: ten entities of ten of the one before."""

USE_BOMB = svg(
    '<defs><rect id="a0" width="1" height="1"/>'
    + "".join(f'<g id="a{n}">' + f'<use href="#a{n - 1}"/>' * 10 + "</g>" for n in range(1, 8))
    + '</defs><use href="#a7"/>'
)
"""Ten million rectangles in a few kilobytes."""

FILE_IMAGE = '<image href="file:///etc/passwd" width="9" height="9"/>'
CIRCLE = '<circle r="4"/>'
DEEP = svg("<g>" * 20_000 + "</g>" * 20_000)
CHAIN = svg(
    "<defs>"
    + "".join(f'<g id="c{n}"><use href="#c{n + 1}"/></g>' for n in range(600))
    + '<rect id="c600" width="1" height="1"/></defs><use href="#c0"/>'
)
"""Each group copies the next: a chain longer than Python's recursion walks."""

SVG_ART: dict[str, tuple[str, str | None]] = {
    "laughs.svg": (LAUGHS, "complex"),
    "external-dtd.svg": (
        svg("", head=f'<!DOCTYPE svg SYSTEM "{NOWHERE}/svg.dtd">'),
        "complex",
    ),
    "huge.svg": (
        svg(
            '<rect width="100000000" height="100000000" fill="teal"/>',
            attributes='width="100000000" height="100000000"',
        ),
        None,
    ),
    "file.svg": (svg(FILE_IMAGE), "reaches"),
    "web.svg": (svg(f'<image href="{NOWHERE}/a.png" width="9" height="9"/>'), "reaches"),
    "up.svg": (svg('<image href="../../outside.png" width="9" height="9"/>'), "reaches"),
    "script.svg": (svg('<script>alert(1)</script><rect width="5" height="5"/>'), None),
    "xinclude.svg": (
        svg(
            '<text><xi:include href="/etc/passwd" parse="text"/></text>',
            attributes='xmlns:xi="http://www.w3.org/2001/XInclude"',
        ),
        "reaches",
    ),
    "itself.svg": (svg('<image href="itself.svg" width="9" height="9"/>'), "reaches"),
    "itself-part.svg": (svg('<use href="itself-part.svg#r"/><rect id="r" width="3"/>'), "reaches"),
    "stylesheet.svg": (
        svg("<rect/>", head=f'<?xml-stylesheet href="{NOWHERE}/x.css"?>'),
        "reaches",
    ),
    "import.svg": (svg(f"<style>@import url({NOWHERE}/x.css);</style><rect/>"), "reaches"),
    "style-url.svg": (svg(f"<style>rect {{ fill: url({NOWHERE}/p.svg#x) }}</style>"), "reaches"),
    "escaped-url.svg": (svg(f"<style>rect {{ fill: u\\72l({NOWHERE}/p.svg) }}</style>"), "reaches"),
    "fill-url.svg": (svg(f'<rect width="5" height="5" fill="url({NOWHERE}/p.svg#x)"/>'), "reaches"),
    "filter-url.svg": (svg('<rect filter="url(file:///etc/passwd#x)"/>'), "reaches"),
    "second-url.svg": (
        svg(f'<rect style="fill: url(#a); stroke: url({NOWHERE}/p.svg#b)"/>'),
        "reaches",
    ),
    "base.svg": (svg(f'<image xml:base="{NOWHERE}/" href="#a" width="9" height="9"/>'), "reaches"),
    "use-bomb.svg": (USE_BOMB, "complex"),
    "deep.svg": (DEEP, "deep"),
    "chain.svg": (CHAIN, "complex"),
    "held-png-bomb.svg": (svg(held("image/png", png_of(60000, 60000))), "pixels"),
    # Each 7000 × 7000 picture is allowed, but not six of them at once.
    "held-pictures.svg": (
        svg("".join(held("image/png", png_of(7000, 7000 + n)) for n in range(6))),
        "pixels",
    ),
    "held-file.svg": (svg(held("image/svg+xml", svg(FILE_IMAGE))), "reaches"),
    "held-use-bomb.svg": (svg(held("image/svg+xml", USE_BOMB)), "complex"),
    "held-laughs.svg": (svg(held("image/svg+xml", LAUGHS)), "complex"),
    "held-deep.svg": (svg(held("image/svg+xml", DEEP)), "deep"),
    "held-fine.svg": (
        svg(held("image/png", OWN.read_bytes()) + held("image/svg+xml", svg(CIRCLE))),
        None,
    ),
}
"""SVG art by name: its text and why print refuses it (None: it is drawn)."""


def nested(levels: int) -> str:
    """An SVG holding an SVG holding an SVG... `levels` deep in all."""
    text = svg('<rect width="1" height="1"/>')
    for _ in range(levels - 1):
        text = svg(held("image/svg+xml", text))
    return text


def tiny_png(n: int) -> bytes:
    """A one-pixel PNG, the nth of as many different ones."""
    buffer = io.BytesIO()
    Image.new("L", (1, 1), n % 256).save(buffer, format="PNG", pnginfo=_text_of(n))
    return buffer.getvalue()


def _text_of(n: int) -> PngInfo:
    info = PngInfo()
    info.add_text("n", str(n))
    return info


SVG_ART["nested-3.svg"] = (nested(3), None)
# Each picture an SVG holds is opened to judge it: 100,000 of them took check 22 s.
SVG_ART["many-pictures.svg"] = (
    svg("".join(held("image/png", tiny_png(n)) for n in range(1001))),
    "complex",
)
SVG_ART["nested-4.svg"] = (nested(4), "deep")


def _frames(path: Path, count: int) -> None:
    frames = [Image.new("RGB", (40, 40), (n % 256, 0, 0)) for n in range(count)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=10, loop=0)


def _huge_screen(path: Path) -> None:
    Image.new("P", (1, 1)).save(path, format="GIF")
    data = bytearray(path.read_bytes())
    data[6:10] = struct.pack("<HH", 65535, 65535)  # the logical screen: 4.3 billion pixels
    path.write_bytes(bytes(data))


def _cut_in_idat(path: Path) -> None:
    Image.effect_noise((300, 300), 60).convert("RGB").save(path)
    data = path.read_bytes()
    idat = data.index(b"IDAT")
    assert idat < len(data) // 2 < len(data) - 12  # the cut falls inside the image data
    path.write_bytes(data[: len(data) // 2])


def _jpeg(path: Path) -> None:
    with Image.open(OWN) as own:
        own.convert("RGB").save(path, format="JPEG")


RASTER_ART: dict[str, tuple[Callable[[Path], object], str | None]] = {
    "frames.gif": (lambda path: _frames(path, 400), None),
    "frames.png": (lambda path: _frames(path, 100), None),
    "frames.webp": (lambda path: _frames(path, 100), None),
    "screen.gif": (_huge_screen, "pixels"),
    "cut.png": (_cut_in_idat, "unreadable"),
    "bomb.png": (lambda path: path.write_bytes(png_of(60000, 60000, b"\0" * 4096)), "pixels"),
    "text.png": (lambda path: path.write_text("a text file\n"), "unreadable"),
    "svg.png": (lambda path: path.write_text(svg("<rect/>")), "unreadable"),
    "png.svg": (lambda path: shutil.copy(OWN, path), "unreadable"),
    "jpeg.png": (_jpeg, "disguised"),
}
"""Pictures by name: how to make one and why print refuses it (None: it is drawn)."""


def _link_out(root: Path, name: str, target: str | Path) -> None:
    (root / "images" / name).symlink_to(target)


def _loop(root: Path) -> None:
    _link_out(root, "loop.png", "pool.png")
    _link_out(root, "pool.png", "loop.png")


LINKED_ART: dict[str, tuple[Callable[[Path], object], str]] = {
    "images/absolute-link.png": (
        lambda root: _link_out(root, "absolute-link.png", root.parent / "outside.png"),
        "outside",
    ),
    "images/relative-link.png": (
        lambda root: _link_out(root, "relative-link.png", "../../outside.png"),
        "outside",
    ),
    "images/folder-link/outside.png": (
        lambda root: _link_out(root, "folder-link", root.parent),
        "outside",
    ),
    "images/loop.png": (_loop, "missing"),
    "images/zero.png": (lambda root: _link_out(root, "zero.png", "/dev/zero"), "outside"),
    "images/fifo.png": (lambda root: os.mkfifo(root / "images" / "fifo.png"), "missing"),
    "images/folder.png": (lambda root: (root / "images" / "folder.png").mkdir(), "missing"),
    "images": (lambda root: None, "missing"),
    "images/../../outside.png": (lambda root: None, "outside"),
    "../outside.png": (lambda root: None, "outside"),
    "/dev/zero": (lambda root: None, "outside"),
    "file:///etc/passwd": (lambda root: None, "outside"),
    "images/" + "x" * 4000 + ".png": (lambda root: None, "missing"),
}
"""Art names that lead out of the pack or to no file: how to set each up, and why refused."""

ALL_NAMES = [*(f"images/{n}" for n in SVG_ART), *(f"images/{n}" for n in RASTER_ART), *LINKED_ART]
"""Every art name of the hostile pack, card by card."""

NAMING = ("outside", "link", "missing", "type")
"""Reasons that are E0710 (the name's fault); the others are E0711."""


def _card(n: int, name: str) -> str:
    return f'item "Thing {n}" {{\n    type clothing\n    art "{name}"\n}}\n'


def _pack_of(folder: Path, names: list[str]) -> Path:
    """A pack whose card n names the nth art file (its `art` line is 4n + 3)."""
    pack = make_pack(folder, cards="".join(_card(n, name) for n, name in enumerate(names)))
    (pack / "images").mkdir(exist_ok=True)
    return pack


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str | None]]:
    """A pack with a card for each hostile art file or name, and why each is refused."""
    folder = tmp_path_factory.mktemp("hostile")
    shutil.copy(OWN, folder / "outside.png")
    reasons: dict[str, str | None] = {}
    pack = _pack_of(folder / "pack", ALL_NAMES)
    for name, (text, reason) in SVG_ART.items():
        (pack / "images" / name).write_text(text)
        reasons[f"images/{name}"] = reason
    for name, (make, reason) in RASTER_ART.items():
        make(pack / "images" / name)
        reasons[f"images/{name}"] = reason
    for written, (set_up, reason) in LINKED_ART.items():
        set_up(pack)
        reasons[written] = reason
    return pack, reasons


@pytest.mark.parametrize("written", ALL_NAMES, ids=lambda name: name[:40])
def test_each_art_file_gets_its_verdict(
    written: str, hostile: tuple[Path, dict[str, str | None]]
) -> None:
    pack, reasons = hostile
    assert art_file(pack, written)[1] == reasons[written]


def _expected(reasons: dict[str, str | None]) -> dict[int, str]:
    """The line of each refused card's art, and its code."""
    return {
        4 * n + 3: "E0710" if reason in NAMING else "E0711"
        for n, reason in enumerate(reasons.values())
        if reason is not None
    }


def _reported(output: str) -> dict[int, str]:
    found = {}
    for line in output.splitlines():
        if "cards.card:" in line and ": error[E07" in line:
            place, _, rest = line.partition(": error[")
            found[int(place.split("cards.card:")[1].split(":")[0])] = rest[:5]
    return found


CAPPED = """
import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (2_000_000_000, 2_000_000_000))
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=60)
print(done.returncode)
print(done.stdout + done.stderr)
"""
"""Runs a command held to 2 GB of address space; says its exit code and what it printed."""


def test_check_refuses_each_at_its_art_line_in_bounded_memory(
    hostile: tuple[Path, dict[str, str | None]],
) -> None:
    pack, reasons = hostile
    command = [sys.executable, "-m", "compiler", "check", "--no-cache", str(pack)]
    done = subprocess.run(
        [sys.executable, "-c", CAPPED, *command],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=90,
    )
    code, output = done.stdout.split("\n", 1)
    assert code == "1", output
    assert "Traceback" not in output and "internal error" not in output, output
    assert _reported(output) == _expected(reasons), output


Spy = Callable[[], list[str]]


@pytest.fixture
def opened_outside(
    monkeypatch: pytest.MonkeyPatch, hostile: tuple[Path, dict[str, str | None]]
) -> Spy:
    """Every file opened outside the hostile pack that art may lead to (or its FIFO, whose
    opening would hang)."""
    pack, _ = hostile
    watched = {
        (pack.parent / "outside.png").resolve(),
        Path("/dev/zero"),
        Path("/etc/passwd"),
        (pack / "images" / "fifo.png").resolve(),
    }
    seen: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | os.PathLike) and Path(file).resolve() in watched:
            seen.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    return lambda: seen


def test_print_refuses_the_same_art_at_the_same_lines_and_opens_nothing_outside(
    hostile: tuple[Path, dict[str, str | None]], opened_outside: Spy, tmp_path: Path
) -> None:
    pack, reasons = hostile
    out = tmp_path / "out.pdf"
    code, output = run("print", str(pack), "-o", str(out), "--no-cache")
    assert code == 1, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert _reported(output) == _expected(reasons)
    assert "a template asks for" not in output  # the card is blamed, not the templates
    assert not out.exists()
    assert opened_outside() == []


def test_a_wide_svg_is_refused_without_reading_all_of_it() -> None:
    # Four million empty elements (16 MB) took 16 s and 765 MB before the count said no.
    data = svg("<g/>" * 1_000_000).encode()
    tracemalloc.start()
    try:
        assert svg_problem(data) == "complex"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB"


def test_art_drawn_safely_prints_without_its_hostile_part(tmp_path: Path) -> None:
    # A script, a size of a hundred kilometres, animations of hundreds of frames: drawn as a
    # still picture in the art box, and no script reaches the PDF.
    safe = ["huge.svg", "script.svg", "held-fine.svg", "frames.gif", "frames.png", "frames.webp"]
    pack = _pack_of(tmp_path / "safe", [f"images/{name}" for name in safe])
    for name in safe:
        if name in SVG_ART:
            (pack / "images" / name).write_text(SVG_ART[name][0])
        else:
            RASTER_ART[name][0](pack / "images" / name)
    out = tmp_path / "safe.pdf"
    code, output = run("print", str(pack), "-o", str(out), "--no-cache")
    assert code == 0, output
    with pikepdf.open(out) as pdf:
        keys = {
            str(key) for obj in pdf.objects if isinstance(obj, pikepdf.Dictionary) for key in obj
        }
        names = {str(obj.get("/S")) for obj in pdf.objects if isinstance(obj, pikepdf.Dictionary)}
    assert not keys & {"/JS", "/JavaScript", "/OpenAction", "/AA"}, keys
    assert not names & {"/JavaScript", "/Launch", "/URI"}, names


LONG = "n" * 300
"""A file name longer than any file system takes."""

CALIBRATE_REFUSALS = {
    "zero offset unit": (["--back-offset", "0,0"], "a length needs its unit"),
    "negative past the range": (["--back-offset=-11mm,0mm"], "within ±10 mm"),
    "huge": (["--back-offset", "9" * 400 + "mm,0mm"], "within ±10 mm"),
    "exponent": (["--back-offset", "1e3mm,0mm"], "give x (right) and y (down)"),
    "not a number": (["--back-offset", "nanmm,infmm"], "give x (right) and y (down)"),
    "one part": (["--back-offset", "1mm"], "give x (right) and y (down)"),
    "three parts": (["--back-offset", "1mm,2mm,3mm"], "give x (right) and y (down)"),
    "other digits": (["--back-offset", "\u0661mm,\u0662mm"], "give x (right) and y (down)"),
    "unknown paper": (["--paper", "a3"], "'a3' is not one of 'a4', 'letter'"),
    "paper in capitals": (["--paper", "A4"], "'A4' is not one of 'a4', 'letter'"),
    "dpi zero": (["--dpi", "0"], "0 is not in the range 30<=x<=600"),
    "dpi not a number": (["--dpi", "many"], "'many' is not a valid integer range"),
    "dpi given": (["--dpi", "300"], "not --dpi"),
    "no cache given": (["--no-cache"], "not --no-cache"),
    "card size": (["--card", "0x0mm"], "not --card"),
    "negative bleed": (["--bleed=-3mm"], "not --bleed"),
    "previews": (["--png", "previews"], "not --png"),
    "tabletop": (["--tts", "decks"], "not --tts"),
}
"""`print --calibrate -o OUT.pdf` with these options: each a usage error that says this."""


@pytest.mark.parametrize("case", sorted(CALIBRATE_REFUSALS))
def test_calibrate_refuses_odd_options_in_one_line(case: str, tmp_path: Path) -> None:
    options, said = CALIBRATE_REFUSALS[case]
    out = tmp_path / "out.pdf"
    code, output = run("print", "--calibrate", "-o", str(out), *options)
    assert code == 2, output
    assert said in output and "Traceback" not in output and "internal error" not in output
    assert not out.exists()


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("missing/out.pdf", "does not exist"),
        ("folder.pdf", "is a folder; name a .pdf file"),
        ("out.txt", "the output is a PDF file"),
        (f"{LONG}.pdf", "File name too long"),
        (f"{LONG}/out.pdf", "File name too long"),
    ],
)
def test_calibrate_refuses_an_output_it_cannot_write(
    output: str, said: str, tmp_path: Path
) -> None:
    (tmp_path / "folder.pdf").mkdir()
    code, printed = run("print", "--calibrate", "-o", str(tmp_path / output))
    assert code == 2, printed
    assert said in printed and "internal error" not in printed


@pytest.mark.parametrize("option", ["-o", "--png", "--tts"])
def test_print_refuses_a_name_too_long_for_the_system(option: str, tmp_path: Path) -> None:
    # `-o`, `--png` and `--tts` of a 300-character name were exit 3 (an OSError).
    pack = TESTS / "data" / "art"
    target = tmp_path / (f"{LONG}.pdf" if option == "-o" else LONG)
    pdf = [] if option == "-o" else ["-o", str(tmp_path / "out.pdf")]
    code, output = run("print", str(pack), option, str(target), *pdf)
    assert code == 2, output
    assert "File name too long" in output and "internal error" not in output
    assert list(tmp_path.iterdir()) == []


def test_calibrate_with_a_pack_or_without_its_pdf_is_a_usage_error(tmp_path: Path) -> None:
    out = str(tmp_path / "out.pdf")
    assert run("print", "--calibrate", str(TESTS / "data" / "art"), "-o", out)[0] == 2
    assert run("print", "--calibrate")[0] == 2
    code, output = run("print", "--calibrate", "--calibrate", "-o", out)
    assert code == 0 and Path(out).exists(), output  # a flag given twice is the flag
