"""`pillbox report`: one self-contained page with every card, a chart per option and the flags."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.odds import odds_table
from compiler.report.analysis import (
    Analysis,
    CardReport,
    analyse,
    checked_stats,
    polarity,
    read_stats,
    spread,
)
from compiler.report.faces import clean_html
from runtime.odds import card_odds
from tests.conftest import ROOT, TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"

VOID = {"br", "hr", "img", "wbr", "col", "meta", "link", "input", "source"}


class Page(HTMLParser):
    """Reads a report strictly: every element closed in order, and what the tests look for."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.cards: list[dict[str, str]] = []  # the attributes of each card's article
        self.charts: dict[str, int] = {}  # charts per card id
        self.card: str | None = None
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.tags: set[str] = set()
        self.frames: list[dict[str, str]] = []  # the attributes of each face frame

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        self.tags.add(tag)
        if "id" in found:
            if found["id"] in self.ids:
                self.problems.append(f"id {found['id']} twice")
            self.ids.add(found["id"])
        if "href" in found:
            self.links.append(found["href"])
        if tag == "article":
            self.cards.append(found)
            self.card = found["id"]
        if tag == "iframe":
            self.frames.append(found)
        if tag == "svg" and "r-chart" in found.get("class", "").split() and self.card:
            self.charts[self.card] = self.charts.get(self.card, 0) + 1
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else None}>")
            return
        self.open.pop()
        if tag == "article":
            self.card = None


def read_page(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    assert not page.problems, page.problems[:5]
    assert not page.open, page.open
    return page


def compiled(pack: Path) -> CompiledPack:
    loaded = load_checked(pack)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


@pytest.fixture(scope="module")
def specimen_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    target = tmp_path_factory.mktemp("report") / "report.html"
    code, output = run("report", str(SPECIMENS), "-o", str(target))
    assert code == 0, output
    return target.read_text(encoding="utf-8"), output


def test_the_specimen_report_parses_with_every_card_and_a_chart_per_block(
    specimen_report: tuple[str, str],
) -> None:
    text, output = specimen_report
    page = read_page(text)
    pack = compiled(SPECIMENS)
    table = odds_table(pack, [])
    assert sorted(a["data-title"] for a in page.cards) == sorted(c.title for c in pack.cards)
    # Cards with effects come in pack order, each with a chart per option or block; the
    # cards with nothing to walk follow, in a gallery.
    walked = [c for c in pack.cards if card_odds(table, c)]
    shown = [a for a in page.cards if page.charts.get(a["id"])]
    assert [a["data-title"] for a in shown] == [c.title for c in walked]
    for article, card in zip(shown, walked, strict=True):
        assert page.charts[article["id"]] == len(card_odds(table, card)), card.label
    charts = sum(page.charts.values())
    assert charts > 10
    assert f"21 cards, {charts} charts" in output
    # Every card's face is the print template's, in a frame of the printed size.
    assert len(page.frames) == len(pack.cards)
    assert all('<h1 class="title">' in frame["srcdoc"] for frame in page.frames)
    assert "width: 63.5mm; height: 88.9mm" in text


def test_the_report_needs_no_script_and_no_network(specimen_report: tuple[str, str]) -> None:
    text, _ = specimen_report
    page = read_page(text)
    assert "script" not in page.tags
    assert not page.tags & {"link", "object", "embed", "img"}
    assert all(link.startswith("#") and link[1:] in page.ids for link in page.links)
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    # Faces are frames of their own, sandboxed with no permission at all, fetching nothing.
    for frame in page.frames:
        assert frame["sandbox"] == "" and "src" not in frame
        assert "Content-Security-Policy" in frame["srcdoc"] and "<script" not in frame["srcdoc"]
    assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/2000/svg(?:\"|&#34;))", text)


def test_the_executable_share_and_every_diagnostic_link_to_their_card(
    specimen_report: tuple[str, str],
) -> None:
    text, _ = specimen_report
    page = read_page(text)
    assert "90%" in text  # what `pillbox check` says of the specimens
    assert "W0323" in text
    phenomenon = next(a["id"] for a in page.cards if a["data-title"] == "The Long Night")
    assert f'href="#{phenomenon}"' in text
    assert 'href="#flags"' in text and 'id="diagnostics"' in text


def test_a_block_is_charted_across_the_stat_its_check_rolls(
    specimen_report: tuple[str, str],
) -> None:
    analysis = analyse(compiled(SPECIMENS), [])
    figure = next(c for c in analysis.cards if c.card.title == "The Figure at the End of the Hall")
    back_away = figure.blocks[2]
    assert back_away.axis == ("dexterity",) and back_away.also == []  # rummage: a verb
    assert [c.value for c in back_away.columns] == [0, 1, 2, 3]
    assert [c.given for c in back_away.columns] == [False, False, False, True]
    # With no dice, the check has no successes: always the first outcome, terror +1.
    assert back_away.columns[0].odds.expected(["terror"])["terror"] == 1
    # Focus is pinned at each value, from the lowest the ruleset gives it to the highest.
    nursery = next(c for c in analysis.cards if c.card.title == "Music from the Nursery")
    assert nursery.blocks[1].axis == ("focus",)
    assert [c.value for c in nursery.blocks[1].columns] == [1, 2, 3, 4, 5]
    # No check, but a condition on terror: charted across terror.
    chapel = next(c for c in analysis.cards if c.card.title == "Chapel")
    assert chapel.blocks[0].axis == ("terror",)
    assert [float(c.odds.expected(["terror"])["terror"]) for c in chapel.blocks[0].columns] == [
        0,
        0,
        0,
        -1,
        -1,
        -1,
    ]
    # A roll of no stat: one bar, as given.
    vial = next(c for c in analysis.cards if c.card.title == "Unlabeled Vial")
    assert vial.blocks[0].axis == () and len(vial.blocks[0].columns) == 1


def test_the_given_stats_move_the_framed_column() -> None:
    analysis = analyse(compiled(SPECIMENS), ["dexterity=1", "terror=3"])
    assert analysis.given["dexterity"] == 1 and analysis.given["focus"] == 3
    figure = next(c for c in analysis.cards if c.card.title == "The Figure at the End of the Hall")
    assert [c.given for c in figure.blocks[2].columns] == [False, True, False, False]


def test_good_and_bad_stats_come_from_the_ruleset() -> None:
    ruleset = compiled(SPECIMENS).checked.ruleset
    # Health 0 kills; terror past 5 is lost as health.
    assert polarity(ruleset) == {"health": 1, "terror": -1}


def test_spread_keeps_every_value_of_a_short_range_and_the_ends_of_a_long_one() -> None:
    assert spread(0, 3) == [0, 1, 2, 3]
    wide = spread(0, 100)
    assert wide[0] == 0 and wide[-1] == 100 and len(wide) <= 24


# ---------------------------------------------------------------- flags on a made-up pack

CHOICE = """\
hallucination "The Choice" {
    situation "Three doors."

    option "Hide" {
        gain terror 1
    }

    option "Pray" {
        lose terror 1
    }

    option "Gamble" {
        roll 3d6 {
            3 { lose health 1 }
            4..18 { lose terror 1 }
        }
    }

    option "Leap" {
        check dexterity {
            0..2 { gain terror 1 }
            3+ { lose terror 1 }
        }
    }
}
"""

TWINS = """\
hallucination "The Twin" variant 1 {
    situation "A face like yours."
    option "Look" { gain terror 1 }
    option "Leave" { say "You go." }
}

hallucination "The Twin" variant 2 {
    situation "A face like yours."
    option "Look" { gain terror 2 }
    option "Leave" { say "You go." }
}

hallucination "The Twin" variant 3 {
    situation "A face like yours."
    option "Look" {
        roll d6 {
            1..3 { gain terror 2 }
            4..6 { gain terror 1 }
        }
    }
    option "Leave" { say "You go." }
}
"""


@pytest.fixture(scope="module")
def made_up(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pack(tmp_path_factory.mktemp("made-up") / "pack", choice=CHOICE, twins=TWINS)


def flags_of(analysis: Analysis, title: str, variant: int | None = None) -> CardReport:
    return next(c for c in analysis.cards if c.card.title == title and c.card.variant == variant)


def test_branches_under_2_or_over_98_percent_are_flagged(made_up: Path) -> None:
    choice = flags_of(analyse(compiled(made_up), []), "The Choice")
    branch = [f.text for f in choice.flags if f.kind == "branch"]
    # 1/216 and 215/216; the dexterity check at dexterity 3 is left alone.
    assert branch == ["Gamble: roll 3d6: 3 0.5 %, 4..18 99.5 %"]
    # At dexterity 1 no pool of one die makes 3 successes: the arm can never happen.
    choice = flags_of(analyse(compiled(made_up), ["dexterity=1"]), "The Choice")
    branch = [f.text for f in choice.flags if f.kind == "branch"]
    assert "Leap: check dexterity: 0..2 100 %, 3+ 0 % (never)" in branch


def test_an_option_no_better_on_any_stat_and_worse_on_one_is_flagged(made_up: Path) -> None:
    choice = flags_of(analyse(compiled(made_up), []), "The Choice")
    dominated = {f.text.split(" and worse")[0] for f in choice.flags if f.kind == "dominated"}
    assert dominated == {
        "“Hide” is never better than “Pray”",
        "“Hide” is never better than “Leap”",
        # Gamble loses health 1 time in 216, and terror less often than Pray.
        "“Gamble” is never better than “Pray”",
        "“Leap” is never better than “Pray”",
    }
    # Hide and Gamble each beat the other somewhere: neither is flagged against the other.
    gamble = next(f.text for f in choice.flags if f.text.startswith("“Gamble”"))
    assert "health (-0.005 against +0.000), terror (-0.995 against -1.000)" in gamble


def test_options_that_draw_or_move_differently_are_not_compared(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        cards="""hallucination "The Drawer" {
    situation "A drawer hangs open."
    option "Reach in" { gain terror 1; draw item }
    option "Walk on" { say "You leave it." }
    option "Slam it" { gain terror 1 }
    option "Run" { gain terror 1; move to stairs }
}""",
    )
    drawer = flags_of(analyse(compiled(pack), []), "The Drawer")
    dominated = {f.text.split(" and worse")[0] for f in drawer.flags if f.kind == "dominated"}
    # An item drawn or a place reached has no value to weigh against terror.
    assert dominated == {"“Slam it” is never better than “Walk on”"}


def test_variants_apart_by_more_than_the_threshold_are_flagged_on_both(made_up: Path) -> None:
    analysis = analyse(compiled(made_up), [])
    variants = [f for f in analysis.flags if f.kind == "variants"]
    # 1 and 2 differ by 1 terror on Look; 3 (1.5) is exactly 0.5 from each: not more.
    assert [f.text for f in variants] == [
        "variants 1 and 2 differ on “Look”: terror +1.00 against +2.00"
    ]
    for variant in (1, 2):
        assert variants[0] in flags_of(analysis, "The Twin", variant).flags
    assert variants[0] not in flags_of(analysis, "The Twin", 3).flags


def test_the_made_up_report_shows_the_flags_linked_to_their_cards(
    made_up: Path, tmp_path: Path
) -> None:
    target = tmp_path / "made-up.html"
    code, output = run("report", str(made_up), "-o", str(target))
    assert code == 0, output
    page = read_page(target.read_text(encoding="utf-8"))
    text = target.read_text(encoding="utf-8")
    assert [a["data-title"] for a in page.cards] == ["The Choice"] + ["The Twin"] * 3
    assert page.charts == {a["id"]: n for a, n in zip(page.cards, [4, 2, 2, 2], strict=True)}
    assert "9 flags" in output
    assert f'href="#{page.cards[0]["id"]}"' in text
    assert "Gamble: roll 3d6: 3 0.5 %, 4..18 99.5 %" in text


# ----------------------------------------------------------------------- untrusted packs

HOSTILE_TEMPLATE = """\
<script>document.title = "pwned"</script>
<style>body { background: url(http://evil.example/a.png) }</style>
<img src="http://evil.example/b.png" onerror="alert(1)">
</div></div></div></article></main>
<div class="card" id="cards" onclick="alert(2)" style="color: red; background: u\\72l(http://evil.example/c.png)">
  <h1 class="title">{{ card.title }}</h1>
  <a href="http://evil.example/d">a link</a>
  <svg><use href="http://evil.example/e.svg#x"/><rect fill="url(http://evil.example/f)"/></svg>
</div>
<div class="unclosed"><span>
"""

HOSTILE_CSS = """\
@import url("http://evil.example/g.css");
@font-face { font-family: Evil; src: url(http://evil.example/h.woff); }
html, body { background: url(http://evil.example/i.png); color: #333 }
.card { color: blue; /* a comment { } */ content: "}"; }
@media screen { .title { font-weight: bold; background: image-set("http://evil.example/j" 1x) } }
.x</style><script>alert(3)</script> { color: green }
"""


def test_a_hostile_pack_can_neither_script_fetch_nor_break_out_of_its_face(
    tmp_path: Path,
) -> None:
    pack = make_pack(tmp_path / "pack", choice=CHOICE)
    (pack / "templates").mkdir()
    (pack / "templates" / "hallucination.html").write_text(HOSTILE_TEMPLATE)
    (pack / "templates" / "cards.css").write_text(HOSTILE_CSS)
    target = tmp_path / "report.html"
    code, output = run("report", str(pack), "-o", str(target))
    assert code == 0, output
    text = target.read_text(encoding="utf-8")
    page = read_page(text)
    assert "evil" not in text and "<script" not in text and "onclick" not in text
    assert 'id="cards"' in text and text.count('id="cards"') == 1  # the page's own
    assert [a["data-title"] for a in page.cards] == ["The Choice"]
    assert page.charts[page.cards[0]["id"]] == 4
    [face] = [frame["srcdoc"] for frame in page.frames]
    assert "evil" not in face and "<script" not in face and "onclick" not in face
    assert '<h1 class="title">The Choice</h1>' in face
    assert '.card { color: blue;   content: "}"; }' in face
    assert read_page(face).tags >= {"html", "head", "style", "body", "div", "h1", "svg"}


def test_face_html_keeps_only_what_is_harmless() -> None:
    assert clean_html('<p class="a" onclick="x">T &amp; <b>b</b></p>') == (
        '<p class="a">T &amp; <b>b</b></p>'
    )
    assert clean_html("</div><span>open") == "<span>open</span>"
    assert clean_html("<p>a<script>alert(1)</script>b</p>") == "<p>ab</p>"
    assert clean_html('<img src="data:image/png;base64,AA">') == (
        '<img src="data:image/png;base64,AA">'
    )


# -------------------------------------------------------------------- the command itself


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "{tmp}/report.txt"], "the report is an HTML file"),
        (["-o", "{tmp}/nowhere/report.html"], "does not exist"),
        (["-o", "{tmp}/report.html", "--set", "bogus=1"], "'bogus' is not a stat"),
        (["-o", "{tmp}/report.html", "--set", "dexterity=9"], "dexterity goes from 0 to 3"),
        ([], "Missing option '-o'"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    code, output = run("report", str(SPECIMENS), *(a.format(tmp=tmp_path) for a in args))
    assert code == 2, output
    assert message in output and "Traceback" not in output
    assert not (tmp_path / "report.html").exists()


def test_a_pack_with_errors_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", broken='hallucination "Oops" {\n    option "A" {\n')
    target = tmp_path / "report.html"
    code, output = run("report", str(pack), "-o", str(target))
    assert code == 1, output
    assert "error[" in output and not target.exists()


def test_a_broken_template_exits_1_at_its_line_and_writes_nothing(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", choice=CHOICE)
    (pack / "templates").mkdir()
    (pack / "templates" / "hallucination.html").write_text("<p>\n{{ card.titel }}</p>\n")
    target = tmp_path / "report.html"
    code, output = run("report", str(pack), "-o", str(target))
    assert code == 1, output
    assert "E0701" in output and "hallucination.html:2" in output
    assert "nothing written" in output and not target.exists()


def test_a_card_whose_odds_cannot_be_worked_out_exits_1_with_its_error_in_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import runtime.odds

    monkeypatch.setattr(runtime.odds, "MAX_PATHS", 1)
    pack = make_pack(tmp_path / "pack", choice=CHOICE)
    target = tmp_path / "report.html"
    code, output = run("report", str(pack), "-o", str(target))
    assert code == 1, output
    assert "E0604" in output and "The Choice" in output and "more than 1 paths" in output
    page = read_page(target.read_text(encoding="utf-8"))
    [card] = page.cards
    assert card["data-title"] == "The Choice" and not page.charts
    text = target.read_text(encoding="utf-8")
    assert "error[E0604]" in text and f'href="#{card["id"]}"' in text


def test_checked_and_read_stats_are_found_in_reading_order() -> None:
    ruleset = compiled(SPECIMENS).checked.ruleset
    tree = [
        {"if": {"when": {"value": "stat", "args": {"stat": "terror"}}}},
        {"check": {"procedure": "attack", "args": {}, "outcomes": []}},
        {"check": {"procedure": "pool", "args": {"stat": "focus"}, "outcomes": []}},
    ]
    assert checked_stats(tree, ruleset) == [("strength", "dexterity"), ("focus",)]
    assert read_stats(tree, ruleset) == ["terror"]


def test_the_report_templates_are_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert "compiler.report" in setuptools["packages"]
    shipped = setuptools["package-data"]["compiler.report"]
    folder = ROOT / "compiler" / "report" / "templates"
    for template in folder.iterdir():
        assert any(template.match(pattern) for pattern in shipped), template.name
