"""`pillbox check`: every problem of the packs named, in one run, as text, JSON, GitHub annotations
or SARIF.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from compiler.check import check_paths
from compiler.commands.common import (
    style_of,
)
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.formats.sarif import render_sarif
from compiler.pack import display_path
from compiler.render import (
    plain,
    render_github,
    render_json,
    render_text,
    summary_line,
    unchecked_line,
)
from compiler.terminal import echo, terminal_safe


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="How to print the diagnostics (sarif: for code scanning).",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--strict-tests",
    is_flag=True,
    help="Report every card with effects and no test (W0331), and fail on it.",
)
@click.option(
    "--ruleset", "ruleset", metavar="NAME", help="Check loose .card files with this ruleset."
)
@click.option("--no-cache", is_flag=True, help="Ignore and do not update the check cache.")
@click.option(
    "--validate-ir",
    is_flag=True,
    default=None,
    help="Also validate every card's compiled IR against schemas/ir.schema.json "
    "(finds bugs in pillbox itself; slow). Also on with PILLBOX_VALIDATE_IR=1.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text output.",
)
def check(
    paths: tuple[Path, ...],
    output_format: str,
    strict: bool,
    strict_tests: bool,
    ruleset: str | None,
    no_cache: bool,
    validate_ir: bool | None,
    color: str,
) -> None:
    """Check card packs, pack.yaml files or .card files (the folder you are in, when none is
    named); report every problem in one run."""

    try:
        report = check_paths(
            list(paths) or [Path(".")],  # no path: the pack of the folder you are in
            ruleset,
            use_cache=not no_cache,
            validate_ir=validate_ir or None,
            strict_tests=strict_tests,
        )
    except UsageError as error:
        raise click.UsageError(terminal_safe(str(error))) from None
    diagnostics = report.diagnostics
    style = style_of(color) if output_format == "text" else plain
    emit = echo(style)
    if output_format == "json":
        emit(
            render_json(
                [p.pack.name for p in report.packs],
                report.files,
                report.cards,
                report.executable,
                diagnostics,
            )
        )
    elif output_format == "github":
        for diagnostic in diagnostics:
            emit(render_github(diagnostic))
    elif output_format == "sarif":
        emit(render_sarif(diagnostics))
    else:
        for diagnostic in diagnostics:
            emit(render_text(diagnostic, report.sources, style) + "\n")
    if output_format not in ("json", "sarif"):
        for result in report.packs:
            if result.ruleset is None:  # its cards were never read: no figures of them
                shown = display_path(result.pack.manifest)
                emit(unchecked_line(shown, result.errors, result.warnings))
                continue
            emit(
                summary_line(
                    result.pack.name,
                    result.card_count,
                    len(result.files),
                    result.errors,
                    result.warnings,
                    result.executable,
                    result.allowed,
                )
            )
    untested = strict_tests and any(d.code == "W0331" for d in diagnostics)
    failed = report.errors > 0 or (strict and report.warnings > 0) or untested
    sys.exit(EXIT_CONTENT if failed else EXIT_CLEAN)
