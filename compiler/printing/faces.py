"""Card faces: the words of each card (from the rules text) rendered by jinja2 templates.

Templates are untrusted when a pack gives them: they run in an immutable sandbox with
autoescape and strict undefined, read only files of fixed names from the pack's `templates/`
folder (never through a link out of it), are stopped after a few seconds, a megabyte of output
or half a gigabyte of memory (and `*`, `**` are checked before they make a huge value), and
their errors become diagnostics at the template's file and line. Pack data is never marked
safe: the template gets text cut into segments (plain words, narration, stat icons) and escapes
every one.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from compiler.ir import Card
from compiler.pack import display_path, hard_linked
from compiler.printing.fit import (
    CHARS_PER_MM2,
    FIT_STEPS,
    ROOMY_SHARE,
    art_share,
    fit_step,
    notes_text,
    overflows,
    printed_text,
    text_area,
)
from compiler.printing.sizes import PrintOptions
from compiler.printing.workers import cap_address_space
from compiler.ruleset import Ruleset, bundled_lineage, bundled_path
from compiler.signals import raising
from dsl.spans import Diagnostic, Span

MAX_TEMPLATE_BYTES = 256 * 1024
MAX_OUTPUT_CHARS = 1_000_000
RENDER_SECONDS = 5.0
"""A template that renders longer than this (a loop inside a loop...) is stopped."""

BUNDLED = "compiler.printing"

DESIGN = "design"
"""A bundled game's own card design, `content/<game>/design/`: templates by the names a pack's
`templates/` may use (a kind's face, `_motifs.html`), and `kinds.css`, the colours of its kinds
and decks, added after pillbox's generic `cards.css`. Every pack whose ruleset is made of that
game prints with it, beneath the pack's own templates; the generic templates know no game."""

DESIGN_CSS = "kinds.css"


def template_names(kinds: Sequence[str], decks: Sequence[str]) -> set[str]:
    """The only names a template may have: the tool decides them, never the pack."""
    names = {"card.html", "back.html", "cards.css", "_macros.html", "_motifs.html"}
    names |= {f"{kind}.html" for kind in kinds}
    names |= {f"back-{deck}.html" for deck in decks}
    return names


class TemplateProblem(Exception):
    """A template that cannot be loaded or rendered; carries its diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def design_folders(ruleset: Ruleset) -> list[Path]:
    """The card designs of the bundled games a ruleset is made of, the nearest first."""
    found = []
    for name in bundled_lineage(ruleset):
        path = bundled_path(name)
        if path is not None and (path.parent / DESIGN).is_dir():
            found.append(path.parent / DESIGN)
    return found


class _Loader(jinja2.BaseLoader):
    """Pack templates first (regular files of allowed names inside the folder), then the
    designs of the ruleset's bundled games, then pillbox's generic ones."""

    def __init__(
        self, pack_folder: Path | None, allowed: set[str], designs: Sequence[Path] = ()
    ) -> None:
        self.designs = tuple(designs)
        self.folder: Path | None = None
        if pack_folder is not None:
            folder = pack_folder.resolve()
            # A `templates` that links out of the pack is no pack folder: the bundled ones serve.
            if folder.is_relative_to(pack_folder.parent.resolve()):
                self.folder = folder
        self.allowed = allowed

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        """The text of an allowed template, from the pack when it has one."""
        if template not in self.allowed or "/" in template or "\\" in template:
            raise jinja2.TemplateNotFound(template)
        own = self.pack_source(template)
        if own is not None:
            return *own, lambda: True
        for design in self.designs:
            if (design / template).is_file():
                shown = f"<pillbox>/{design.parent.name}/{DESIGN}/{template}"
                return (design / template).read_text(encoding="utf-8"), shown, lambda: True
        bundled = resources.files(BUNDLED).joinpath("templates", template)
        if not bundled.is_file():
            raise jinja2.TemplateNotFound(template)
        return bundled.read_text(encoding="utf-8"), f"<pillbox>/templates/{template}", lambda: True

    def design_css(self) -> str:
        """The designs' own styles (`kinds.css`), the farthest game's first, so that the nearer
        game's come after and win."""
        sheets = (design / DESIGN_CSS for design in reversed(self.designs))
        return "".join(sheet.read_text(encoding="utf-8") for sheet in sheets if sheet.is_file())

    def pack_source(self, name: str) -> tuple[str, str] | None:
        """The text of the pack's own template of this name and its path as shown, if it has
        one (TemplateProblem for a hard link or a file too large)."""
        path = self.pack_file(name, MAX_TEMPLATE_BYTES, "template")
        if path is None:
            return None
        return path.read_text(encoding="utf-8", errors="replace"), display_path(path)

    def pack_file(self, name: str, limit: int, what: str) -> Path | None:
        """The pack's own file of this name in its templates folder, if it has a safe one.

        Raises TemplateProblem for a hard link (it may be a file outside the pack) or a file
        over `limit` bytes.
        """
        if self.folder is None or "/" in name or "\\" in name:
            return None
        path = (self.folder / name).resolve()
        if not path.is_relative_to(self.folder) or not path.is_file():
            return None
        shown = display_path(path)
        if hard_linked(path):
            raise _problem(
                shown, 1, f"{what} {name} is a hard link: it may be a file outside the pack"
            )
        if path.stat().st_size > limit:
            raise _problem(shown, 1, f"{what} {name} is over {_size(limit)}")
        return path


def pack_file(env: jinja2.Environment, name: str, limit: int, what: str) -> Path | None:
    """The pack's own file of this name in its templates folder, if it has a safe one."""
    loader = env.loader
    return loader.pack_file(name, limit, what) if isinstance(loader, _Loader) else None


def design_css(env: jinja2.Environment) -> str:
    """The styles of the ruleset's games' designs, to follow the generic `cards.css`."""
    loader = env.loader
    return loader.design_css() if isinstance(loader, _Loader) else ""


def pack_templates(env: jinja2.Environment) -> Iterator[tuple[str, str]]:
    """The text and shown path of each of the pack's own templates (cards.css too), as the
    sandbox reads them; a file it would refuse, or cannot read, is left out."""
    loader = env.loader
    if not isinstance(loader, _Loader):
        return
    for name in sorted(loader.allowed):
        try:
            own = loader.pack_source(name)
        except (TemplateProblem, OSError):
            continue
        if own is not None:
            yield own


def _size(limit: int) -> str:
    return f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit // 2**10} KB"


MAX_NUMBER_BITS = 4096
"""`*` and `**` may not make a number longer than this: big numbers take time no deadline stops."""


class _Sandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, with `*` and `**` checked before they run, never at compile time.

    `9**9**9` or `'x' * 10**10` would otherwise run for minutes inside one C call, where the
    deadline cannot stop them, or fill the memory.
    """

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any
    ) -> Any:
        """`left operator right`, unless its result would be too large to make."""
        if _too_large(operator, left, right):
            raise SecurityError(f"{operator!r} would make a value too large for a card")
        return super().call_binop(context, operator, left, right)


def _too_large(operator: str, left: Any, right: Any) -> bool:
    def bits(value: Any) -> int:
        return abs(value).bit_length() if isinstance(value, int) else 0

    if operator == "**":
        return isinstance(right, int) and bits(left) * max(right, 0) > MAX_NUMBER_BITS
    for times, sized in ((left, right), (right, left)):
        if isinstance(times, int) and isinstance(sized, str | list | tuple):
            return len(sized) * times > MAX_OUTPUT_CHARS
    return bits(left) + bits(right) > MAX_NUMBER_BITS


def environment(
    pack_folder: Path | None, allowed: set[str], designs: Sequence[Path] = ()
) -> ImmutableSandboxedEnvironment:
    """The sandbox every template runs in."""
    return _Sandbox(
        loader=_Loader(pack_folder, allowed, designs),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
    )


@contextmanager
def _deadline(seconds: float, error: type[BaseException] = TimeoutError) -> Iterator[None]:
    """Interrupt the block after `seconds` by raising `error` in it (main thread only; elsewhere
    output caps suffice). Code that catches OSError or Exception would swallow TimeoutError:
    give a BaseException there."""
    with raising(signal.SIGALRM, error) as armed:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            if armed:
                signal.setitimer(signal.ITIMER_REAL, 0)


MEMORY_MB = 512
"""A template may take this much more memory while it renders (where the OS lets us say so)."""


@contextmanager
def _memory_cap() -> Iterator[None]:
    """Let the block allocate MEMORY_MB more at most, else MemoryError (Linux; elsewhere not).

    The output cap and the deadline do not stop a value that doubles in a loop (`x ~ x`): it
    fills gigabytes in well under a second.
    """
    import resource

    limits = cap_address_space(MEMORY_MB)
    try:
        yield
    finally:
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, limits[:2])


def render(env: ImmutableSandboxedEnvironment, name: str, context: dict[str, Any]) -> str:
    """Render one template; any failure is a TemplateProblem at its file and line."""
    shown = name
    try:
        out: list[str] = []
        size = 0
        with _deadline(RENDER_SECONDS), _memory_cap():
            template = env.get_template(name)  # compiling too: jinja2 folds constants then
            shown = template.filename or name
            for chunk in template.generate(**context):
                size += len(chunk)
                if size > MAX_OUTPUT_CHARS:
                    raise _TooLong
                out.append(chunk)
        return "".join(out)
    except jinja2.TemplateSyntaxError as error:
        problem = _problem(
            error.filename or shown, error.lineno, f"template syntax: {error.message}"
        )
    except _TooLong:
        problem = _problem(shown, 1, f"template {name} wrote over {MAX_OUTPUT_CHARS:,} characters")
    except (TimeoutError, MemoryError, RecursionError) as error:
        stopped = {
            TimeoutError: f"ran longer than {RENDER_SECONDS:g} s",
            MemoryError: f"needed more than {MEMORY_MB} MB",
        }.get(type(error), "calls itself too deeply")
        problem = _problem(*_template_place(error, shown), f"template {name} {stopped}")
    except jinja2.TemplateNotFound as error:
        problem = _problem(shown, 1, f"template {error.name} cannot be read")
    except (jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError) as error:
        problem = _problem(*_template_place(error, shown), f"template {name}: {error}")
    raise problem


class _TooLong(Exception):
    pass


def _template_place(error: BaseException, filename: str) -> tuple[str, int]:
    """The template file and line where rendering failed, innermost first (a macro of an
    imported template counts): jinja2 maps its frames to template lines."""
    place = (filename, 1)
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename or "__jinja_exception__" in tb.tb_frame.f_globals:
            place = (code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return place


def _problem(file: str, line: int | None, message: str) -> TemplateProblem:
    line = line or 1
    return TemplateProblem(
        Diagnostic(
            "E0701",
            "error",
            message,
            Span(file, line, 1, line, 2),
            "pack templates may use the card's fields (see docs) but no Python",
        )
    )


# ---------------------------------------------------------------- the words of a card


@dataclass
class _Words:
    """Cuts printed text into segments a template can show: plain, narration, icons."""

    narration: set[str]
    icons: dict[str, str]  # display name (Health) -> icon name (health)
    _icon_re: re.Pattern[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.icons:
            names = sorted(self.icons, key=len, reverse=True)
            self._icon_re = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")

    def lines(self, text: str) -> list[dict[str, Any]]:
        """One entry per printed line: its indent and its segments."""
        out = []
        for raw in text.split("\n"):
            stripped = raw.lstrip(" ")
            out.append({"indent": (len(raw) - len(stripped)) // 2, "parts": self.parts(stripped)})
        return out

    def parts(self, text: str) -> list[dict[str, str]]:
        """A line's segments, narration first, then stat names as icons in the rest."""
        pieces: list[dict[str, str]] = [{"style": "plain", "text": text}]
        for said in sorted(self.narration, key=len, reverse=True):
            pieces = [p for piece in pieces for p in _split(piece, said)]
        out: list[dict[str, str]] = []
        for piece in pieces:
            if piece["style"] != "plain" or self._icon_re is None:
                out.append(piece)
                continue
            position = 0
            for found in self._icon_re.finditer(piece["text"]):
                if found.start() > position:
                    out.append({"style": "plain", "text": piece["text"][position : found.start()]})
                out.append(
                    {"style": "icon", "icon": self.icons[found.group(1)], "text": found.group(1)}
                )
                position = found.end()
            if position < len(piece["text"]):
                out.append({"style": "plain", "text": piece["text"][position:]})
        return _lead_spaces([p for p in out if p["text"]])


def _lead_spaces(parts: list[dict[str, str]]) -> list[dict[str, str]]:
    """Move the space before a styled segment into it, as its `lead`.

    WeasyPrint breaks a line at its first opportunity, leaving one word alone ("If"), when an
    inline element starts right after a space at the end of a full line; a space inside the
    element breaks where it should.
    """
    for part in parts:
        part["lead"] = ""
    for before, part in pairwise(parts):
        if part["style"] != "plain" and before["style"] == "plain" and before["text"][-1:] == " ":
            before["text"] = before["text"][:-1]
            part["lead"] = " "
    return [p for p in parts if p["text"]]


def _split(piece: dict[str, str], said: str) -> list[dict[str, str]]:
    if piece["style"] != "plain" or not said or said not in piece["text"]:
        return [piece]
    before, _, after = piece["text"].partition(said)
    return [
        {"style": "plain", "text": before},
        {"style": "say", "text": said},
        *_split({"style": "plain", "text": after}, said),
    ]


def _said(effects: Any) -> Iterator[str]:
    """Every `say` text anywhere in an IR tree."""
    if isinstance(effects, dict):
        if isinstance(effects.get("say"), str):
            yield effects["say"]
        for value in effects.values():
            yield from _said(value)
    elif isinstance(effects, list):
        for value in effects:
            yield from _said(value)


@dataclass(frozen=True)
class FaceData:
    """What a face template gets as `card`, and whether the text needed shrinking."""

    context: dict[str, Any]
    fit: int  # index into FIT_STEPS
    overflow: bool  # still too long at the smallest step
    art_dropped: bool = False  # the text left no room for the card's art


def _marks(ruleset: Ruleset, card: Card, names: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of boxes a card prints to mark in play: as many as a number property says
    (durability), or a token kind's counter, numbered (a cooldown)."""
    shown: dict[str, str] = (ruleset.data.get("wording") or {}).get("names") or {}
    properties = card.get("properties") or {}
    rows = []
    for name in names:
        label = shown.get(name, name.replace("_", " ").capitalize())
        value = properties.get(name)
        track = ruleset.world.tracks.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            rows.append({"label": label, "boxes": [""] * min(value, MAX_MARKS)})
        elif track is not None and name not in properties:
            top = min(track.high, track.low + MAX_MARKS)
            rows.append({"label": label, "boxes": [str(n) for n in range(track.low + 1, top + 1)]})
    return rows


MAX_MARKS = 20
"""The most boxes a row prints: a card is no tally sheet."""


def face_data(
    ruleset: Ruleset,
    card: Card,
    options: PrintOptions,
    pack_title: str,
    smallest: bool = False,
    art: str | None = None,
) -> FaceData:
    """The fields a face template prints, built from the rules text of the card; `art`, the
    URL of the picture it prints, if any."""
    text = printed_text(ruleset, card)
    printed, narrated, shown, facts = text.printed, text.narrated, text.shown, text.facts
    names: dict[str, str] = (ruleset.data.get("wording") or {}).get("names") or {}
    icons = {shown: stat for stat, shown in names.items() if stat in ruleset.stat_names}
    words = _Words(set(_said([card.get("options"), card.get("blocks")])), icons)
    kind = ruleset.kinds.get(card["kind"])
    marks = kind.marks if kind is not None else ()
    notes = [words.parts(note) for note in notes_text(shown)]
    options_ = [{"title": t, "lines": words.lines(body)} for t, body in printed.options]
    blocks = [{"header": h, "lines": words.lines(body)} for h, body in printed.blocks]
    size = (options.width, options.height)
    share = art_share(text.length, *size) if art else 0.0
    fit = fit_step(text.length, *size, share)
    if smallest:  # the laid-out page cut this card's text at the estimated size
        fit = len(FIT_STEPS) - 1
    overflow = overflows(text.length, *size, share)
    # Little text (a weapon's tags, a coat's one line): larger type, and the card's motif in
    # the room left below it (if no art fills it), so the card does not read as half empty.
    area = text_area(*size, share)
    roomy = not smallest and text.length <= area * CHARS_PER_MM2 * ROOMY_SHARE
    kind_of_item = (card.get("properties") or {}).get("type")
    context = {
        "kind": card["kind"],
        "kind_name": card["kind"].replace("_", " ").title(),
        "title": card["title"],
        "variant": card.get("variant"),
        "deck": kind.deck if kind is not None else None,
        "facts": facts,
        "marks": _marks(ruleset, card, marks),
        "notes": notes,
        "narrated": words.parts(narrated) if narrated else None,
        "options": options_,
        "blocks": blocks,
        "rules": [words.parts(rule) for rule in printed.rules],
        "flavour": list(printed.flavour),
        "fit": fit,
        "scale": FIT_STEPS[fit],
        "roomy": roomy,
        "art": art if share else None,
        "art_height": f"{share * options.height:.2f}mm",
        "motif": kind_of_item if isinstance(kind_of_item, str) else card["kind"],
        "pack": pack_title,
    }
    return FaceData(context, fit, overflow, art_dropped=bool(art) and not share)
