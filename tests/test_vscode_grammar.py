"""The VS Code extension in editors/vscode/: its manifest, its grammar and its start-up.

The grammar is tested by a Node script with vscode-textmate, the tokenizer VS Code itself runs,
on every .card file of the repository; `make test` installs its two npm packages first
(`editors/vscode/test/node_modules/`), and where node or those packages are missing the Node
tests are skipped with the reason. The manifest checks need no Node.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

EXTENSION = ROOT / "editors" / "vscode"
NODE_TESTS = EXTENSION / "test"
NODE_MODULES = NODE_TESTS / "node_modules"
NODE_DEADLINE = 120  # seconds; the script takes about 2 s of CPU on a busy machine


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    """The extension's package.json."""
    loaded: dict[str, Any] = _json(EXTENSION / "package.json")
    return loaded


def test_manifest_points_at_files_that_exist(manifest: dict[str, Any]) -> None:
    contributes = manifest["contributes"]
    paths = [manifest["main"]]
    paths += [language["configuration"] for language in contributes["languages"]]
    paths += [grammar["path"] for grammar in contributes["grammars"]]
    missing = [path for path in paths if not (EXTENSION / path).is_file()]
    assert not missing, f"package.json names files that are not there: {missing}"


def test_manifest_contributes_the_language_its_grammar_and_its_setting(
    manifest: dict[str, Any],
) -> None:
    contributes = manifest["contributes"]
    assert [language["extensions"] for language in contributes["languages"]] == [[".card"]]
    (grammar,) = contributes["grammars"]
    assert grammar["language"] == contributes["languages"][0]["id"] == "pillbox"
    assert _json(EXTENSION / grammar["path"])["scopeName"] == grammar["scopeName"]
    assert "pillbox.command" in contributes["configuration"]["properties"]
    # A folder one has not trusted must not choose the program the extension runs.
    untrusted = manifest["capabilities"]["untrustedWorkspaces"]
    assert "pillbox.command" in untrusted["restrictedConfigurations"]
    assert "vscode-languageclient" in manifest["dependencies"]


def test_language_configuration_is_json_with_regexes_that_compile() -> None:
    configuration = _json(EXTENSION / "language-configuration.json")
    assert configuration["comments"]["lineComment"] == "#"
    rules = configuration["indentationRules"]
    # Python's `re` reads these simple patterns as JavaScript does.
    opens = re.compile(rules["increaseIndentPattern"])
    closes = re.compile(rules["decreaseIndentPattern"])
    assert opens.search('room "A {brace} title" {  # comment')
    assert opens.search("    } else {")
    assert not opens.search("    pass { move to bridge }")
    assert closes.search("    }")


def test_node_test_packages_are_pinned_and_never_committed() -> None:
    manifest = _json(NODE_TESTS / "package.json")
    lock = _json(NODE_TESTS / "package-lock.json")
    pinned = manifest["devDependencies"]
    assert set(pinned) == {"vscode-textmate", "vscode-oniguruma"}
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in pinned.values())
    assert {name: lock["packages"][f"node_modules/{name}"]["version"] for name in pinned} == pinned
    assert "node_modules/" in (EXTENSION / ".gitignore").read_text(encoding="utf-8")


def _run_node(script: str, update_goldens: bool = False) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the VS Code grammar is not tested")
    environment = dict(os.environ)
    if update_goldens:
        environment["PILLBOX_UPDATE_GOLDENS"] = "1"
    result = subprocess.run(
        [node, script],
        cwd=NODE_TESTS,
        env=environment,
        capture_output=True,
        text=True,
        timeout=NODE_DEADLINE,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def test_grammar_tokenizes_every_card_file_as_the_lexer_reads_it(update_goldens: bool) -> None:
    if not (NODE_MODULES / "vscode-textmate").is_dir():
        pytest.skip(
            "editors/vscode/test/node_modules is missing (npm was not found when `make test` "
            "ran): run `npm ci --ignore-scripts` in editors/vscode/test"
        )
    _run_node("grammar.test.js", update_goldens)


def test_extension_starts_pillbox_lsp_with_the_configured_command() -> None:
    _run_node("extension.test.js")
