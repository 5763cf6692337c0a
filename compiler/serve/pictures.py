"""The faces of `pillbox serve` as print lays them out: a PNG a face, only changed faces redone.

Each face is rendered through the print templates (`CardRenderer`), then looked up by what its
picture depends on (the design, the page geometry, the face's HTML, class and image). A face
seen before keeps its picture; the others are laid out as print lays them out (`LaidOut`,
which takes pages kept by the face cache of earlier prints and runs WeasyPrint, in capped
workers, only for the rest) and drawn as print draws its `--png` previews. The pictures are
files in one folder that the server alone writes, each named by its key.
"""

from __future__ import annotations

import hashlib
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from compiler.ir import Card
from compiler.printing.cards import CardRenderer
from compiler.printing.facecache import face_key
from compiler.printing.layout import face_css
from compiler.printing.pdf import pdf_to_pngs
from compiler.printing.sheets import LaidOut

DPI = 150
"""As `print --png` draws its previews by default."""

PICTURE_NAME = re.compile(r"[0-9a-f]{64}\.png")
"""The only names a picture has: what `/faces/<name>` may ask for."""


class Pictures:
    """The face pictures drawn so far, in `folder`, by key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.redrawn = 0  # faces the latest draw laid out (or took from the face cache)

    def draw(
        self, renderer: CardRenderer, cards: Sequence[Card], lay_out: bool = True
    ) -> list[str | None] | None:
        """Each card's picture file name, laying out only faces not drawn before (None for
        each of those when not `lay_out`); None when the layout refused a file, as print
        would (TemplateProblem if a template or the layout fails)."""
        options = renderer.options
        stylesheet = renderer.stylesheet()
        fetched = pack_files(renderer.checked.root) if renderer.checked.root else ""
        design = f"{stylesheet}\0{face_css(options)}\0{DPI}\0{fetched}"
        rendered = [renderer.face(card, str(index)) for index, card in enumerate(cards)]
        faces = [face for face, _, _ in rendered]
        names: list[str | None] = [face_key(design, face) + ".png" for face in faces]
        missing = [
            index for index, name in enumerate(names) if not (self.folder / str(name)).is_file()
        ]
        self.redrawn = len(missing) if lay_out else 0
        if not missing:
            return names
        if not lay_out:
            return [None if index in missing else name for index, name in enumerate(names)]
        laid = LaidOut(renderer.checked, options, stylesheet, single_pages=True)
        try:
            laid.add([faces[index] for index in missing], None)
            # As print does: text the page cut off at the estimated size gets one more try
            # at the smallest (the picture is still named by the face as first rendered).
            again = sorted(i for i in laid.clipped(missing) if not rendered[i][2])
            if again:
                redone = [renderer.face(cards[i], str(i), smallest=True)[0] for i in again]
                laid.add(redone, None, [missing.index(i) for i in again])
        finally:
            laid.save_cache()
        if laid.refused:
            return None
        targets = [(self.folder / str(names[i]), self.folder / str(names[i])) for i in missing]
        pdf_to_pngs(laid.data, laid.where, targets, DPI, options.bleed)
        return names


NOT_DRAWN = (".card", ".card-template", ".csv", ".xlsx", ".yaml", ".yml", ".json", ".md")
"""Files of a pack no face fetches: a face's own text is in its key already."""

MAX_FILES = 10_000
"""Files of a pack looked at for the pictures' key; past it, the rest are not."""


def pack_files(root: Path) -> str:
    """The name, size and time of every pack file a face may fetch (a font, an image of a
    template's stylesheet), hashed: an edited one draws every picture again."""
    digest = hashlib.sha256()
    for count, path in enumerate(sorted(root.rglob("*"))):
        if count >= MAX_FILES:
            break
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
        if path.suffix in NOT_DRAWN or hidden:
            continue
        try:
            status = path.stat()
        except OSError:  # gone meanwhile, or a link that loops
            continue
        if not stat.S_ISREG(status.st_mode):
            continue  # a folder's time changes with any file saved in it
        digest.update(f"{path}\0{status.st_size}\0{status.st_mtime_ns}\n".encode(errors="replace"))
    return digest.hexdigest()
