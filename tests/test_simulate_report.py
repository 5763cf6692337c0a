"""`pillbox simulate --report`: the page in real headless Chromium (every chart there, not one
console message), and a page that is written whole or not at all. The browser tests are skipped,
saying why, where no Chromium can be had, as the report's are."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.simulate import command
from compiler.simulate.command import SimulateRequest
from compiler.simulate.page import charts
from tests.helpers import compiled, run
from tests.test_report_browser import BROWSER, browse
from tests.test_simulate import ITEMS_ONLY, PACK

needs_chromium = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium on this machine: `apt-get install chromium` (as .ci/run does)",
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    """A sweep's page and its figures, from one run of the command on the compiled pack."""
    pack: CompiledPack = compiled(ITEMS_ONLY)  # quick to compile and to play
    folder = tmp_path_factory.mktemp("simulate-page")
    target = folder / "simulation.html"
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "load_compiled", lambda *_args, **_kw: pack)
        request = SimulateRequest(30, 6, players=3, workers=1, as_json=True, report=target)
        code = command.simulate(ITEMS_ONLY, None, request, lines.append)
    assert code == 0, lines
    return target, json.loads(lines[0])


@needs_chromium
def test_chromium_shows_every_chart_without_a_console_message(
    page: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    target, summary = page
    done = browse(target, tmp_path / "profile", "--dump-dom", "--enable-logging=stderr", "--v=0")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    dom = done.stdout.decode("utf-8")
    expected = charts(summary)
    shown = re.findall(r'<figure class="s-chart" data-kind="(\w+)">', dom)
    assert shown == [chart.kind for chart in expected] and len(shown) >= 6
    assert dom.count("<svg") == len(expected)
    assert dom.count("<rect") > 20
    cards = summary["cards"]
    assert isinstance(cards, dict)
    assert dom.count("<tr><td>") >= len(cards)
    assert "<script" not in dom
    console = [
        line for line in done.stderr.decode(errors="replace").splitlines() if "CONSOLE" in line
    ]
    assert console == []


def test_the_page_is_one_file_with_nothing_fetched(page: tuple[Path, dict[str, object]]) -> None:
    text = page[0].read_text(encoding="utf-8")
    assert "default-src 'none'" in text
    assert not re.search(r'(src|href)="(?!data:)', text)
    assert list(page[0].parent.iterdir()) == [page[0]]  # no temporary file left beside it


def test_a_report_that_cannot_be_written_is_refused_before_any_game(tmp_path: Path) -> None:
    code, output = run(
        "simulate", str(PACK), "--games", "1", "--report", str(tmp_path / "no" / "page.html")
    )
    assert code == 2 and "does not exist" in output
    code, output = run("simulate", str(PACK), "--games", "1", "--report", str(tmp_path / "a.pdf"))
    assert code == 2 and "is an HTML file" in output
