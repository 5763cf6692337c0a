"""SARIF 2.1.0 logs, the format code-scanning services (GitHub's among them) read, so each
problem shows on its line in a pull request: `check --format sarif` gives the diagnostics,
`test --format sarif` the failed card tests or the balance bands left."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from compiler import __version__
from dsl.spans import Diagnostic, Span

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

Level = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Finding:
    """One result of a run: the rule it breaks, how bad, what to say, and where."""

    rule: str
    level: Level
    message: str
    span: Span


def render_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    """One SARIF log of a check: a rule per code met, a result per diagnostic."""
    return render_findings(
        [
            Finding(
                d.code,
                "error" if d.is_error else "warning",
                d.message + (f" (help: {d.help})" if d.help else ""),
                d.span,
            )
            for d in diagnostics
        ]
    )


def render_findings(findings: Sequence[Finding]) -> str:
    """One SARIF log of one run: a rule per rule met (at the level of its worst finding),
    a result per finding."""
    rules = sorted({f.rule for f in findings})
    worst = {rule: _worst(f.level for f in findings if f.rule == rule) for rule in rules}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pillbox",
                        "version": __version__,
                        # No helpUri: docs/ ships with the source, at no address of its own that
                        # a scanning service could open (one to a made-up host helped no one).
                        "rules": [
                            {"id": rule, "defaultConfiguration": {"level": worst[rule]}}
                            for rule in rules
                        ],
                    }
                },
                "results": [_result(f, rules.index(f.rule)) for f in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


_ORDER: tuple[Level, ...] = ("note", "warning", "error")


def _worst(levels: Any) -> Level:
    return max(levels, key=_ORDER.index)


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    span = finding.span
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.level,
        "message": {"text": finding.message},
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
