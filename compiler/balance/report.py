"""The verdicts of `test --balance` as text, JSON, JUnit XML or GitHub workflow annotations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from xml.etree import ElementTree

from compiler.balance.judge import Verdict
from compiler.render import Style, plain

MARKS = {"held": "held", "left": "LEFT", "undecided": "undecided", "error": "ERROR"}
SEVERITY = {"held": "note", "left": "error", "undecided": "warning", "error": "error"}


def as_text(verdicts: Sequence[Verdict], style: Style = plain) -> list[str]:
    """A line a band, at its place in pack.yaml, then the count of each verdict."""
    lines = [
        f"{v.band.span.file}:{v.band.span.line}:{v.band.span.column}: "
        + style(MARKS[v.state], SEVERITY[v.state])
        + f" {v.band.band}: {v.shown()}"
        for v in verdicts
    ]
    counts = {state: sum(1 for v in verdicts if v.state == state) for state in MARKS}
    summary = ", ".join(f"{count} {state}" for state, count in counts.items() if count)
    lines.append(f"balance: {summary or 'no bands'}")
    return lines


def as_json(verdicts: Sequence[Verdict]) -> str:
    """Every verdict as data."""
    return json.dumps({"bands": [v.to_json() for v in verdicts]}, indent=2, ensure_ascii=False)


def as_github(verdicts: Sequence[Verdict]) -> list[str]:
    """Workflow commands: an error at each band left, a warning at each undecided."""
    lines = []
    for verdict in verdicts:
        if verdict.state == "held":
            continue
        level = "warning" if verdict.state == "undecided" else "error"
        span = verdict.band.span
        message = f"balance band {MARKS[verdict.state]}: {verdict.band.band}: {verdict.shown()}"
        lines.append(
            f"::{level} file={span.file},line={span.line},col={span.column}::"
            + message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        )
    lines.extend(as_text(verdicts)[-1:])
    return lines


def as_junit(pack: str, verdicts: Sequence[Verdict]) -> str:
    """One test case a band, failed when the band was left or could not be judged."""
    suites = ElementTree.Element("testsuites", name=pack)
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="balance",
        tests=str(len(verdicts)),
        failures=str(sum(1 for v in verdicts if v.state in ("left", "error"))),
        errors="0",
    )
    for verdict in verdicts:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname="balance",
            name=verdict.band.band,
            file=verdict.band.span.file,
            line=str(verdict.band.span.line),
        )
        if verdict.state in ("left", "error"):
            failure = ElementTree.SubElement(case, "failure", message=verdict.shown())
            failure.text = verdict.shown()
        elif verdict.state == "undecided":
            ElementTree.SubElement(case, "system-out").text = f"undecided: {verdict.shown()}"
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
