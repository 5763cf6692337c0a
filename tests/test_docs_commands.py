"""The commands the docs show are run, and what they print is what the docs say.

A ```` ```console ```` block is a terminal session: `$ ` starts a command, the lines up to the
next one are what it prints. `...` in a line stands for any text there; a line of `...` alone
for any number of lines. A command ending in `# exits N` must exit N, any other 0. `cd` moves
the session; every other command is `pillbox`, run in-process. The blocks of one page are one
session, in a folder of its own, in the order the page gives them; a comment
`<!-- pillbox: append to PATH -->` just before a fenced block adds that block to the file.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from compiler.cli import main
from tests.helpers import run

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

FENCE_RE = re.compile(
    r"(?:^<!-- pillbox: append to (?P<target>\S+) -->\n)?^```(?P<info>[\w-]*)[ \t]*\n"
    r"(?P<body>.*?)^```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
EXITS_RE = re.compile(r"\s+# exits (\d+)$")


@dataclass(frozen=True)
class Step:
    """A command and what it prints, or a block appended to a file."""

    line: int
    command: str = ""
    expected: tuple[str, ...] = ()
    exit_code: int = 0
    append_to: str = ""
    text: str = ""


def steps(page: Path) -> list[Step]:
    """The page's session, in order."""
    source = page.read_text(encoding="utf-8")
    found: list[Step] = []
    for fence in FENCE_RE.finditer(source):
        line = source.count("\n", 0, fence.start("body")) + 1
        if fence["target"]:
            found.append(Step(line, append_to=fence["target"], text=fence["body"]))
        elif fence["info"] == "console":
            found.extend(_commands(fence["body"], line))
    return found


def _commands(body: str, first_line: int) -> list[Step]:
    commands: list[Step] = []
    for offset, text in enumerate(body.splitlines()):
        if text.startswith("$ "):
            command = text[2:]
            exits = EXITS_RE.search(command)
            if exits:
                command = command[: exits.start()]
            commands.append(Step(first_line + offset, command, (), int(exits[1]) if exits else 0))
        elif commands:
            last = commands[-1]
            commands[-1] = Step(last.line, last.command, (*last.expected, text), last.exit_code)
    return commands


def matches(expected: tuple[str, ...], printed: list[str]) -> bool:
    """Whether the printed lines are the expected ones, `...` standing for any text."""
    pattern = "".join(
        r"(?:.*\n)*?" if line == "..." else ".*?".join(map(re.escape, line.split("..."))) + r"\n"
        for line in expected
    )
    return re.fullmatch(pattern, "".join(f"{line}\n" for line in printed)) is not None


SESSIONS = [page for page in PAGES if any(step.command for step in steps(page))]


@pytest.mark.parametrize("page", SESSIONS, ids=[page.name for page in SESSIONS])
def test_the_page_s_commands_print_what_it_says(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PILLBOX_CACHE_DIR", str(tmp_path / ".cache"))
    for step in steps(page):
        where = f"{page.name}:{step.line}"
        if step.append_to:
            target = Path.cwd() / step.append_to
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("a", encoding="utf-8") as appended:
                appended.write(("\n" if target.stat().st_size else "") + step.text)
            continue
        words = shlex.split(step.command, comments=True)
        if words[0] == "cd":
            monkeypatch.chdir(Path.cwd() / words[1])
            continue
        assert words[0] == "pillbox", f"{where}: only pillbox and cd run here: {step.command}"
        code, output = run(*words[1:])
        printed = [line.rstrip() for line in output.splitlines()]
        assert code == step.exit_code, f"{where}: {step.command} exited {code}:\n{output}"
        assert matches(step.expected, printed), (
            f"{where}: {step.command} printed\n{output}\nthe page says\n" + "\n".join(step.expected)
        )


def test_an_ellipsis_stands_for_text_and_a_line_of_it_for_lines() -> None:
    assert matches(("made night: ...", "..."), ["made night: 9 cards", "next: x", "y"])
    assert matches(("a", "...", "z"), ["a", "z"])
    assert not matches(("a", "z"), ["a", "b", "z"])
    assert not matches(("8 passed",), ["9 passed"])


SHELL_INFOS = ("", "sh", "shell", "bash", "text")


def _command_lines() -> list[tuple[str, str]]:
    """Every `pillbox ...` line of a plain, shell or text block of the docs (usage lines with
    `[...]` or `|` aside), by page and line."""
    found = []
    for page in PAGES:
        source = page.read_text(encoding="utf-8")
        for fence in FENCE_RE.finditer(source):
            if fence["info"] not in SHELL_INFOS:
                continue
            first = source.count("\n", 0, fence.start("body")) + 1
            for offset, line in enumerate(fence["body"].splitlines()):
                text = line.strip().removeprefix("$ ")
                if text.startswith("pillbox ") and not set(text) & {"[", "|"}:
                    found.append((f"{page.name}:{first + offset}", text))
    return found


def test_every_command_the_docs_write_names_a_command_and_options_it_has() -> None:
    # Commands shown but not run (a thousand games, a cluster) still cannot drift: each
    # names a command that exists and only options it takes, as the command line parses it.
    context = click.Context(main, info_name="pillbox")
    lines = _command_lines()
    assert len(lines) > 10, lines
    wrong = []
    for where, line in lines:
        words = shlex.split(line, comments=True)[1:]
        command = main.get_command(context, words[0]) if words else None
        if command is None:
            wrong.append(f"{where}: no command {words[:1]}: {line}")
            continue
        try:
            command.make_context(words[0], words[1:], parent=context)
        except click.NoSuchOption as error:
            wrong.append(f"{where}: {error.format_message()}: {line}")
        except (click.UsageError, click.exceptions.Exit):
            pass  # a placeholder where a value goes (N, PACK): the options are what is held
    assert not wrong, "\n".join(wrong)
