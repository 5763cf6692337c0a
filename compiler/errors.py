"""What a command's exit says, and the error any stage raises for a bad command line.

Every command exits with one of these codes; scripts and CI rely on them (docs/cli.md).
"""

from __future__ import annotations

EXIT_CLEAN = 0
"""Nothing wrong (warnings allowed unless `--strict`)."""

EXIT_CONTENT = 1
"""The content has errors, or its tests failed."""

EXIT_USAGE = 2
"""The command line is wrong: a bad flag, a path that does not exist."""

EXIT_INTERNAL = 3
"""A bug in pillbox itself: a short message and a pointer to `--debug`."""


class UsageError(Exception):
    """The command line names something that does not exist or cannot be checked."""
