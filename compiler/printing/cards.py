"""Cards rendered through the sandbox into face HTML: a card's face, a deck's back, the design.

Print lays these out; the report shows the same faces in a browser.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from secrets import token_hex
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from compiler.build import CheckedPack
from compiler.ir import Card
from compiler.printing.art import IMAGE_SUFFIXES, art_for, art_image, data_url, too_much_art
from compiler.printing.faces import (
    MAX_TEMPLATE_BYTES,
    TemplateProblem,
    design_css,
    design_folders,
    environment,
    face_data,
    pack_file,
    render,
    template_names,
)
from compiler.printing.fit import FIT_STEPS, no_room_for_art
from compiler.printing.layout import Face
from compiler.printing.pdf import MAX_RESOURCE_BYTES
from compiler.printing.sizes import PrintOptions
from dsl.spans import Diagnostic

MAX_ART_CHARS = 256 * 2**20
"""The art one print holds, in all (E0713): in print each picture's bytes once, however many
faces show it; in the report's faces, which carry `data:` URLs, each face's copy."""

BACK_IMAGE_SUFFIXES = IMAGE_SUFFIXES
"""A pack's `templates/back-<deck>.png` (or `back.png`, …) is printed as the back, full bleed."""


@dataclass
class CardRenderer:
    """Renders faces and backs once per card, through the sandbox."""

    checked: CheckedPack
    options: PrintOptions
    # The report's faces carry their pictures as `data:` URLs (a browser shows them as they
    # are); print's name each by a short URL its layout fetches (`pdf.IMAGES`).
    inline_art: bool = True
    title: str = field(init=False)
    env: ImmutableSandboxedEnvironment = field(init=False)
    _backs: dict[str, Face] = field(init=False, default_factory=dict)
    _art: dict[str, str | None] = field(init=False, default_factory=dict)  # name -> data URL
    # What a template gets as `card.art`, put in place of the picture's `data:` URL once it
    # has rendered: a URL of megabytes would count against the template's output, and no
    # card text can spell a token drawn afresh for each print.
    _art_token: str = field(init=False, default_factory=lambda: f"pillbox-art-{token_hex(8)}")
    _art_chars: int = field(init=False, default=0)  # of the faces' `data:` URLs, in all
    _art_counted: set[str] = field(init=False, default_factory=set)  # a face drawn again: once
    _art_unseen: dict[str, int] = field(init=False, default_factory=dict)  # URL -> bytes, once
    # W0711 for each card printed without its art, its text taking the room (by its place).
    no_room_for_art: dict[tuple[Any, ...], Diagnostic] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.title = self.checked.title or self.checked.name
        ruleset = self.checked.ruleset
        decks = [*ruleset.decks, *ruleset.kinds]
        folder = self.checked.root / "templates" if self.checked.root else None
        designs = design_folders(ruleset)
        self.env = environment(folder, template_names(list(ruleset.kinds), decks), designs)

    def has(self, name: str) -> bool:
        """Whether the pack or the tool has a template of this name.

        It is not compiled here: compiling runs its constant expressions, so only `render`
        compiles, under its limits, and reports what goes wrong at the template's line.
        """
        loader = self.env.loader
        assert loader is not None
        try:
            loader.get_source(self.env, name)
        except jinja2.TemplateNotFound:
            return False
        return True

    def template_for(self, kind: str) -> str:
        """The kind's own template if there is one, else the generic card."""
        return f"{kind}.html" if self.has(f"{kind}.html") else "card.html"

    def face(self, card: Card, key: str, smallest: bool = False) -> tuple[Face, bool, bool]:
        """A card's face, and whether its text overflows even when shrunk."""
        art = self.art(card)
        if art and key not in self._art_counted:
            self._art_counted.add(key)
            # Inline, each face holds its own copy; by URL, each picture is held once.
            self._art_chars += len(art) if self.inline_art else self._art_unseen.pop(art, 0)
            if self._art_chars > MAX_ART_CHARS:
                raise TemplateProblem(too_much_art(card, MAX_ART_CHARS))
        token = self._art_token if art else None
        data = face_data(self.checked.ruleset, card, self.options, self.title, smallest, token)
        html = render(self.env, self.template_for(card["kind"]), {"card": data.context})
        if art:
            html = html.replace(self._art_token, art)
        if data.art_dropped:
            self.no_room_for_art[(card["file"], *card["at"])] = no_room_for_art(card)
        return Face(html, card["kind"], key), data.overflow, data.fit == len(FIT_STEPS) - 1

    def art(self, card: Card) -> str | None:
        """The card's picture as a URL (`data:`, or print's `pillbox-image:`), if it has one
        print draws.

        Print and the report show the same bytes, and WeasyPrint names an image in the PDF by
        its URL: from the bytes, the same pack prints the same PDF wherever its folder is.
        """
        written = art_for(card, self.checked.print_settings)
        if not written or self.checked.root is None:
            return None
        if written not in self._art:
            if self.inline_art:
                self._art[written] = data_url(self.checked.root, written)
            else:
                found = art_image(self.checked.root, written)
                self._art[written] = found[0] if found else None
                if found:
                    self._art_unseen[found[0]] = found[1]
        return self._art[written]

    def back(self, card: Card) -> Face:
        """The back of a card: the pack's for its deck (template, else image), else the pack's
        common back (template, else image), else the bundled one."""
        deck = self.deck(card)
        if deck not in self._backs:  # a back depends on its deck alone
            self._backs[deck] = self._back_of(deck)
        return self._backs[deck]

    def deck(self, card: Card) -> str:
        """The deck a card belongs to: its kind's `deck:`, else its kind."""
        kind = self.checked.ruleset.kinds.get(card["kind"])
        return (kind.deck if kind is not None else None) or str(card["kind"])

    def _back_of(self, deck: str) -> Face:
        for stem in (f"back-{deck}", "back"):
            if self._pack_file(f"{stem}.html", MAX_TEMPLATE_BYTES, "template"):
                return self._back_template(f"{stem}.html", deck)
            for suffix in BACK_IMAGE_SUFFIXES:
                if self._pack_file(stem + suffix, MAX_RESOURCE_BYTES, "back image"):
                    return Face("", "back", image=f"templates/{stem}{suffix}")
        return self._back_template("back.html", deck)

    def _back_template(self, name: str, deck: str) -> Face:
        context = {"deck": deck, "deck_name": deck.replace("_", " ").title(), "pack": self.title}
        return Face(render(self.env, name, {"back": context}), "back")

    def _pack_file(self, name: str, limit: int, what: str) -> bool:
        return pack_file(self.env, name, limit, what) is not None

    def stylesheet(self) -> str:
        """The card design: the pack's `templates/cards.css`, else the bundled one (not run)
        with its game's colours of kinds and decks after it (`design/kinds.css`), then the
        stats' icon colours from the ruleset (after it, so that its `@import`s stay first; a
        design overrides them with `.icon.icon-<stat>`)."""
        loader = self.env.loader
        assert loader is not None
        source, _, _ = loader.get_source(self.env, "cards.css")
        if not self._pack_file("cards.css", MAX_TEMPLATE_BYTES, "template"):
            source += design_css(self.env)
        return f"{source}\n{stat_colours(self.checked.ruleset.data)}"


_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def stat_colours(data: Mapping[str, Any]) -> str:
    """The CSS of each stat's icon colour, as its ruleset gives it (`colour: "#b3261e"`): the
    schema lets through only six hex digits, and only names that are plain class names."""
    entries = [
        *(data.get("stats") or {}).items(),
        *(data.get("derived") or {}).items(),
        *(
            item
            for actor in (data.get("actors") or {}).values()
            for item in ((actor or {}).get("stats") or {}).items()
        ),
    ]
    rules: dict[str, str] = {}
    for name, entry in entries:
        colour = (entry or {}).get("colour")
        if (
            isinstance(colour, str)
            and _CLASS_NAME.match(name)
            and re.fullmatch(r"#[0-9a-fA-F]{6}", colour)
        ):
            rules.setdefault(name, f".icon.icon-{name} {{ background: {colour}; }}\n")
    return "".join(rules.values())
