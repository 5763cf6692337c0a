"""The import contracts hold on the tree, and each one bites on an import planted to break it."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "import_contracts.py"
PACKAGES = ("dsl", "compiler", "runtime", "content", "schemas")

_spec = importlib.util.spec_from_file_location("import_contracts", SCRIPT)
assert _spec is not None and _spec.loader is not None
CONTRACTS = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = CONTRACTS  # dataclasses look their module up there
_spec.loader.exec_module(CONTRACTS)


def contracts(root: Path) -> tuple[int, str]:
    """The contracts' script run on a tree, in this process: its exit code and output."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        code = CONTRACTS.main(["import_contracts.py", str(root)])
    return code, output.getvalue()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the packages' Python files, to plant broken imports in."""
    root = tmp_path_factory.mktemp("tree")
    for package in PACKAGES:
        for file in (ROOT / package).rglob("*.py"):
            target = root / file.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
    return root


def plant(tree: Path, module: str, line: str, tmp_path: Path) -> Path:
    """A copy of `tree` with one line added at the end of one module."""
    copy = tmp_path / "planted"
    shutil.copytree(tree, copy)
    file = copy / module
    file.write_text(file.read_text() + "\n" + line + "\n")
    return copy


def test_the_tree_keeps_every_contract() -> None:
    """As `make lint` runs it: a process of its own, on the repository."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        (  # the runtime reaching back up into the compiler
            "runtime/dice.py",
            "from compiler.check import check_paths",
            "runtime.dice may not import compiler.check",
        ),
        (  # the grammar's package knowing the runtime
            "dsl/spans.py",
            "import runtime.dice",
            "dsl.spans may not import runtime.dice",
        ),
        (  # a circle: the pack reader importing the command line, which reaches it
            "compiler/pack.py",
            "import compiler.cli",
            "an import circle: ",
        ),
        (  # an import hidden in a function
            "compiler/render.py",
            "def _late() -> None:\n    from compiler.check import check_paths",
            "compiler.render imports compiler.check inside a function",
        ),
        (  # the generic runtime naming a game
            "runtime/state.py",
            "from runtime.games import lobotomy",
            "runtime.state names a game's module (runtime.games.lobotomy)",
        ),
        (  # the compile pipeline reaching a tool
            "compiler/lower.py",
            "from compiler.report import report",
            "compiler.lower is the compile pipeline and may not import the tool",
        ),
        (  # a stage reaching a command's module
            "compiler/odds.py",
            "from compiler.commands import build",
            "compiler.odds imports the command compiler.commands.build",
        ),
        (  # a new circle of type-only imports
            "compiler/world.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import compiler.ruleset",
            "a circle of type-only imports: ",
        ),
    ],
)
def test_each_contract_fails_on_a_planted_import(
    tree: Path, tmp_path: Path, module: str, line: str, broken: str
) -> None:
    code, output = contracts(plant(tree, module, line, tmp_path))
    assert code == 1, output
    assert broken in output, output
    assert f"{Path(module)}:" in output or "circle" in broken, output


def test_a_command_in_the_table_counts_as_an_import(tree: Path, tmp_path: Path) -> None:
    """The lazily loaded commands are edges of the graph: a stage that imports the command
    line closes a circle through a command's module."""
    code, output = contracts(plant(tree, "compiler/check.py", "import compiler.cli", tmp_path))
    assert code == 1
    assert "an import circle: " in output
    assert "-> compiler.check -> compiler.cli -> compiler.commands." in output


def test_every_command_of_the_table_loads() -> None:
    """Each `module:name` of the table is a click command (a typo would fail only when run)."""
    import click

    from compiler.cli import COMMANDS, main

    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert isinstance(command, click.Command), name
        assert command.name == name


def test_the_table_gives_each_command_its_own_help_and_help_imports_none() -> None:
    """`pillbox --help` lists the commands from the table, so the table's paragraph must read as
    the command's own at every width; and listing them loads no command's module."""
    import click

    from compiler.cli import COMMANDS, main

    for name, (_, summary) in COMMANDS.items():
        command = main.get_command(click.Context(main), name)
        assert command is not None
        listed = click.Command(name, help=summary)
        for limit in range(20, 160, 7):
            assert listed.get_short_help_str(limit) == command.get_short_help_str(limit), name
    code = "import sys; from compiler.cli import main; main(['--help'])"
    done = subprocess.run([sys.executable, "-c", code + "\n"], capture_output=True, text=True)
    assert done.returncode == 0 and "Commands:" in done.stdout
    probe = (
        "import sys\nfrom compiler.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:"
        "\n    pass\nprint(sorted(m for m in sys.modules if m.startswith('compiler.commands.')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "['compiler.commands.common']"
