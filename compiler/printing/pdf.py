"""WeasyPrint behind a fence: resources only from allowed folders, output written atomically."""

from __future__ import annotations

import hashlib
import io
import logging
import mimetypes
import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from compiler.files import write_whole
from compiler.pack import hard_linked

MAX_RESOURCE_BYTES = 20 * 1024 * 1024
"""An image or font larger than this is refused."""

MAX_IMAGE_PIXELS = 40_000_000
"""An image of more pixels than this is refused, measured from its header before anything
decodes it: a 20 KB PNG can hold 13000 × 13000 pixels, which take gigabytes decoded."""


@dataclass(frozen=True)
class Refusal:
    """A URL a face asked for and did not get, and why: `outside` the allowed folders or the
    network, a hard `link`, `missing` from the pack, too `large`, of too many `pixels`, or
    `unreadable` as an image."""

    url: str
    reason: str


IMAGE_SCHEME = "pillbox-image"
"""The URL scheme of a pack image a face names by the SHA-256 of its bytes (`IMAGES`)."""

IMAGES: dict[str, tuple[bytes, str]] = {}
"""`pillbox-image:` URL -> the image's bytes and type. Filled in the printing process before
its layout workers fork, so that they read each picture from here: a face names a picture by
a short URL, however many faces show it, and WeasyPrint decodes it once a document (a `data:`
URL of megabytes in every face held a copy of the picture each)."""


def image_url(data: bytes, kind: str, suffix: str) -> str:
    """A URL naming these image bytes, kept in `IMAGES` for the layout to fetch."""
    url = f"{IMAGE_SCHEME}:{hashlib.sha256(data).hexdigest()}{suffix}"
    IMAGES[url] = (data, kind)
    return url


def _fetcher_class() -> Any:
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class FencedFetcher(URLFetcher):  # type: ignore[misc]
        """Fetches `file:` URLs inside the allowed folders, `data:` URLs and the pack images
        named in `IMAGES`; nothing else."""

        def __init__(self, roots: Sequence[Path]) -> None:
            super().__init__(timeout=1, allowed_protocols={"file", "data", IMAGE_SCHEME})
            self.roots = [root.resolve() for root in roots]
            self.refused: list[Refusal] = []
            # Each path asked for -> the file it led to (links followed) and its SHA-256.
            self.fetched: dict[str, tuple[str, str]] = {}

        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):
                return self._data_url(url, headers)
            if url.startswith(f"{IMAGE_SCHEME}:"):
                found = IMAGES.get(url)
                if found is None:  # a template that spells such a URL itself
                    return self._refuse(url, "missing")
                return URLFetcherResponse(url, found[0], {"Content-Type": found[1]})
            parts = urlsplit(url)
            if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
                return self._refuse(url, "outside")
            asked = unquote(parts.path)
            path = Path(asked).resolve()
            if not any(path.is_relative_to(root) for root in self.roots):
                return self._refuse(url, "outside")
            if not path.is_file():
                return self._refuse(url, "missing")
            if path.stat().st_size > MAX_RESOURCE_BYTES:
                return self._refuse(url, "large")
            if hard_linked(path):
                return self._refuse(url, "link")
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            data = path.read_bytes()
            reason = refused_image(data)
            if reason is not None:
                return self._refuse(url, reason)
            self.fetched[asked] = (str(path), hashlib.sha256(data).hexdigest())
            return URLFetcherResponse(url, data, {"Content-Type": kind})

        def _data_url(self, url: str, headers: Any) -> Any:
            """A `data:` URL's bytes (a template's own, so no larger than it), if usable."""
            try:
                response = super().fetch(url, headers)
                data = response.read()
                response.close()
            except Exception:  # a malformed URL: WeasyPrint would stop on some of those
                return self._refuse(url, "unreadable")
            reason = refused_image(data)
            if reason is not None:
                return self._refuse(url, reason)
            return URLFetcherResponse(response.url, data, response.headers)

        def _refuse(self, url: str, reason: str) -> Any:
            self.refused.append(Refusal(url, reason))
            raise ValueError(f"pillbox does not fetch {url}")

    return FencedFetcher


def refused_image(data: bytes) -> str | None:
    """Why print refuses these bytes as an image or font (`large`, too many `pixels`), or None.

    Nothing is decoded: the pixels are counted from the image's header.
    """
    if len(data) > MAX_RESOURCE_BYTES:
        return "large"
    return "pixels" if too_many_pixels(data) else None


def too_many_pixels(data: bytes) -> bool:
    """Whether the bytes are an image of more than MAX_IMAGE_PIXELS, by its header alone."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warning of a bomb: this is the check
        try:
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
        except Image.DecompressionBombError:
            return True
        except Exception:  # not an image Pillow reads: a font, a stylesheet, an SVG
            return False
    return width * height > MAX_IMAGE_PIXELS


def image_format(data: bytes) -> tuple[str, int] | None:
    """The format Pillow reads the bytes as and the image's pixels, once its structure and
    checksums are checked (nothing is decoded); None if it reads no image there."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data)) as image:
                found, (width, height) = image.format, image.size
                image.verify()
        except Exception:  # whatever Pillow raises on a damaged or foreign file
            return None
    return (found, width * height) if found else None


_FAILED_IMAGE = "Failed to load image at"
"""How WeasyPrint's log line for an image it could not use begins (it draws nothing there)."""


def _unreadable(failed: Sequence[str], refused: list[Refusal]) -> None:
    """Add the images WeasyPrint failed to read that the fence had let through."""
    known = {refusal.url for refusal in refused}
    for url in failed:
        if url not in known:
            known.add(url)
            refused.append(Refusal(url, "unreadable"))


@contextmanager
def _quiet_weasyprint() -> Iterator[list[str]]:
    """Keep WeasyPrint's warnings from printing; collect the URLs of images it failed to load.

    The URL is taken from the record's arguments, not its text: that shows it with repr().
    """
    logger = logging.getLogger("weasyprint")
    failed: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            about_an_image = isinstance(record.msg, str) and record.msg.startswith(_FAILED_IMAGE)
            if about_an_image and isinstance(record.args, tuple) and record.args:
                failed.append(str(record.args[0]))

    handler = Keep(logging.WARNING)
    old_propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield failed
    finally:
        logger.removeHandler(handler)
        logger.propagate = old_propagate


FIXED_EPOCH = "0"
"""The time stamped into each embedded font's `head` table, instead of the clock's."""


@contextmanager
def _fixed_clock() -> Iterator[None]:
    """Fonts are subset and saved with a fixed date, so the same cards give the same bytes.

    fontTools stamps the current time into a font it saves unless SOURCE_DATE_EPOCH is set,
    and WeasyPrint saves every font it subsets or cleans with fontTools; the variable is set
    only while a PDF is drawn.
    """
    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = FIXED_EPOCH
    try:
        yield
    finally:
        if before is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = before


@dataclass
class Rendered:
    """A laid-out document, the URLs refused on the way, the files read (each path asked for ->
    the file it led to and its SHA-256), and the cards whose text it clipped.

    The PDF is drawn when `data` is first read, after the layout has been looked at.
    """

    document: Any
    refused: list[Refusal]
    fetched: dict[str, tuple[str, str]]
    clipped: set[str]
    _data: bytes | None = None

    @property
    def data(self) -> bytes:
        """The PDF."""
        if self._data is None:
            with _quiet_weasyprint() as messages, _fixed_clock(), _refusals_stop(self.refused):
                data = b""  # what stopped the drawing was refused: the print fails anyway
                data = self.document.write_pdf()
            _unreadable(messages, self.refused)
            assert isinstance(data, bytes)
            self._data = data
        return self._data


def render_pdf(html: str, base: Path, roots: Sequence[Path]) -> Rendered:
    """Lay out an HTML document, see which cards lost text to clipping, write the PDF."""
    from weasyprint import HTML

    fetcher = _fetcher_class()(roots)
    clipped: set[str] = set()
    with _quiet_weasyprint() as messages, _refusals_stop(fetcher.refused):
        document = None
        document = HTML(string=html, base_url=base.as_uri() + "/", url_fetcher=fetcher).render()
        for page in document.pages:
            _clipped_lines(page._page_box, None, float("inf"), clipped)
    _unreadable(messages, fetcher.refused)
    if document is None:
        return Rendered(None, fetcher.refused, fetcher.fetched, clipped, b"")
    # The live list and dict: drawing the PDF (SVG images, attachments) may fetch more.
    return Rendered(document, fetcher.refused, fetcher.fetched, clipped)


@contextmanager
def _refusals_stop(refused: list[Refusal]) -> Iterator[None]:
    """Let a refused URL end the block quietly where WeasyPrint does not catch the error it
    makes (an `@color-profile`): the refusal is reported, and nothing is drawn anyway."""
    from weasyprint.urls import URLFetchingError

    try:
        yield
    except URLFetchingError:
        if not refused:
            raise


CLIP_SLACK = 0.75
"""Points a line may pass its clipping box by (rounding) before it counts as cut off."""


def _clipped_lines(box: Any, card: str | None, clip: float, found: set[str]) -> None:
    """Walk the laid-out boxes: a line below the bottom of a box that hides overflow is lost."""
    element = getattr(box, "element", None)
    if element is not None and element.get("data-card") is not None:
        card = element.get("data-card")
    if type(box).__name__ == "LineBox":
        if card is not None and box.position_y + box.height > clip + CLIP_SLACK:
            found.add(card)
        return
    style = getattr(box, "style", None)
    if style is not None and style["overflow"] != "visible" and hasattr(box, "padding_height"):
        clip = min(clip, box.padding_box_y() + box.padding_height())
    for child in getattr(box, "children", ()):
        _clipped_lines(child, card, clip, found)


def pdf_to_pngs(
    chunks: Sequence[bytes],
    where: Sequence[tuple[int, int]],
    paths: Sequence[tuple[Path, Path]],
    dpi: int,
    bleed: float,
) -> None:
    """One PNG per face page (`where`: its chunk PDF and page), trimmed to the card.

    The page is the card and its bleed; only the card is shown. Each goes whole to the first
    path of its pair (a temporary file); an error names the second.
    """
    drawn = card_images(chunks, [(chunk, page, dpi) for chunk, page in where], bleed)
    for image, pair in zip(drawn, paths, strict=True):
        write_png(image, pair)


def write_png(image: Any, paths: tuple[Path, Path]) -> None:
    """Write a PIL image as PNG, whole, to the first path; an error names the second."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    write_whole(paths[0], buffer.getvalue(), paths[1])


def card_images(
    chunks: Sequence[bytes], pages: Sequence[tuple[int, int, float]], bleed: float
) -> Iterator[Any]:
    """Each face page (its chunk PDF, page and dots per inch) drawn as a PIL image of the card
    alone, its bleed cut off."""
    import pypdfium2 as pdfium

    documents: dict[int, Any] = {}
    inset = bleed * 72 / 25.4
    try:
        for chunk, number, dpi in pages:
            if chunk not in documents:
                documents[chunk] = pdfium.PdfDocument(chunks[chunk])
            page = documents[chunk][number]
            # The CropBox, not a crop of the bitmap: the card starts on a whole pixel, as if
            # it had been laid out on a page of its own size.
            left, bottom, right, top = page.get_mediabox()
            page.set_cropbox(left + inset, bottom + inset, right - inset, top - inset)
            yield page.render(scale=dpi / 72).to_pil()
    finally:
        for document in documents.values():
            document.close()
