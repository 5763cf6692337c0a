"""Asking git about a checkout: one place that runs it, with a deadline and its own error."""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitError(Exception):
    """git could not be run, or said no: the message says which, in git's last words."""


def git(folder: Path, *arguments: str, seconds: float = 30.0) -> bytes:
    """What git prints for these arguments, run in that folder; GitError saying why not."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *arguments],
            capture_output=True,
            timeout=seconds,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(f"git could not be asked ({error})") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {arguments[0]}: {said[-1] if said else 'failed'}")
    return done.stdout
