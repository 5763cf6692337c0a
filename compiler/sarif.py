"""`pillbox check --format sarif`: the diagnostics as SARIF 2.1.0, the format code-scanning
services (GitHub's among them) read, so each problem shows on its line in a pull request."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from compiler import __version__
from dsl.spans import Diagnostic

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    """One SARIF log of one run: a rule per code met, a result per diagnostic."""
    codes = sorted({d.code for d in diagnostics})
    rules = [
        {
            # No helpUri: docs/diagnostics.md ships with the source, at no address of its own
            # that a scanning service could open (one to a made-up host helped no one).
            "id": code,
            "defaultConfiguration": {"level": "error" if code.startswith("E") else "warning"},
        }
        for code in codes
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pillbox",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": [_result(d, codes.index(d.code)) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def _result(diagnostic: Diagnostic, rule_index: int) -> dict[str, Any]:
    span = diagnostic.span
    text = diagnostic.message + (f" (help: {diagnostic.help})" if diagnostic.help else "")
    return {
        "ruleId": diagnostic.code,
        "ruleIndex": rule_index,
        "level": "error" if diagnostic.is_error else "warning",
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    # SARIF wants a URI reference: forward slashes, relative to the run's folder
                    "artifactLocation": {"uri": PurePosixPath(*span.file.split("\\")).as_posix()},
                    "region": {
                        "startLine": max(span.line, 1),
                        "startColumn": max(span.column, 1),
                        "endLine": max(span.end_line, span.line, 1),
                        "endColumn": max(span.end_column, 1),
                    },
                }
            }
        ],
    }
