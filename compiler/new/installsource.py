"""Where a content repository's CI gets pillbox: the pillbox that made the pack, pinned.

No package index carries pillbox, so `pip install pillbox` in a workflow installs nothing. What
the user can really get is what they have: pip records how a distribution was installed
(`direct_url.json`, PEP 610), and a checkout knows its remote and commit. The requirement is
that, pinned to a commit, so CI checks with the same pillbox the designer ran; where nothing
reachable is known (a local checkout with no remote, a wheel on this disk), there is none, and
the workflow says what to fill in.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from compiler.gitcall import GitError, git

DISTRIBUTION = "pillbox"

GIT_SECONDS = 5.0
"""A `git` asked about a checkout answers in this long, or is not asked again."""

_SCP_LIKE = re.compile(r"^(?P<user>[\w.-]+)@(?P<host>[\w.-]+):(?P<path>[^/].*)$")
"""`git@github.com:org/pillbox.git`, which pip takes as `git+ssh://git@github.com/org/...`."""


@dataclass(frozen=True)
class Source:
    """A pip requirement that installs this pillbox elsewhere, or why there is none."""

    requirement: str | None
    why_not: str = ""


def installed_source() -> Source:
    """How the running pillbox was installed, as a requirement another machine can install."""
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return _from_checkout(Path(__file__).resolve().parents[2])
    recorded = distribution.read_text("direct_url.json")
    if recorded is None:  # from a package index: the same version from it
        return Source(f"{DISTRIBUTION}=={distribution.version}")
    return source_of(json.loads(recorded))


def source_of(direct_url: dict[str, object]) -> Source:
    """The requirement for a distribution pip recorded as installed from `direct_url`."""
    url = str(direct_url.get("url", ""))
    vcs = direct_url.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        return Source(f"{DISTRIBUTION} @ git+{url}@{vcs['commit_id']}")
    if url.startswith("file://"):
        path = Path(unquote(urlsplit(url).path))
        if path.is_dir():
            return _from_checkout(path)
        return Source(None, f"pillbox was installed from {path.name}, a file on this machine")
    if url.startswith(("http://", "https://")):
        return Source(f"{DISTRIBUTION} @ {url}")
    return Source(None, f"pillbox was installed from {url or 'an unknown place'}")


def _from_checkout(folder: Path) -> Source:
    remote = _git(folder, "remote", "get-url", "origin")
    commit = _git(folder, "rev-parse", "HEAD")
    if remote is None or commit is None:
        return Source(None, f"pillbox runs from {folder}, a checkout with no remote to fetch")
    return Source(f"{DISTRIBUTION} @ git+{_pip_url(remote)}@{commit}")


def _pip_url(remote: str) -> str:
    scp = _SCP_LIKE.match(remote)
    if scp:
        return f"ssh://{scp['user']}@{scp['host']}/{scp['path']}"
    return remote


def _git(folder: Path, *arguments: str) -> str | None:
    try:
        answer = git(folder, *arguments, seconds=GIT_SECONDS).decode("utf-8", "replace").strip()
    except GitError:
        return None
    return answer or None


def install_step(source: Source) -> str:
    """The workflow's install step (YAML, indented as a step): the pinned requirement, or a step
    that fails saying what to write there."""
    if source.requirement is not None:
        return _step(f"pip install {shlex.quote(source.requirement)}")
    message = (
        f"{source.why_not}: write where CI gets pillbox in this step "
        "(a git URL pinned to a commit, or a wheel in the repository)"
    )
    return (
        "      # Fill in how CI installs pillbox, e.g.\n"
        '      #   pip install "pillbox @ git+https://host/you/pillbox@<commit>"\n'
        + _step(f"echo {shlex.quote('::error::' + message)} && exit 1")
    )


def _step(command: str) -> str:
    # A JSON string is a YAML double-quoted scalar: whatever the command holds, it stays one.
    return f"      - run: {json.dumps(command)}\n"
