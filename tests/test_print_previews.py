"""The PNG previews of the specimen cards match the golden images, within a tolerance.

The goldens in tests/golden/png are what `pillbox print tests/specimens/coma-ward --png DIR
--dpi 60` wrote when someone last looked at the cards. A change to the design (cards.css, the
templates) or to the words on a card shows here: look at the new previews, and if they are
right, `make test UPDATE=1` (pytest --update-goldens) rewrites the goldens.

The fonts are pillbox's own (compiler/printing/fonts), so every machine lays the same words
out alike; the rasteriser still draws edges a little differently here and there, so two images
match when they have the same size, their mean difference is under MEAN_LIMIT per channel, and
under FAR_SHARE of their pixels differ by more than FAR (anti-aliasing moves edges, not glyphs).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

from tests.conftest import TESTS
from tests.helpers import run

GOLDEN = TESTS / "golden" / "png"
SPECIMENS = TESTS / "specimens" / "coma-ward"
DPI = 60
MEAN_LIMIT = 2.0
FAR = 40
FAR_SHARE = 0.01
PALETTE = 64
"""Colours a golden keeps: a third of the size, and about 0.5 of the mean difference."""


def difference(expected: Path, actual: Path) -> str | None:
    """Why two images do not match, or None when they do."""
    with Image.open(expected) as a, Image.open(actual) as b:
        first, second = a.convert("RGB"), b.convert("RGB")
    if first.size != second.size:
        return f"size {second.size}, expected {first.size}"
    diff = ImageChops.difference(first, second)
    mean = max(ImageStat.Stat(diff).mean)
    # A pixel is far off when any channel is: the largest channel difference, per pixel.
    largest = diff.split()
    peak = ImageChops.lighter(ImageChops.lighter(largest[0], largest[1]), largest[2])
    far = sum(peak.point(lambda value: 255 if value > FAR else 0).histogram()[255:])
    share = far / (first.width * first.height)
    if mean >= MEAN_LIMIT or share >= FAR_SHARE:
        return f"mean difference {mean:.2f} per channel, {share:.1%} of pixels far off"
    return None


def test_specimen_previews_match_the_goldens(tmp_path: Path, update_goldens: bool) -> None:
    previews = tmp_path / "png"
    code, output = run(
        "print",
        str(SPECIMENS),
        "-o",
        str(tmp_path / "cards.pdf"),
        "--png",
        str(previews),
        "--dpi",
        str(DPI),
    )
    assert code == 0, output
    made = sorted(p.name for p in previews.glob("*.png"))
    assert made, output
    if update_goldens:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        GOLDEN.mkdir(parents=True)
        for name in made:
            with Image.open(previews / name) as image:
                small = image.convert("RGB").quantize(PALETTE, method=Image.Quantize.MEDIANCUT)
            small.save(GOLDEN / name, optimize=True)
        return
    expected = sorted(p.name for p in GOLDEN.glob("*.png"))
    assert made == expected, "the specimens print other cards than the goldens show"
    problems = {name: difference(GOLDEN / name, previews / name) for name in made}
    wrong = {name: why for name, why in problems.items() if why is not None}
    assert not wrong, (
        f"previews in {previews} differ from {GOLDEN}: {wrong}; if the new ones look right, "
        "run `make test UPDATE=1`"
    )


def test_the_comparison_tolerates_anti_aliasing_but_not_a_changed_card(tmp_path: Path) -> None:
    golden = sorted(GOLDEN.glob("*.png"))[0]
    with Image.open(golden) as image:
        card = image.convert("RGB")
    card.save(tmp_path / "same.png")
    assert difference(golden, tmp_path / "same.png") is None
    # One pixel's worth of blur at the edges of the letters is tolerated...
    shifted = Image.blend(card, ImageChops.offset(card, 1, 0), 0.15)
    shifted.save(tmp_path / "soft.png")
    assert difference(golden, tmp_path / "soft.png") is None
    # ...a block of text gone is not, nor another size.
    blank = card.copy()
    blank.paste(card.getpixel((2, 2)), (0, card.height // 4, card.width, card.height // 2))
    blank.save(tmp_path / "blank.png")
    assert difference(golden, tmp_path / "blank.png") is not None
    card.resize((card.width + 1, card.height)).save(tmp_path / "wide.png")
    assert "size" in (difference(golden, tmp_path / "wide.png") or "")


def test_the_pdf_uses_the_shipped_fonts_and_no_installed_one(tmp_path: Path) -> None:
    import pikepdf

    out = tmp_path / "cards.pdf"
    code, output = run("print", str(SPECIMENS), "-o", str(out), "--backs", "duplex")
    assert code == 0, output
    fonts: set[str] = set()

    def walk(resources: pikepdf.Dictionary) -> None:
        fonts.update(str(font.BaseFont) for font in resources.get("/Font", {}).values())
        for form in resources.get("/XObject", {}).values():
            if "/Resources" in form:
                walk(form.Resources)

    with pikepdf.open(out) as pdf:
        for page in pdf.pages:
            walk(page.Resources)
    # Subset fonts are named TAG+Family-Style.
    families = {name.split("+", 1)[-1] for name in fonts}
    assert families >= {
        "Pillbox-Serif",
        "Pillbox-Serif-Bold",
        "Pillbox-Serif-Italic",
        "Pillbox-Sans",
    }
    assert all(family.startswith("Pillbox-") for family in families), families
