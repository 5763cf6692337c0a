"""`pillbox test --format junit`: card tests as JUnit XML, which CI services show as a test
report: one `testsuite` per card file, one `testcase` per test, each failure with its log."""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree import ElementTree

from runtime.testing import TestResult


def render_junit(pack: str, results: Sequence[TestResult], seconds: dict[int, float]) -> str:
    """The XML document of one run of a pack's tests (`seconds` by result index)."""
    suites = ElementTree.Element("testsuites", name=pack)
    by_file: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        by_file.setdefault(result.card.file, []).append(index)
    for file, indexes in by_file.items():
        failed = sum(1 for i in indexes if not results[i].passed)
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=file,
            tests=str(len(indexes)),
            failures=str(failed),
            errors="0",
            time=f"{sum(seconds.get(i, 0.0) for i in indexes):.3f}",
        )
        for i in indexes:
            result = results[i]
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=f"{file}:{result.card.label}",
                name=result.test.name,
                file=file,
                line=str(result.line),
                time=f"{seconds.get(i, 0.0):.3f}",
            )
            if not result.passed:
                failure = ElementTree.SubElement(
                    case, "failure", message=result.failure or "", type="AssertionError"
                )
                where = f"{file}:{result.line}:{result.column}"
                failure.text = "\n".join([where, *(result.log or ["(nothing happened)"])])
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
