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
from pathlib import Path

from tests.helpers import make_pack, run
from tests.test_odds_hostile import NEST, THOUSAND, big_stat_pack, room
from tests.test_report import read_page

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
