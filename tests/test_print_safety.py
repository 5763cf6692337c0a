"""Hostile packs cannot escape `pillbox print`: every one is refused with a diagnostic.

Pack templates run in a sandbox and WeasyPrint behind a fence; whatever a pack tries, the
command exits 1 with a diagnostic (no traceback), the previous PDF stays as it was, and no file
outside the pack is opened. Pack data is text, never markup.
"""

from __future__ import annotations

import builtins
import io
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest

from compiler.printing.faces import _Loader, template_names
from tests.helpers import make_pack, run

SCALPEL = 'item "Scalpel" {\n    type weapon\n    hands 1\n    attack +1\n    damage 1\n}\n'
PREVIOUS = b"%PDF-1.7 the previous print"
MARKER = "OUTSIDE-THE-PACK-5d41402a"

Opened = Callable[[], list[str]]
"""The files outside the pack that were opened so far."""


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the pack, next to it, that no print may read."""
    path = tmp_path / "secret.html"
    path.write_text(f"<p>{MARKER}</p>\n")
    return path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, secret: Path, tmp_path: Path) -> Iterator[Opened]:
    """Every attempt to open the secret, /etc/passwd or /etc/shadow, however it is named, in
    this process or the print's workers (forks: they have the spy too, and log to a file)."""
    watched = {secret.resolve(), Path("/etc/passwd").resolve(), Path("/etc/shadow").resolve()}
    log = tmp_path / "opened.log"
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | os.PathLike) and Path(file).resolve() in watched:
            handle = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(handle, f"{file}\n".encode())
            os.close(handle)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    yield lambda: log.read_text().splitlines() if log.exists() else []


def hostile(tmp_path: Path, templates: dict[str, str], cards: str = SCALPEL) -> Path:
    """A one-card pack in tmp_path/pack whose templates/ folder holds the given files."""
    pack = make_pack(tmp_path / "pack", cards=cards)
    folder = pack / "templates"
    folder.mkdir(exist_ok=True)
    for name, text in templates.items():
        (folder / name).write_text(text)
    return pack


def refused(tmp_path: Path, pack: Path, *args: str, stage: str = "nothing written") -> str:
    """Print the pack over a previous PDF: it must fail cleanly and leave that PDF alone."""
    out = tmp_path / "out.pdf"
    out.write_bytes(PREVIOUS)
    code, output = run("print", str(pack), "-o", str(out), *args)
    assert code == 1, output
    assert "Traceback" not in output and "internal error" not in output
    assert stage in output
    assert out.read_bytes() == PREVIOUS
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    return output


def printed(tmp_path: Path, pack: Path, *args: str) -> str:
    """Print the pack; it must succeed. The text of its first page."""
    import pypdfium2 as pdfium

    out = tmp_path / "out.pdf"
    code, output = run("print", str(pack), "-o", str(out), *args)
    assert code == 0, output
    document = pdfium.PdfDocument(out)
    try:
        return str(document[0].get_textpage().get_text_range())
    finally:
        document.close()


# --- the sandbox: no Python, no undefined names, errors at the template's line ------------


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        (
            "card.html",
            "<p>\n{{ ''.__class__.__mro__ }}</p>",
            2,
            "'__class__' of 'str' object is unsafe",
        ),
        ("item.html", "<p>\n\n{{ cycler.__init__.__globals__ }}", 3, "'__init__'"),
        ("card.html", "{{ card.__class__ }}", 1, "'__class__' of 'dict' object is unsafe"),
        ("card.html", "{{ card.title }}\n{{ card|attr('__class__') }}", 2, "unsafe"),
        (
            "card.html",
            "<h1>{{ card.title }}</h1>\n<p>{{ card.titel }}</p>",
            2,
            "no attribute 'titel'",
        ),
        ("card.html", "a\nb\n{% for x in %}\n{% endfor %}", 3, "template syntax"),
        ("_macros.html", "{% macro parts(s) %}\n{{ s.nope }}{% endmacro %}", 2, "has no attribute"),
        ("card.html", "{{ '{0.__class__}'.format(card) }}", 1, "unsafe"),
    ],
    ids=[
        "str-mro",
        "cycler-globals",
        "card-class",
        "attr-filter",
        "titel",
        "syntax",
        "macros",
        "format",
    ],
)
def test_template_reaching_python_or_undefined_is_E0701_at_its_line(
    tmp_path: Path, name: str, text: str, line: int, message: str
) -> None:
    if name == "_macros.html":  # only reached through a face that uses it
        pack = hostile(
            tmp_path,
            {name: text, "card.html": '{% import "_macros.html" as m %}{{ m.parts(card) }}'},
        )
    else:
        pack = hostile(tmp_path, {name: text})
    output = refused(tmp_path, pack)
    assert f"templates/{name}:{line}:1: error[E0701]" in output
    assert message in output


def test_a_broken_back_template_is_a_diagnostic_too(tmp_path: Path) -> None:
    pack = hostile(tmp_path, {"back.html": "<div>\n{% if %}</div>"})
    output = refused(tmp_path, pack, "--backs", "duplex")
    assert "templates/back.html:2:1: error[E0701]: template syntax" in output


def test_a_huge_loop_is_stopped_by_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("compiler.printing.faces.RENDER_SECONDS", 0.5)
    loop = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    pack = hostile(tmp_path, {"card.html": "<p>\n" + loop})
    started = time.monotonic()
    output = refused(tmp_path, pack)
    assert time.monotonic() - started < 5
    assert "templates/card.html:2:1: error[E0701]: template card.html ran longer than 0.5 s" in (
        output
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{% for i in range(100000) %}0123456789A{% endfor %}", "wrote over 1,000,000 characters"),
        ("{{ ('x' * 10**10)[:1] }}", "'*' would make a value too large"),
        ("{{ 10**1000000 }}", "'**' would make a value too large"),  # folded when compiled
        (
            "{% set n = namespace(x=3) %}{% for i in range(99) %}{% set n.x = n.x * n.x %}"
            "{% endfor %}{{ n.x > 1 }}",
            "'*' would make a value too large",
        ),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "calls itself too deeply"),
    ],
    ids=["output", "repeat", "power", "squaring", "recursion"],
)
def test_templates_that_would_fill_memory_or_the_cpu_are_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    pack = hostile(tmp_path, {"item.html": text})
    output = refused(tmp_path, pack)
    assert "templates/item.html:1:1: error[E0701]" in output
    assert message in output


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the memory cap needs Linux")
def test_a_value_built_in_one_call_past_the_memory_cap_is_refused(tmp_path: Path) -> None:
    pack = hostile(tmp_path, {"card.html": "{{ ('x'|center(2 * 10**9))[:1] }}"})
    output = refused(tmp_path, pack)
    assert "error[E0701]: template card.html needed more than 512 MB" in output


def test_layout_too_complex_for_weasyprint_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nested columns take WeasyPrint time exponential in their depth: six levels, a minute.
    monkeypatch.setattr("compiler.printing.sheets.LAYOUT_SECONDS", 0.5)
    monkeypatch.setattr("compiler.printing.sheets.LAYOUT_SECONDS_PER_FACE", 0.0)
    nested = "<div>" * 8 + "{{ card.title }}" + "</div>" * 8
    pack = hostile(tmp_path, {"card.html": nested, "cards.css": "div { columns: 2 }"})
    started = time.monotonic()
    output = refused(tmp_path, pack)
    assert time.monotonic() - started < 5
    assert "error[E0701]: laying out the cards took longer than 0.5 s" in output


def test_html_nested_deeper_than_weasyprint_can_follow_is_refused(tmp_path: Path) -> None:
    pack = hostile(tmp_path, {"card.html": "{% for i in range(400) %}<div>{% endfor %}x"})
    output = refused(tmp_path, pack)
    assert "error[E0701]: laying out the cards is nested too deeply" in output


def test_an_oversized_template_is_a_diagnostic(tmp_path: Path) -> None:
    pack = hostile(tmp_path, {"cards.css": "/* padding */\n" * 20000})
    output = refused(tmp_path, pack)
    assert "templates/cards.css:1:1: error[E0701]: template cards.css is over 256 KB" in output


# --- the fence: nothing outside the pack is read ------------------------------------------


# Each a way for a template or the stylesheet to ask for a file or the network, and the URL the
# refusal names. They all go in one pack: each is refused on its own, and the spy sees them all.
IN_HTML = [
    ('<img src="file:///etc/passwd">', "file:///etc/passwd"),
    ('<img src="{secret}">', "{secret}"),
    ('<img src="../secret.html">', "{secret}"),
    ('<link rel="stylesheet" href="{secret}">', "{secret}"),
    ('<a rel="attachment" href="{secret}">x</a>', "{secret}"),
    ('<svg width="9" height="9"><image href="{secret}" width="9" height="9"/></svg>', "{secret}"),
    ('<object data="file://localhost/etc/passwd"></object>', "file://localhost/etc/passwd"),
    ('<img src="http://127.0.0.1:9/x.png">', "http://127.0.0.1:9/x.png"),
]
IN_CSS = [
    ("@import url(https://example.com/evil.css);", "https://example.com/evil.css"),
    (".trim { background: url(file:///etc/shadow) }", "file:///etc/shadow"),
    ("body { background: url(http://127.0.0.1:9/y.png) }", "http://127.0.0.1:9/y.png"),
    (
        "@font-face { font-family: x; src: url({secret}#font) } .trim { font-family: x }",
        "{secret}#font",
    ),
]


def test_resources_outside_the_pack_are_refused_unread(
    tmp_path: Path, secret: Path, opened: Opened
) -> None:
    uri = secret.as_uri()
    html = "{{ card.title }}" + "".join(text for text, _ in IN_HTML)
    css = "\n".join(text for text, _ in IN_CSS)
    pack = hostile(
        tmp_path,
        {"card.html": html.replace("{secret}", uri), "cards.css": css.replace("{secret}", uri)},
    )
    output = refused(tmp_path, pack)
    urls = {url.replace("{secret}", uri) for _, url in IN_HTML + IN_CSS}
    for url in urls:
        assert f"error[E0702]: a template asks for {url!r}, outside the pack folder" in output
    assert output.count("error[E0702]") == len(urls)
    assert opened() == []


def test_a_file_linked_from_inside_the_pack_to_outside_is_refused(
    tmp_path: Path, secret: Path, opened: Opened
) -> None:
    pack = hostile(tmp_path, {"card.html": '<img src="picture.png">{{ card.title }}'})
    (pack / "picture.png").symlink_to(secret)
    output = refused(tmp_path, pack)
    assert "error[E0702]" in output and "picture.png" in output
    assert opened() == []


def test_a_hard_link_to_a_file_outside_the_pack_is_refused(
    tmp_path: Path, secret: Path, opened: Opened
) -> None:
    """An unpacked archive can hard-link a pack file to one outside; no path check sees it."""
    pack = hostile(tmp_path, {"card.html": '<img src="picture.png">{{ card.title }}'})
    os.link(secret, pack / "picture.png")
    output = refused(tmp_path, pack)
    assert "error[E0702]" in output and "picture.png" in output
    (pack / "picture.png").unlink()
    os.link(secret, pack / "templates" / "item.html")
    output = refused(tmp_path, pack)
    assert "error[E0701]" in output and "is a hard link" in output
    assert MARKER not in output


def test_a_template_linked_to_outside_the_pack_is_never_read(
    tmp_path: Path, secret: Path, opened: Opened
) -> None:
    pack = hostile(tmp_path, {})
    (pack / "templates" / "card.html").symlink_to(secret)
    text = printed(tmp_path, pack)
    assert "Scalpel" in text and MARKER not in text  # the bundled card.html printed it
    assert opened() == []


def test_a_templates_folder_linked_to_outside_the_pack_is_never_read(
    tmp_path: Path, secret: Path, opened: Opened
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "card.html").write_text(f"<p>{MARKER}</p>")
    (outside / "item.html").symlink_to(secret)
    pack = make_pack(tmp_path / "pack", cards=SCALPEL)
    (pack / "templates").symlink_to(outside, target_is_directory=True)
    text = printed(tmp_path, pack)
    assert "Scalpel" in text and MARKER not in text
    assert opened() == []


def test_a_stylesheet_cannot_close_its_style_element(tmp_path: Path, opened: Opened) -> None:
    css = '.card { color: #123 }\n</style><img src="file:///etc/passwd"><style>'
    text = printed(tmp_path, hostile(tmp_path, {"cards.css": css}))
    assert "Scalpel" in text
    assert opened() == []


# --- pack data is text ----------------------------------------------------------------------


def test_card_text_is_escaped_and_printed_as_written(tmp_path: Path, opened: Opened) -> None:
    say = "</style><img src=file:///etc/passwd>"
    cards = (
        'item "<b onload=x>" {\n    type food\n    use {\n'
        f'        say "{say}"\n        discard this\n    }}\n}}\n'
    )
    pack = make_pack(tmp_path / "pack", cards=cards)
    text = printed(tmp_path, pack)  # an <img> would have been refused: this one is words
    flat = "".join(text.split())
    assert "<bonload=x>" in flat
    assert "".join(say.split()) in flat
    assert opened() == []


# --- template names come from the tool ----------------------------------------------------


def test_template_names_are_the_tools_own(tmp_path: Path) -> None:
    folder = tmp_path / "pack" / "templates"
    folder.mkdir(parents=True)
    (folder / "evil.html").write_text("<p>mine</p>")
    (tmp_path / "x.html").write_text("<p>outside</p>")
    allowed = template_names(["item", "room"], ["item"])
    assert allowed == {
        "card.html",
        "back.html",
        "cards.css",
        "_macros.html",
        "_motifs.html",
        "item.html",
        "room.html",
        "back-item.html",
    }
    env = jinja2.Environment(loader=_Loader(folder, allowed))
    for name in ("evil.html", "../x.html", "/etc/passwd", "templates/card.html", "../../x"):
        with pytest.raises(jinja2.TemplateNotFound):
            env.get_template(name)
    # Were a kind ever named so, a name that climbs out finds nothing, in the pack or the tool.
    climbing = _Loader(folder, {"../x.html", "../faces.py", "..\\x.html"})
    for name in ("../x.html", "../faces.py", "..\\x.html"):
        with pytest.raises(jinja2.TemplateNotFound):
            climbing.get_source(env, name)


def test_a_kind_named_like_a_path_is_refused_by_the_ruleset(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "pack",
        "pack: p\ntitle: T\nversion: 0.1.0\nruleset: evil.yaml\n",
        cards=SCALPEL,
    )
    (pack / "evil.yaml").write_text(
        "ruleset: evil\ntitle: Evil\nversion: 1\nextends: coma-ward\n"
        'kinds:\n  "../x":\n    deck: item\n'
    )
    output = refused(tmp_path, pack, stage="fix them first (pillbox check")
    assert "'../x' is not a valid value for 'kinds'" in output
