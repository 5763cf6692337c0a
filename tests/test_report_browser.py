"""The report in a real browser: headless Chromium loads it, every card and chart is there after
load, and a screenshot is saved. Skipped, saying why, where no Chromium can be had (`.ci/run`
installs Debian's `chromium` when it is missing)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from compiler.odds import odds_table
from runtime.odds import card_odds
from tests.conftest import ROOT, TESTS
from tests.helpers import run
from tests.test_report import compiled, read_page

SPECIMENS = TESTS / "specimens" / "coma-ward"
CONTENT = ROOT / "content" / "coma-ward"

BROWSER_SECONDS = 60
"""A run that takes longer than this is stuck; a normal one takes a second or two."""


def chromium() -> str | None:
    """The Chromium on this machine, if any."""
    for name in (os.environ.get("PILLBOX_CHROMIUM"), "chromium", "chromium-browser"):
        found = shutil.which(name) if name else None
        if found:
            return found
    return None


BROWSER = chromium()

pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium on this machine: `apt-get install chromium` (as .ci/run does)",
)


def browse(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run headless Chromium on a local file, offline, with a throwaway profile."""
    assert BROWSER is not None
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
        page.resolve().as_uri(),
    ]
    return subprocess.run(command, capture_output=True, timeout=BROWSER_SECONDS, check=False)


def _report(pack: Path, folder: Path) -> Path:
    """The pack's report, written in the folder."""
    target = folder / "report.html"
    code, output = run("report", str(pack), "-o", str(target))
    assert code == 0, output
    return target


@pytest.fixture(scope="module")
def specimens_browsed(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    """(Chromium's run, its screenshot) over the specimens' report: one run dumps the DOM and
    takes the screenshot, as a launch costs a second or two and the DOM is the same at any
    window size (the page has no script)."""
    folder = tmp_path_factory.mktemp("browser")
    shot = folder / "report.png"
    args = ("--dump-dom", f"--screenshot={shot}", "--window-size=1280,4000")
    return browse(_report(SPECIMENS, folder), folder / "profile", *args), shot


@pytest.fixture(params=[SPECIMENS, CONTENT], ids=["specimens", "coma-ward-pack"])
def dumped(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[bytes]]:
    """(the pack, Chromium's dump of its report): the specimens, and the bundled Coma Ward
    pack."""
    pack: Path = request.param
    if pack == SPECIMENS:
        return pack, request.getfixturevalue("specimens_browsed")[0]
    folder = tmp_path_factory.mktemp("browser")
    return pack, browse(_report(pack, folder), folder / "profile", "--dump-dom")


def test_chromium_shows_every_card_and_every_chart(
    dumped: tuple[Path, subprocess.CompletedProcess[bytes]],
) -> None:
    folder, done = dumped
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    dom = done.stdout.decode("utf-8")
    page = read_page(dom)
    pack = compiled(folder)
    table = odds_table(pack, [])
    assert sorted(a["data-title"] for a in page.cards) == sorted(c.title for c in pack.cards)
    expected = sum(len(card_odds(table, card)) for card in pack.cards)
    assert sum(page.charts.values()) == expected
    # The faces made it through the browser's parser whole, each in a frame of its own.
    assert len(page.frames) == len(pack.cards)
    assert all(frame["srcdoc"].count('<h1 class="title">') == 1 for frame in page.frames)
    assert "<script" not in dom


def test_chromium_takes_a_screenshot_of_the_report(
    specimens_browsed: tuple[subprocess.CompletedProcess[bytes], Path],
) -> None:
    done, shot = specimens_browsed
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 4000)
    image = pytest.importorskip("PIL.Image")
    with image.open(shot) as picture:
        colours = picture.convert("RGB").resize((320, 1000)).getcolors(maxcolors=1 << 16)
    # A page that drew: the dark header, the cards' colours, the charts'; not one blank ground.
    assert colours is None or len(colours) > 200
