"""`pillbox test`: the `test` blocks written next to the cards, reported as pytest does, or as
JSON or JUnit.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from compiler.balance import report as balance_report
from compiler.balance.attribution import weigh
from compiler.balance.baseline import (
    Before,
    ChangedCard,
    changed_cards,
    from_file,
    from_verdicts,
    pack_at,
    side_by_side,
)
from compiler.balance.judge import failed, judge
from compiler.build import CompiledPack
from compiler.commands.common import (
    COLOR_OPTION,
    ENGINE_OPTION,
    RULESET_OPTION,
    SCHEDULER_OPTION,
    style_of,
    usage,
)
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.formats.junit import render_junit
from compiler.formats.sarif import Finding, render_findings
from compiler.playing import Emit, load_compiled
from compiler.render import Style, plain
from compiler.simulate.engine import POOL, Engine
from compiler.terminal import echo
from dsl.spans import Span
from runtime.cards import CardDef, TestDef
from runtime.testing import TestResult, run_test

EXIT_NO_TESTS = 4
"""`test -k PATTERN` matched no test: a typo in the pattern must not pass a CI gate."""


@click.command("test")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("-k", "pattern", metavar="PATTERN", help="Only tests whose card or name has this.")
@click.option("-v", "--verbose", is_flag=True, help="A line per test, not a dot.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "junit", "github", "sarif"]),
    default="text",
    show_default=True,
    help="How to report (github: workflow annotations, with --balance; sarif: code scanning).",
)
@click.option(
    "--balance",
    is_flag=True,
    help="Judge the bands of pack.yaml's balance: on their seeds instead; exit 1 if one is left.",
)
@click.option(
    "--workers", type=click.IntRange(1, 512), help="Worker processes for --balance (default: 1)."
)
@click.option(
    "--base",
    metavar="REF",
    help="With --balance: also judge the bands on the pack at this git ref; show each change.",
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path),
    help="With --balance: compare with a verdict file saved by --balance --format json.",
)
@ENGINE_OPTION
@SCHEDULER_OPTION
@RULESET_OPTION
@COLOR_OPTION
def test_command(
    pack: Path,
    pattern: str | None,
    verbose: bool,
    output_format: str,
    balance: bool,
    workers: int | None,
    base: str | None,
    baseline: Path | None,
    engine: str,
    scheduler: str | None,
    ruleset: str | None,
    color: str,
) -> None:
    """Run the `test` blocks written next to the cards; exit 1 if any fails."""

    style = style_of(color)

    def run() -> int:
        if (base or baseline) and not balance:
            raise UsageError("--base and --baseline compare the bands of --balance: add --balance")
        if base and baseline:
            raise UsageError("compare with --base (a git ref) or --baseline (a file), not both")
        if (engine != "pool" or scheduler) and not balance:
            raise UsageError("--engine and --scheduler play the bands of --balance: add --balance")
        if balance:
            compared = Compared(base, baseline)
            with Engine(engine, scheduler, workers or 1) as playing_on:
                return run_balance(
                    pack,
                    ruleset,
                    output_format,
                    workers or 1,
                    echo(style),
                    style,
                    compared,
                    playing_on,
                )
        if output_format == "github":
            raise UsageError("--format github reports the bands of --balance: add --balance")
        return run_tests(pack, ruleset, pattern, output_format, verbose, echo(style), style)

    sys.exit(usage(run))


@dataclass(frozen=True)
class Compared:
    """What `--balance` compares the bands with: a git ref, or a saved verdict file."""

    base: str | None = None
    baseline: Path | None = None


def run_balance(
    path: Path,
    ruleset: str | None,
    output_format: str,
    workers: int,
    emit: Emit,
    style: Style,
    compared: Compared = Compared(),
    engine: Engine = POOL,
) -> int:
    """Judge the pack's balance bands (their games played on `engine`); report them; 1 if one
    was left or could not be judged."""
    compiled = load_compiled(path, ruleset, emit, style, as_json=output_format == "json")
    if compiled is None:
        return EXIT_CONTENT
    if not compiled.checked.balance:
        raise UsageError(f"{path}: pack.yaml states no balance: bands to judge")
    progress = echo(style, err=True)
    base, cards, before = _base(compiled, path, ruleset, workers, compared, progress, style, engine)
    verdicts = judge(compiled, (path, ruleset), workers, progress, engine=engine)
    changes = (
        side_by_side(verdicts, base, lambda v: balance_report.MARKS[v.state])
        if base is not None
        else []
    )
    shares = (
        weigh(compiled, before, cards, verdicts, (path, ruleset), progress)
        if before is not None
        else {}
    )
    if output_format == "json":
        emit(balance_report.as_json(verdicts, base, shares))
    elif output_format == "junit":
        emit(balance_report.as_junit(compiled.checked.name, verdicts).rstrip("\n"))
    elif output_format == "github":
        for line in balance_report.as_github(verdicts, changes, cards, shares):
            emit(line)
    elif output_format == "sarif":
        emit(render_findings(balance_report.as_findings(verdicts)))
    else:
        for line in balance_report.as_text(verdicts, style):
            emit(line)
        if changes:
            emit(f"against {compared.base or compared.baseline}:")
            for index, (verdict, change) in enumerate(zip(verdicts, changes, strict=True)):
                span = verdict.band.span
                emit(f"  {span.file}:{span.line}:{span.column}: {change}")
                for share in shares.get(index, []):
                    emit(f"    {balance_report.share_shown(verdict, share)}")
    return EXIT_CONTENT if failed(verdicts) else EXIT_CLEAN


def _base(
    compiled: CompiledPack,
    path: Path,
    ruleset: str | None,
    workers: int,
    compared: Compared,
    progress: Emit,
    style: Style,
    engine: Engine,
) -> tuple[
    dict[tuple[str, str, int | None, int], Before] | None, list[ChangedCard], CompiledPack | None
]:
    """The bands' figures on the side compared with, if one was asked for (the same bands
    judged on the pack at the git ref, or read from the verdict file), the cards changed
    since the ref, and the pack at the ref."""
    if compared.baseline is not None:
        return from_file(compared.baseline), [], None
    if compared.base is None:
        return None, [], None
    with pack_at(compared.base, path) as folder:
        before = load_compiled(folder, ruleset, progress, style)
        if before is None:
            raise UsageError(f"--base {compared.base}: the pack does not check at that commit")
        bands = compiled.checked.balance
        judged = judge(before, (folder, ruleset), workers, progress, bands, engine)
        figures = from_verdicts(judged)
        return figures, changed_cards(before.checked.cards, compiled.checked.cards), before


def _selected(compiled: CompiledPack, pattern: str | None) -> list[tuple[CardDef, TestDef]]:
    chosen = compiled.checked.selected
    wanted = pattern.casefold() if pattern else None
    out: list[tuple[CardDef, TestDef]] = []
    for card in compiled.cards:
        if chosen is not None and card.file not in chosen:
            continue
        for test in card.tests:
            name = f"{card.label} {test.name}".casefold()
            if wanted is None or wanted in name:
                out.append((card, test))
    return out


def run_tests(
    path: Path,
    ruleset: str | None,
    pattern: str | None,
    output_format: str,
    verbose: bool,
    emit: Emit,
    style: Style = plain,
) -> int:
    """Run every `test` block of a pack (those matching `pattern`); report like pytest."""
    compiled = load_compiled(path, ruleset, emit, style, as_json=output_format == "json")
    if compiled is None:
        return EXIT_CONTENT
    results = []
    seconds: dict[int, float] = {}
    for card, test in _selected(compiled, pattern):
        started = time.perf_counter()
        results.append(run_test(compiled.new_game, card, test))
        seconds[len(results) - 1] = time.perf_counter() - started
    failed = [r for r in results if not r.passed]
    unmatched = bool(pattern) and not results
    if output_format == "junit":
        emit(render_junit(compiled.checked.name, results, seconds).rstrip("\n"))
        return EXIT_NO_TESTS if unmatched else EXIT_CONTENT if failed else EXIT_CLEAN
    if output_format == "json":
        emit(json.dumps(_tests_json(results), indent=2, ensure_ascii=False))
        return EXIT_NO_TESTS if unmatched else EXIT_CONTENT if failed else EXIT_CLEAN
    if output_format == "sarif":
        emit(render_findings([_finding(r) for r in failed]))
        return EXIT_NO_TESTS if unmatched else EXIT_CONTENT if failed else EXIT_CLEAN
    by_file: dict[str, list[TestResult]] = {}
    for result in results:
        by_file.setdefault(result.card.file, []).append(result)
    for file, file_results in by_file.items():
        if verbose:
            for r in file_results:
                mark = style("PASSED", "note") if r.passed else style("FAILED", "error")
                emit(f"{file}:{r.test.line}: {r.name} {mark}")
        else:
            marks = "".join("." if r.passed else style("F", "error") for r in file_results)
            emit(f"{file} {marks}")
    for result in failed:
        emit("")
        emit(
            style(f"FAILED {result.card.file}:{result.line}:{result.column}", "error")
            + f" {result.name}"
        )
        emit(f"    {result.failure}")
        emit("    log:")
        for line in result.log or ["(nothing happened)"]:
            emit(f"      {line}")
    emit("")
    summary = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    if unmatched:
        emit(style(f"{summary}: no test matches -k {pattern!r}", "error"))
        emit("  a test is matched by its card's kind and title and its own name, ignoring case")
        return EXIT_NO_TESTS
    if not results:
        summary += " (the pack has no tests)"
    emit(style(summary, "error" if failed else "note"))
    return EXIT_CONTENT if failed else EXIT_CLEAN


def _finding(result: TestResult) -> Finding:
    """A failed test, at the step that failed."""
    line, column = result.line or result.test.line, result.column
    return Finding(
        "test-failed",
        "error",
        f"{result.name}: {result.failure}",
        Span(result.card.file, line, column, line, column + 1),
    )


def _tests_json(results: Sequence[TestResult]) -> dict[str, Any]:
    failed = sum(1 for r in results if not r.passed)
    return {
        "passed": len(results) - failed,
        "failed": failed,
        "tests": [
            {
                "card": r.card.title,
                "kind": r.card.kind,
                "variant": r.card.variant,
                "test": r.test.name,
                "file": r.card.file,
                "line": r.line,
                "column": r.column,
                "passed": r.passed,
                "failure": r.failure,
                "log": r.log,
            }
            for r in results
        ],
    }
