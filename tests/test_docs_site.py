"""The README and the docs site hold together: every link leads to a file and every anchor to a
heading, every page is in the site's navigation and linked from another, every command and
option of the command line is in docs/cli.md, the site builds strictly, and nothing in the
repository cites a file outside it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from ruamel.yaml import YAML

from compiler.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.rglob("*.md"))
DOCUMENTS = [README, *PAGES]

FENCE_RE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN_RE = re.compile(r"(`+).+?\1", re.DOTALL)
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
EXTERNAL = ("http://", "https://", "mailto:")


def _prose(text: str) -> str:
    """The text without its fenced code blocks and code spans, where a link is no link."""
    return CODE_SPAN_RE.sub("", FENCE_RE.sub("", text))


def _links(path: Path) -> Iterator[str]:
    """Every link and image target a Markdown file writes, in order."""
    for found in LINK_RE.finditer(_prose(path.read_text(encoding="utf-8"))):
        yield found.group(1)


def _heading_text(heading: str) -> str:
    """A heading as it reads: links by their text, no code or emphasis marks."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return heading.replace("`", "").replace("*", "")


def mkdocs_slug(text: str) -> str:
    """The anchor Python-Markdown's toc extension (mkdocs) gives a heading."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading when it shows the file."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _numbered(slugs: list[str], separator: str) -> set[str]:
    """Slugs made unique as each renderer does: the second of a name gets `<sep>1`."""
    seen: dict[str, int] = {}
    unique = set()
    for slug in slugs:
        count = seen.get(slug, 0)
        unique.add(slug if count == 0 else f"{slug}{separator}{count}")
        seen[slug] = count + 1
    return unique


def anchors(path: Path) -> set[str]:
    """The anchors of a page's headings that both the site and GitHub give alike."""
    text = FENCE_RE.sub("", path.read_text(encoding="utf-8"))
    headings = [_heading_text(found.group(2)) for found in HEADING_RE.finditer(text)]
    site = _numbered([mkdocs_slug(heading) for heading in headings], "_")
    github = _numbered([github_slug(heading) for heading in headings], "-")
    return site & github


def _nav_pages(entry: object) -> Iterator[str]:
    """Every page file the `nav:` of mkdocs.yml names, however deep."""
    if isinstance(entry, str):
        yield entry
    elif isinstance(entry, list):
        for item in entry:
            yield from _nav_pages(item)
    elif isinstance(entry, dict):
        for value in entry.values():
            yield from _nav_pages(value)


def _section(page: str, command: str) -> str:
    """The part of docs/cli.md from `## pillbox COMMAND` to the next `## ` heading."""
    start = page.index(f"\n## pillbox {command}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end != -1 else len(page)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_links_lead_to_files_and_headings(document: Path) -> None:
    problems = []
    for target in _links(document):
        if target.startswith(EXTERNAL):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
        elif not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading with this anchor (on the site and on GitHub)")
    assert not problems, f"{document.relative_to(ROOT)}: " + "; ".join(problems)


OUTSIDE = ("../" + "shared", "shared" + "/seeds", "shared" + "/specimens", "DESIGN" + ".md")
"""How the files given beside the repository were once cited (spelt in pieces, so that this
file does not cite them either): a clone has none of them."""

CODE_FOLDERS = ("dsl", "compiler", "runtime", "schemas", "content", "tests", "bench", "scripts")
SOURCE_FOLDERS = [*CODE_FOLDERS, "docs", "editors"]
SOURCE_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".card", ".lark", ".json", ".txt"}
SOURCE_SUFFIXES |= {".html", ".css", ".js", ".csv", ".card-template"}


def _sources() -> Iterator[Path]:
    """The repository's own text files: what a clone holds, less installed packages."""
    yield from (ROOT / name for name in ("README.md", "Makefile", "pyproject.toml", "mkdocs.yml"))
    for folder in SOURCE_FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in SOURCE_SUFFIXES and "node_modules" not in path.parts:
                yield path


def test_nothing_cites_a_file_outside_the_repository() -> None:
    citing = [
        f"{path.relative_to(ROOT)}: {outside}"
        for path in _sources()
        if path.is_file()
        for text in [path.read_text(encoding="utf-8", errors="replace")]
        for outside in OUTSIDE
        if outside in text
    ]
    assert not citing, citing


def test_slugs_as_the_site_and_github_make_them() -> None:
    assert mkdocs_slug("4. Combining rulesets") == "4-combining-rulesets"
    assert github_slug("4. Combining rulesets") == "4-combining-rulesets"
    assert mkdocs_slug("A whole game: --game") == "a-whole-game-game"
    assert github_slug("A whole game: --game") == "a-whole-game---game"
    assert _numbered(["a", "a"], "_") == {"a", "a_1"}


def test_every_page_is_in_the_nav_and_linked_from_another() -> None:
    config = YAML(typ="safe").load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs" and config["strict"] is True
    assert config["use_directory_urls"] is False and config["site_dir"] == "build/site"
    nav = list(_nav_pages(config["nav"]))
    pages = {page.relative_to(DOCS).as_posix() for page in PAGES}
    assert sorted(set(nav)) == sorted(pages), "mkdocs.yml's nav and docs/ differ"
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    linked = {
        (document.parent / target.partition("#")[0]).resolve()
        for document in DOCUMENTS
        for target in _links(document)
        if not target.startswith(EXTERNAL) and target.partition("#")[0]
    }
    unlinked = [page.name for page in PAGES if page.name != "index.md" and page not in linked]
    assert not unlinked, f"pages no other page links to: {unlinked}"


def test_every_command_and_option_is_in_the_cli_page() -> None:
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    context = click.Context(main, info_name="pillbox")
    top = [*main.params, main.get_help_option(context)]
    missing = [
        f"pillbox {opt}"
        for param in top
        if isinstance(param, click.Option)
        for opt in [*param.opts, *param.secondary_opts]
        if not re.search(rf"`{re.escape(opt)}[ `]", page)
    ]
    commands = main.list_commands(context)
    assert commands, "the command line lists no command"
    for name in commands:
        command = main.get_command(context, name)
        assert command is not None, name
        if f"\n## pillbox {name}\n" not in page:
            missing.append(f"pillbox {name} (its section)")
            continue
        section = _section(page, name)
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in [*param.opts, *param.secondary_opts]:
                    if not re.search(rf"`{re.escape(opt)}[ `]", section):
                        missing.append(f"pillbox {name} {opt}")
    assert not missing, f"docs/cli.md does not document: {missing}"


def test_readme_is_short_and_starts_with_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert "make demo" in text and "make test" in text
    assert "docs/cli.md" in text


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (the dev extras have them)",
)
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    build += ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(build, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for page in PAGES:
        assert (site / page.relative_to(DOCS).with_suffix(".html")).is_file(), page
