"""`python -m compiler.precompile`: write the validated JSON beside each bundled ruleset."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

from compiler.ruleset import PRECOMPILED, RulesetError, precompile


def main() -> int:
    """Precompile every bundled ruleset; report errors and exit 1 if any ruleset is invalid."""
    root = Path(str(resources.files("content")))
    status = 0
    for source in sorted(root.glob("*/ruleset.yaml")):
        try:
            payload = precompile(source)
        except RulesetError as error:
            for diagnostic in error.diagnostics:
                print(f"{diagnostic.span.file}:{diagnostic.span.line}: {diagnostic.message}")
            status = 1
            continue
        target = source.with_name(PRECOMPILED)
        target.write_text(json.dumps(payload, sort_keys=True, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {target.relative_to(root.parent)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
