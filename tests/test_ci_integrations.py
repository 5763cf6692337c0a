"""The CI integrations a content repository uses: the pre-commit hooks run real commands."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import ROOT
from tests.helpers import run


def test_every_pre_commit_hook_runs_a_pillbox_command_that_passes_on_a_clean_pack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {hook["id"] for hook in hooks} == {"pillbox-check", "pillbox-test", "pillbox-fmt"}
    monkeypatch.chdir(ROOT / "content" / "cool-name")  # a hook runs in the repository's root
    for hook in hooks:
        program, *arguments = shlex.split(hook["entry"])
        assert program == "pillbox" and hook["language"] == "python"
        if hook["id"] == "pillbox-fmt":  # the files a commit changes; here, all of them
            arguments += ["--check", "."]
        else:
            assert hook["pass_filenames"] is False  # the whole pack: a card breaks another's test
        code, output = run(*arguments)
        assert code == 0, (hook["id"], output)


def test_the_ci_page_names_only_formats_the_commands_have() -> None:
    page = (ROOT / "docs" / "ci.md").read_text()
    for form in ("--format github", "--format sarif", "--format junit", "--strict-tests"):
        assert form in page
    assert Path(ROOT / ".pre-commit-hooks.yaml").exists()
