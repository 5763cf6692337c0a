"""Where a new pack's CI gets pillbox: the pillbox that made it, pinned, or a step that says
what to fill in; never `pip install pillbox`, which no index carries."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from compiler.new import installsource
from compiler.new import pack as newpack
from compiler.new.installsource import Source, install_step, source_of
from tests.helpers import run

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _checkout(folder: Path, remote: str | None) -> str:
    folder.mkdir()
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    if remote:
        subprocess.run([*git, "remote", "add", "origin", remote], check=True)
    return subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_each_way_pip_installs_gives_a_requirement_pinned_or_a_reason(tmp_path: Path) -> None:
    from_git = {
        "url": "https://example.org/pillbox.git",
        "vcs_info": {"vcs": "git", "commit_id": COMMIT},
    }
    assert (
        source_of(from_git).requirement == f"pillbox @ git+https://example.org/pillbox.git@{COMMIT}"
    )
    wheel = source_of({"url": f"file://{tmp_path}/pillbox-0.1.0-py3-none-any.whl"})
    assert wheel.requirement is None and "pillbox-0.1.0-py3-none-any.whl" in wheel.why_not
    served = source_of({"url": "https://example.org/pillbox-0.1.0.tar.gz", "archive_info": {}})
    assert served.requirement == "pillbox @ https://example.org/pillbox-0.1.0.tar.gz"

    lone = tmp_path / "lone"
    _checkout(lone, None)
    alone = source_of({"url": lone.as_uri(), "dir_info": {"editable": True}})
    assert alone.requirement is None and "no remote" in alone.why_not

    cloned = tmp_path / "cloned"
    head = _checkout(cloned, "git@example.org:you/pillbox.git")
    pinned = source_of({"url": cloned.as_uri(), "dir_info": {"editable": True}})
    assert pinned.requirement == f"pillbox @ git+ssh://git@example.org/you/pillbox.git@{head}"


@pytest.mark.parametrize(
    "source",
    [
        Source(f"pillbox @ git+https://example.org/a b'c\"$(x)#y: z@{COMMIT}"),
        Source(None, 'pillbox was installed from it\'s "here": $(whoami) #1'),
    ],
)
def test_the_install_step_is_one_yaml_string_and_one_shell_word(source: Source) -> None:
    steps = YAML(typ="safe").load("steps:\n" + install_step(source))["steps"]
    (command,) = [step["run"] for step in steps]
    if source.requirement:
        assert command.split(" ", 2)[:2] == ["pip", "install"]
        done = subprocess.run(
            ["sh", "-c", command.replace("pip install", "printf %s", 1)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout == source.requirement
    else:
        done = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
        assert done.returncode == 1 and done.stdout.strip() == f"::error::{source.why_not}: " + (
            "write where CI gets pillbox in this step "
            "(a git URL pinned to a commit, or a wheel in the repository)"
        )


def test_a_new_pack_s_workflow_installs_the_pillbox_that_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workflow ran `pip install pillbox`, which no package index carries.
    requirement = f"pillbox @ git+https://example.org/pillbox.git@{COMMIT}"
    monkeypatch.setattr(newpack, "installed_source", lambda: Source(requirement))
    code, output = run("new", str(tmp_path / "pinned"))
    workflow = (tmp_path / "pinned" / ".github" / "workflows" / "cards.yml").read_text()
    steps = YAML(typ="safe").load(workflow)["jobs"]["check"]["steps"]
    assert code == 0 and "note:" not in output
    assert {
        "run": f"pip install '{requirement}'"
    } in steps and "pip install pillbox\n" not in workflow

    monkeypatch.setattr(newpack, "installed_source", lambda: Source(None, "no way to know"))
    code, output = run("new", str(tmp_path / "unknown"))
    assert code == 0 and "note: no way to know; fill in the install step" in output


def test_the_running_pillbox_has_an_answer() -> None:
    source = installsource.installed_source()
    assert (source.requirement is None) == bool(source.why_not)
