"""The per-file stage of checking: parse, lower, card passes, and optionally the IR schema.

Everything here depends only on the ruleset and the file's text, so its results are cached per
file, and a cold check of many files runs them in parallel processes.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, overload

from compiler.collector import collector_paused
from compiler.ir import Card, CardFacts
from compiler.irschema import validate_card
from compiler.kept import Kept, keeping
from compiler.lower import IRT, LoweredCard, lower_file
from compiler.passes import CARD_PASSES, pack_facts, run_passes
from compiler.printing.estimates import print_warnings
from compiler.ruleset import Ruleset, load_ruleset_file
from compiler.simulated import unsimulated
from dsl.parser import parse
from dsl.spans import Diagnostic, Span

PARALLEL_MIN_BYTES = 256_000
"""Below this much uncached text, starting worker processes costs more than it saves."""

LAST_RUN_WORKERS = [0]
"""How many processes the last `check_files` used (1: this one); tests read it."""


@dataclass
class FileResult(Generic[IRT]):
    """What checking one file on its own found: its cards' IR (whole, or only the facts the
    pack-wide passes read) and its diagnostics."""

    cards: list[LoweredCard[IRT]]
    diagnostics: list[Diagnostic]

    def facts(self) -> FileResult[CardFacts]:
        """The same result with only the facts of each card that the pack-wide passes read."""
        cards = [
            LoweredCard(pack_facts(card.ir), card.effect_lines, card.rule_lines, card.has_errors)
            for card in self.cards
        ]
        return FileResult(cards, self.diagnostics)

    def to_json(self, full_ir: bool = False) -> dict[str, Any]:
        """Plain data for the cache and for worker processes.

        Unless `full_ir` is asked for, of each card only the facts the pack-wide passes read
        are kept: a check needs no more, and the full IR would make the cache several times
        larger and slower. Compiling a pack needs the full IR.
        """
        return {
            "cards": [
                {
                    "ir": c.ir if full_ir else pack_facts(c.ir),
                    "effect_lines": c.effect_lines,
                    "rule_lines": c.rule_lines,
                    "has_errors": c.has_errors,
                }
                for c in self.cards
            ],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> FileResult[Any]:
        """Rebuild a result from plain data: whole cards or their facts, as `to_json` was
        asked for; the caller knows which."""
        cards = [
            LoweredCard(c["ir"], c["effect_lines"], c["rule_lines"], c["has_errors"])
            for c in data["cards"]
        ]
        return FileResult(cards, [Diagnostic.from_json(d) for d in data["diagnostics"]])


def check_file(
    ruleset: Ruleset,
    shown: str,
    text: str,
    validate_ir: bool = False,
    card_size: tuple[float, float] | None = None,
) -> FileResult[Card]:
    """Parse and lower one file and run the passes that look at one card at a time; with a
    card size, also the print passes (`compiler.printing.estimates`)."""
    parsed, diagnostics = parse(text, shown)
    cards, lowering = lower_file(ruleset, parsed, shown)
    diagnostics.extend(lowering)
    diagnostics.extend(run_passes(ruleset, cards, CARD_PASSES))
    missing = unsimulated(ruleset, cards)
    diagnostics.extend(missing.diagnostics)
    for card, lines in zip(cards, missing.lines, strict=True):
        # a line of a word with no code runs no more than `rule` text does
        card.rule_lines = min(card.effect_lines, card.rule_lines + lines)
    if card_size is not None:  # checking a pack that prints: what the print would warn of
        clean = [card.ir for card in cards if not card.has_errors]
        diagnostics.extend(print_warnings(ruleset, clean, card_size, text))
    if not parsed.cards and not diagnostics:
        diagnostics.append(
            Diagnostic(
                "W0408",
                "warning",
                "this file holds no cards",
                Span.whole_file(shown),
                'a card starts with its kind and title, e.g. item "Name" { ... }',
            )
        )
    if validate_ir:
        for card in cards:
            if not card.has_errors:
                diagnostics.extend(validate_card(ruleset, card.ir))
    return FileResult(cards, diagnostics)


@overload
def check_files(
    ruleset: Ruleset,
    jobs: Sequence[tuple[str, str]],
    validate_ir: bool = False,
    full_ir: Literal[False] = False,
    card_size: tuple[float, float] | None = None,
) -> list[FileResult[CardFacts]]: ...


@overload
def check_files(
    ruleset: Ruleset,
    jobs: Sequence[tuple[str, str]],
    validate_ir: bool = False,
    *,
    full_ir: Literal[True],
    card_size: tuple[float, float] | None = None,
) -> list[FileResult[Card]]: ...


def check_files(
    ruleset: Ruleset,
    jobs: Sequence[tuple[str, str]],
    validate_ir: bool = False,
    full_ir: bool = False,
    card_size: tuple[float, float] | None = None,
) -> list[FileResult[Card]] | list[FileResult[CardFacts]]:
    """Check (path, text) pairs, in worker processes when there is enough to gain.

    Results carry only the facts a check reads unless `full_ir` is asked for, wherever they
    were made: a caller sees the same shape for a small pack as for a large one.
    """
    workers = min(os.cpu_count() or 1, len(jobs), 8)
    with collector_paused():  # results pile up until all are made: nothing to collect
        if workers > 1 and sum(len(text) for _, text in jobs) >= PARALLEL_MIN_BYTES:
            done = _in_workers(workers, ruleset, jobs, validate_ir, full_ir, card_size)
            if done is not None:
                LAST_RUN_WORKERS[0] = workers
                return done
        LAST_RUN_WORKERS[0] = 1
        results = [
            _checked_once(ruleset, shown, text, validate_ir, card_size) for shown, text in jobs
        ]
        return results if full_ir else [result.facts() for result in results]


def _in_workers(
    workers: int,
    ruleset: Ruleset,
    jobs: Sequence[tuple[str, str]],
    validate_ir: bool,
    full_ir: bool,
    card_size: tuple[float, float] | None,
) -> list[FileResult[Any]] | None:
    """`check_files` in worker processes; None when no processes are to be had here."""
    from concurrent.futures.process import BrokenProcessPool, ProcessPoolExecutor

    try:
        with ProcessPoolExecutor(max_workers=workers, initializer=_plain_signals) as pool:
            futures = [
                pool.submit(_work, ruleset.path, shown, text, validate_ir, full_ir, card_size)
                for shown, text in jobs
            ]
            return [FileResult.from_json(f.result()) for f in futures]
    except (OSError, BrokenProcessPool):
        return None


_results: Kept[str] = Kept(256)
"""Each file's whole result, as plain data, where the process keeps results."""


def _checked_once(
    ruleset: Ruleset,
    shown: str,
    text: str,
    validate_ir: bool,
    card_size: tuple[float, float] | None,
) -> FileResult[Card]:
    """`check_file`, done once for the same ruleset, file, text and options; kept as plain
    data, so each caller gets a copy of its own to change (as results from workers are)."""
    if not keeping():
        return check_file(ruleset, shown, text, validate_ir, card_size)
    key = (ruleset.digest, ruleset.file, shown, text, validate_ir, card_size)
    kept = _results.get(key)
    if kept is not None:
        return FileResult.from_json(json.loads(kept))
    result = check_file(ruleset, shown, text, validate_ir, card_size)
    _results.put(key, json.dumps(result.to_json(full_ir=True)))
    return result


def _plain_signals() -> None:
    """A worker dies of SIGTERM as any process does, and leaves Ctrl-C to its parent: the
    handlers a command installs are forked with it, and a pool worker would send them back
    as the job's result."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(
    ruleset_path: str,
    shown: str,
    text: str,
    validate_ir: bool,
    full_ir: bool,
    card_size: tuple[float, float] | None,
) -> dict[str, Any]:
    """Run in a worker process: results travel back as plain data."""
    ruleset = load_ruleset_file(ruleset_path)
    with collector_paused():
        return check_file(ruleset, shown, text, validate_ir, card_size).to_json(full_ir)
