"""Hostile packs against the report: cards whose odds cannot be worked out, stats of a million
values, and pack stylesheets that try to cover or blank the page.

A card whose odds cannot be worked out gets its error in the report, and the report is still
written (exit 1); values of a stat that cannot be walked are left off their chart with a
warning; nothing takes more than a couple of seconds or a gigabyte.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from base64 import b64encode
from pathlib import Path

import pytest

from compiler.printing.sizes import resolve_options
from compiler.report import analysis
from compiler.report import report as report_module
from compiler.report.faces import FaceRenderer, clean_css, clean_html, data_url_bytes
from tests.helpers import make_pack, run
from tests.test_odds_hostile import NEST, THOUSAND, big_stat_pack, compiled, room
from tests.test_print_hostile import HUGE, png_header_of
from tests.test_report import read_page
from tests.test_report_browser import BROWSER, browse

SECONDS = 10.0
"""Far more than any of these takes; a hang is far more than this."""

MEMORY = 1 << 30
"""The address space a report of a hostile pack gets in a test: a gigabyte."""


def report(pack: Path, target: Path) -> tuple[int, str, float]:
    start = time.perf_counter()
    code, output = run("report", str(pack), "-o", str(target))
    return code, output, time.perf_counter() - start


def test_a_card_past_its_work_is_reported_with_its_error_and_the_rest_is_written(
    tmp_path: Path,
) -> None:
    calm = room("  gain terror 1", "Calm")
    pack = make_pack(tmp_path / "p", rooms=room(NEST), calm=calm.replace("number 1", "number 2"))
    target = tmp_path / "report.html"
    code, output, seconds = report(pack, target)
    assert code == 1, output
    assert "rooms.card:4:39: error[E0605]" in output and "Traceback" not in output
    assert "the odds of 1 card cannot be worked out" in output
    assert seconds < SECONDS
    text = target.read_text(encoding="utf-8")
    page = read_page(text)
    cards = {card["data-title"]: card["id"] for card in page.cards}
    assert set(cards) == {"Trap", "Calm"}
    assert page.charts == {cards["Calm"]: 1}  # the trap has its error instead of a chart
    assert "error[E0605]" in text and f'<a href="#{cards["Trap"]}">' in text
    assert "No charts: the odds of this card cannot be worked out" in text


def test_bonus_dice_past_the_pool_are_an_error_on_the_card(tmp_path: Path) -> None:
    body = f"{THOUSAND}\n  check focus {{ 0..1 {{ }} 2+ {{ lose terror 1 }} }}"
    pack = make_pack(tmp_path / "p", rooms=room(body))
    target = tmp_path / "report.html"
    code, output, seconds = report(pack, target)
    assert code == 1 and "rooms.card:9:3: error[E0606]" in output, output
    assert "rolls 1004 dice" in target.read_text(encoding="utf-8")
    assert seconds < SECONDS


def test_a_stat_of_a_million_values_is_sampled_and_its_unwalkable_values_left_out(
    tmp_path: Path,
) -> None:
    pack = big_stat_pack(tmp_path / "p", 3)
    target = tmp_path / "report.html"
    code, output, seconds = report(pack, target)
    assert code == 0, output
    assert "rooms.card:4:3: warning[W0605]" in output
    assert "leaves will 43478, 86957, … 1000000 (23 values) off the chart" in output
    assert seconds < SECONDS
    text = target.read_text(encoding="utf-8")
    assert "Charted at 24 of the 1,000,001 values of will, evenly spread." in text
    assert "Not charted: will 43478, 86957, … 1000000 (23 values)" in text
    assert "warning[W0605]" in text
    assert read_page(text).charts  # the values that can be walked are charted


def test_a_report_stops_walking_past_the_work_of_a_whole_pack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of cards each taking a card's whole budget would walk for hours: the report
    walks until its own budget is spent, then shows the rest without charts."""
    monkeypatch.setattr(analysis, "MAX_PACK_WORK", 0)  # the first card spends it all
    pack = make_pack(tmp_path / "p", rooms=three_rooms())
    target = tmp_path / "report.html"
    code, output, _ = report(pack, target)
    assert code == 1, output
    assert output.count("error[E0607]") == 1 and "rooms.card:7:1: error[E0607]" in output
    assert "the report walked the odds of 1 of the 3 cards" in output
    assert "the odds of 2 cards cannot be worked out" in output
    page = read_page(target.read_text(encoding="utf-8"))
    assert len(page.cards) == 3 and len(page.charts) == 1


def three_rooms() -> str:
    return "".join(
        room("  gain terror 1", f"Room {n}").replace("number 1", f"number {n}") for n in (1, 2, 3)
    )


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def test_the_hostile_reports_stay_under_a_gigabyte(tmp_path: Path) -> None:
    packs = {
        "million": big_stat_pack(tmp_path / "million", 1_000_000),
        "thousand": make_pack(
            tmp_path / "thousand",
            rooms=room(f"{THOUSAND}\n  check focus {{ 0..1 {{ }} 2+ {{ }} }}"),
        ),
    }
    for name, pack in packs.items():
        target = tmp_path / f"{name}.html"
        done = subprocess.run(
            [sys.executable, "-m", "compiler", "report", str(pack), "-o", str(target)],
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_limited,
            check=False,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert "E0606" in done.stdout and "MemoryError" not in done.stdout + done.stderr
        assert target.exists()


# -------------------------------------------------------------- a pack's stylesheet, isolated

COVER = """\
:root { position: fixed !important; inset: 0 !important; z-index: 2147483647 !important;
        width: 100vw !important; height: 100vh !important; background: #ff00ff !important }
.trim::before { content: "Pack OK - 0 errors"; font: bold 48px sans-serif; color: green }
"""
"""Covered the whole report with one face and a fake verdict, when `:root` meant the face box."""

BLANK = ".card { :not(&) { visibility: hidden !important } }\n"
"""Blanked the whole report: the scoping never read inside a nested rule."""


def styled_pack(folder: Path, css: str) -> Path:
    pack = make_pack(folder, rooms=room("  gain terror 1"))
    (pack / "templates").mkdir()
    (pack / "templates" / "cards.css").write_text(css)
    return pack


def test_deeply_nested_stylesheets_are_cleaned_in_linear_time() -> None:
    for depth in (450, 2000, 20000):
        css = "@media all { " * depth + ".a { background: url(x); color: red }" + " }" * depth
        start = time.perf_counter()
        cleaned = clean_css(css)
        assert time.perf_counter() - start < 1.0, depth  # 450 levels took a minute
        assert "url(" not in cleaned and "color: red" in cleaned
        assert cleaned.count("{") == cleaned.count("}") == depth + 1


def test_fetches_are_dropped_however_they_are_nested_or_written() -> None:
    css = (
        '@import "x.css"; .a { .b { & .c { background: u\\72l(x); color: red } } }\n'
        ".d { src: local(a); } .e { --v: image-set('y' 1x) } .f</style><p> { color: blue }"
    )
    cleaned = clean_css(css)
    assert "@import" not in cleaned and "72l" not in cleaned and "image-set" not in cleaned
    assert "color: red" in cleaned and "color: blue" in cleaned and "<" not in cleaned


def test_a_pack_stylesheet_stays_inside_each_face_frame(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    code, output, _ = report(styled_pack(tmp_path / "p", COVER + BLANK), target)
    assert code == 0, output
    page = read_page(target.read_text(encoding="utf-8"))
    [frame] = page.frames
    assert frame["sandbox"] == "" and ":root { position: fixed" in frame["srcdoc"]
    # The page's own styles come before the face's frame and know nothing of it.
    assert "Pack OK" not in target.read_text(encoding="utf-8").split("<iframe", 1)[0]


def test_the_faces_of_a_report_are_bounded_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack(tmp_path / "p", rooms=three_rooms())
    checked = compiled(pack).checked
    renderer = FaceRenderer(checked, resolve_options(checked.print_settings, {}))
    one = len(renderer.face(checked.cards[0], 0))
    monkeypatch.setattr(report_module, "MAX_FACE_BYTES", 2 * one + one // 2)
    target = tmp_path / "report.html"
    code, output, _ = report(pack, target)
    assert code == 0, output
    assert "rooms.card:13:1: warning[W0606]" in output, output
    assert "the report shows 2 of the 3 card faces" in output
    text = target.read_text(encoding="utf-8")
    assert len(read_page(text).frames) == 2 and "Face not shown" in text


# ------------------------------------------------------------------------- in a real browser

REPORT_HEADER = (43, 37, 48)
"""The report's own header band (#2b2530, `.r-top`), across the top of the page."""


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium on this machine")
@pytest.mark.parametrize("css", [COVER, BLANK], ids=["cover", "blank"])
def test_chromium_shows_the_report_over_a_hostile_stylesheet(tmp_path: Path, css: str) -> None:
    image = pytest.importorskip("PIL.Image")
    target = tmp_path / "report.html"
    code, output, _ = report(styled_pack(tmp_path / "p", css), target)
    assert code == 0, output
    shot = tmp_path / "report.png"
    done = browse(target, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,900")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    with image.open(shot) as picture:
        pixels = picture.convert("RGB")
        # The header band is the report's, edge to edge, with its own words on it.
        for x, y in ((4, 4), (640, 6), (1275, 100)):
            assert pixels.getpixel((x, y)) == REPORT_HEADER, (x, y)
        header = pixels.crop((0, 0, 1280, 120)).getcolors(maxcolors=1 << 16)
        assert header is None or len(header) > 20  # text, not one flat colour
        # The face is drawn, in its frame only: its magenta is a card's size, not the page.
        magenta = sum(n for n, c in pixels.getcolors(maxcolors=1 << 20) or [] if c == (255, 0, 255))
        assert magenta < 0.1 * 1280 * 900


# ----------------------------------------------------------- images print refuses, left out

BOMB = b64encode(png_header_of(HUGE, HUGE)).decode()
"""A PNG of 169 million pixels in 20 KB: a browser decodes it into 676 MB."""

SMALL = "data:image/png;base64," + b64encode(png_header_of(8, 8)).decode()

BOMB_PLACES = {
    "img": ("card.html", f'<p>{{{{ card.title }}}}</p>\n<img src="data:image/png;base64,{BOMB}">'),
    "BASE64": ("card.html", f"<p>x</p>\n<img src='data:image/png;BASE64,{BOMB}'>"),
    "style": (
        "card.html",
        f"<p>x</p>\n<p style=\"background: url('data:image/png;base64,{BOMB}')\">",
    ),
    "cards.css": (
        "cards.css",
        f".a {{ color: red }}\n.trim {{ background: url(data:image/png;base64,{BOMB}) }}",
    ),
}


@pytest.mark.parametrize("place", BOMB_PLACES, ids=list(BOMB_PLACES))
def test_an_image_print_refuses_is_left_out_of_the_face_with_E0704(
    tmp_path: Path, place: str
) -> None:
    name, text = BOMB_PLACES[place]
    pack = make_pack(tmp_path / "p", rooms=room("  gain terror 1"))
    (pack / "templates").mkdir()
    (pack / "templates" / name).write_text(text)
    if name != "card.html":
        (pack / "templates" / "card.html").write_text(f'<img src="{SMALL}">')
    target = tmp_path / "report.html"
    code, output, _ = report(pack, target)
    assert code == 1, output
    column = text.split("\n")[1].index("data:") + 1
    assert f"templates/{name}:2:{column}: error[E0704]: a template asks for 'data:image/png;" in (
        output
    )
    assert "over 40 million pixels: refused" in output and "Traceback" not in output
    page = target.read_text(encoding="utf-8")
    assert BOMB not in page and "40 million pixels" in page
    assert (SMALL in page) == (name != "card.html")  # an image print would draw stays


def test_the_report_reads_a_data_url_as_a_browser_does() -> None:
    assert data_url_bytes("data:image/png;BASE64,aGVsbG8") == b"hello"  # urllib: text
    assert data_url_bytes(" data:image/png; base64 ,aGVs\nbG8=#x ") == b"hello"
    assert data_url_bytes("data:,a%20b") == b"a b"
    assert data_url_bytes("data:image/png;base64,a") is None
    assert data_url_bytes("data:image/png") is None
    assert clean_html(f'<img src="data:image/png;base64,{BOMB}"><b>x</b>') == "<b>x</b>"


def test_data_urls_in_a_stylesheet_are_measured_in_linear_time() -> None:
    for unclosed in ("url(data:", "url('data:", 'url("data:', "url(   "):
        css = ".a { background: " + unclosed * 20_000 + " }"
        start = time.perf_counter()
        clean_css(css)
        assert time.perf_counter() - start < 1.0, unclosed


# ----------------------------------------------------------- a warning's reason, not parsed


def test_a_title_holding_the_words_of_a_failure_keeps_its_warning_whole(tmp_path: Path) -> None:
    # The reason was cut out of E0605's message at its first " cannot be worked out: ".
    pack = big_stat_pack(tmp_path / "p", 3)
    title = "Will cannot be worked out: twice"
    rooms = pack / "rooms.card"
    rooms.write_text(rooms.read_text().replace('"Will"', f'"{title}"'))
    code, output, _ = report(pack, tmp_path / "report.html")
    assert code == 0, output
    [warning] = [line for line in output.splitlines() if "warning[W0605]" in line]
    assert f'off the chart of room "{title}" (“when revealed”): ' in warning, warning
    assert warning.count("cannot be worked out") == 1 and "rolls" in warning
