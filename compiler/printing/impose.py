"""Imposition: the printed pages made from the face pages WeasyPrint laid out, without laying
anything out again.

Each face page becomes one Form XObject, however many copies of it are printed; a printed page
draws its faces with a translation and a clip (`layout.Placed`) and its crop marks as filled
rectangles. pikepdf (qpdf) does it rather than pypdfium2: pdfium's `FPDF_NewXObjectFromPage`
copies every font and the whole resource dictionary once per call, and its content generator
walks the whole document on every page it writes, so a 200-card pack took seconds there.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pikepdf
from pikepdf import Array, Dictionary, Name, Pdf

from compiler.printing.layout import Label, PageSpec, Rect

MM = 72 / 25.4
"""PDF points per millimetre."""


def _number(value: float) -> str:
    """A coordinate in points, as short as it is exact to a thousandth of a point."""
    return f"{value * MM:.3f}".rstrip("0").rstrip(".")


def _rect(rect: Rect) -> str:
    return " ".join(_number(v) for v in rect)


CORNER_WIDTH = 0.15
"""Corner guides are stroked this thick (mm), in mid grey: seen for the cut, faint on the card."""

KAPPA = 0.5523
"""A quarter circle of radius r is a Bézier curve with its control points r × this along the
tangents (the usual approximation, within 0.03 % of the circle)."""


def _corner_guides(trims: Sequence[Rect], radius: float) -> str:
    """A quarter circle of `radius` at each corner of each trim box, where its cut rounds off."""
    k = radius * (1 - KAPPA)
    paths = []
    for x, y, w, h in trims:
        right, top = x + w, y + h
        # Each corner: from its point on one edge, r from the corner, to the one on the other.
        for (x0, y0), (c1x, c1y), (c2x, c2y), (x1, y1) in (
            ((x, y + radius), (x, y + k), (x + k, y), (x + radius, y)),
            ((right - radius, y), (right - k, y), (right, y + k), (right, y + radius)),
            ((right, top - radius), (right, top - k), (right - k, top), (right - radius, top)),
            ((x + radius, top), (x + k, top), (x, top - k), (x, top - radius)),
        ):
            paths.append(
                " ".join(_number(v) for v in (x0, y0)) + " m "
                + " ".join(_number(v) for v in (c1x, c1y, c2x, c2y, x1, y1)) + " c"
            )  # fmt: skip
    return f"q 0.5 G {_number(CORNER_WIDTH)} w " + " ".join(paths) + " S Q"


LABEL_FONT = Dictionary(
    Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding
)
"""The tool's own words are in a font every PDF reader has (nothing embedded, no layout)."""


def _labels(labels: Sequence[Label]) -> str:
    """Each label as a line of text, its parentheses and backslashes escaped."""
    lines = []
    for x, y, size, text in labels:
        quoted = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        lines.append(f"BT /F0 {size:g} Tf {_number(x)} {_number(y)} Td ({quoted}) Tj ET")
    return "0 g " + " ".join(lines)


def _box(rect: Rect) -> Array:
    x, y, w, h = (v * MM for v in rect)
    return Array([round(x, 4), round(y, 4), round(x + w, 4), round(y + h, 4)])


def _forms(
    out: Pdf, chunks: Sequence[bytes], where: Sequence[tuple[int, int]], keep: list[Pdf]
) -> list[pikepdf.Object]:
    """Each face page (`where`: its chunk and page) as a Form XObject of `out`.

    The content stream is taken as it is and the page's resources by reference, so fonts and
    images shared by the pages of a chunk are copied into `out` once.
    """
    sources: dict[int, Pdf] = {}
    forms = []
    for chunk, number in where:
        if chunk not in sources:
            sources[chunk] = Pdf.open(io.BytesIO(chunks[chunk]))
            keep.append(sources[chunk])  # qpdf reads stream data from its source at save
        source = sources[chunk]
        page = source.pages[number]
        form = page.obj.Contents
        if not isinstance(form, pikepdf.Stream):  # several content streams: joined, decoded
            joined = b"\n".join(part.read_bytes() for part in form)
            form = source.make_indirect(pikepdf.Stream(source, joined))
        # The page's own content stream becomes the form (the chunk is thrown away after):
        # its data is not decoded, nor compressed again.
        form.Type = Name.XObject
        form.Subtype = Name.Form
        form.BBox = page.obj.MediaBox
        form.Resources = page.obj.get("/Resources", Dictionary())
        forms.append(out.copy_foreign(form))
    return forms


def impose(
    chunks: Sequence[bytes], where: Sequence[tuple[int, int]], pages: Sequence[PageSpec]
) -> bytes:
    """The PDF of the printed pages.

    A `Placed.item` is an index into `where`, which names the chunk PDF and the page in it
    where that face was laid out.
    """
    out = Pdf.new()
    keep: list[Pdf] = []
    try:
        forms = _forms(out, chunks, where, keep)
        for spec in pages:
            names = Dictionary()
            ops = []
            for placed in spec.placed:
                name = f"/F{placed.item}"
                names[name] = forms[placed.item]
                # Clip first, in page space; then move the face page into place and draw it.
                ops.append(
                    f"q {_rect(placed.clip)} re W n 1 0 0 1 {_number(placed.x)} "
                    f"{_number(placed.y)} cm {name} Do Q"
                )
            if spec.corners:
                ops.append(_corner_guides(spec.corners, spec.radius))
            if spec.marks:  # a path each, so every mark is a rectangle of its own
                ops.append("0 g " + " ".join(f"{_rect(mark)} re f" for mark in spec.marks))
            resources = Dictionary(XObject=names)
            if spec.labels:
                ops.append(_labels(spec.labels))
                resources.Font = Dictionary(F0=LABEL_FONT)
            page = Dictionary(
                Type=Name.Page,
                MediaBox=_box((0.0, 0.0, spec.width, spec.height)),
                Resources=resources,
                Contents=out.make_stream("\n".join(ops).encode()),
            )
            if spec.trim is not None:
                page.TrimBox = _box(spec.trim)
            if spec.bleed is not None:
                page.BleedBox = _box(spec.bleed)
            out.pages.append(pikepdf.Page(page))
        buffer = io.BytesIO()
        # The /ID from the content, not the clock: the same cards give the same bytes.
        out.save(
            buffer, object_stream_mode=pikepdf.ObjectStreamMode.generate, deterministic_id=True
        )
        return buffer.getvalue()
    finally:
        out.close()
        for source in keep:
            source.close()
