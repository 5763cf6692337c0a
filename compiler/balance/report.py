"""The verdicts of `test --balance` as text, JSON, JUnit XML, GitHub workflow annotations or
SARIF findings."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from xml.etree import ElementTree

from compiler.balance.attribution import Share
from compiler.balance.baseline import Before, ChangedCard, difference, key
from compiler.balance.judge import Verdict
from compiler.formats.sarif import Finding, Level
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


def as_json(
    verdicts: Sequence[Verdict],
    base: Mapping[tuple[str, str, int | None, int], Before] | None = None,
    shares: Mapping[int, Sequence[Share]] | None = None,
) -> str:
    """Every verdict as data; with a base, each band's figure there and the difference, and
    each changed card's part in it when the cards were weighed."""
    rows = []
    for index, verdict in enumerate(verdicts):
        row = verdict.to_json()
        if base is not None:
            band = verdict.band
            before = base.get(key(band.band, band.policy, band.players, band.seed))
            row["compared"] = difference(before, verdict) if before is not None else None
        if shares and index in shares:
            row["moved by"] = [
                {
                    "card": share.card.title,
                    "kind": share.card.kind,
                    "variant": share.card.variant,
                    "file": share.card.file,
                    "line": share.card.line,
                    "without it": share.without,
                    "moved": share.moved,
                }
                for share in shares[index]
            ]
        rows.append(row)
    return json.dumps({"bands": rows}, indent=2, ensure_ascii=False)


def share_shown(verdict: Verdict, share: Share) -> str:
    """A changed card's part in a band's move, in the band's own unit."""
    target = verdict.reading.target if verdict.reading is not None else None
    percent = target is not None and target.percent
    moved = f"{share.moved * 100:+.1f} points" if percent else f"{share.moved:+.2f}"
    without = f"{share.without * 100:.1f} %" if percent else f"{share.without:.2f}"
    return (
        f"{share.card.kind} {share.card.title!r} ({share.card.file}:{share.card.line}): "
        f"{moved}; with only its change taken back the band reads {without}"
    )


def as_github(
    verdicts: Sequence[Verdict],
    changes: Sequence[str] = (),
    cards: Sequence[ChangedCard] = (),
    shares: Mapping[int, Sequence[Share]] | None = None,
) -> list[str]:
    """Workflow commands: an error at each band left, a warning at each undecided, and with
    a base, a notice at each band of its change and at each card changed since the base; when
    the cards were weighed one by one, a notice at the card that moved each band most."""
    lines = []
    for verdict in verdicts:
        if verdict.state == "held":
            continue
        level = "warning" if verdict.state == "undecided" else "error"
        message = f"balance band {MARKS[verdict.state]}: {verdict.band.band}: {verdict.shown()}"
        lines.append(_annotation(level, verdict, message))
    for verdict, change in zip(verdicts, changes, strict=False):
        lines.append(_annotation("notice", verdict, f"balance band changed: {change}"))
    for index, found in (shares or {}).items():
        if not found or index >= len(changes):
            continue
        verdict, most = verdicts[index], found[0]
        message = (
            f"this card moved the balance band {verdict.band.band!r} most of the "
            f"{len(found)} changed: {share_shown(verdict, most)} (the band: {changes[index]})"
        )
        lines.append(f"::notice file={most.card.file},line={most.card.line}::{_escaped(message)}")
    if cards and changes:
        moved = "; ".join(changes)
        for card in cards:
            message = (
                f"{card.kind} {card.title!r} changed since the base, with "
                f"{len(cards) - 1} other card{'s' if len(cards) != 2 else ''}: {moved}"
            )
            lines.append(f"::notice file={card.file},line={card.line}::{_escaped(message)}")
    lines.extend(as_text(verdicts)[-1:])
    return lines


FINDING_LEVELS: dict[str, Level] = {"left": "error", "error": "error", "undecided": "warning"}


def as_findings(verdicts: Sequence[Verdict]) -> list[Finding]:
    """A SARIF finding at each band left (an error), undecided (a warning) or unjudgeable."""
    return [
        Finding(
            f"balance-{verdict.state}",
            FINDING_LEVELS[verdict.state],
            f"balance band {MARKS[verdict.state]}: {verdict.band.band}: {verdict.shown()}",
            verdict.band.span,
        )
        for verdict in verdicts
        if verdict.state in FINDING_LEVELS
    ]


def _escaped(message: str) -> str:
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _annotation(level: str, verdict: Verdict, message: str) -> str:
    span = verdict.band.span
    return f"::{level} file={span.file},line={span.line},col={span.column}::{_escaped(message)}"


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
