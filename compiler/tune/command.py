"""What `pillbox tune` does: find the edit, show it as a diff with its figures, apply it.

The answer is what a designer can apply: the edits as a unified diff of the card files, every
target's figure before and after with its 95 % interval, a table of how far one move of each
knob moves each target (which numbers matter), and whether the pack's card tests still pass
with the edit. `--apply` writes the edit only if they do, each file replaced whole at once.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.bands import Reading, Target, TargetError, parse_target
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT, UsageError
from compiler.playing import Emit
from compiler.simulate.command import SimulateRequest
from compiler.simulate.engine import Engine
from compiler.tune.evaluate import RULESET_SUFFIXES, Lab
from compiler.tune.knobs import Knob, edited, find_designer_knobs, find_knobs
from compiler.tune.search import Budget, Found, search
from compiler.tune.seats import strongest_in_time


@dataclass(frozen=True)
class TuneRequest:
    """What `pillbox tune` was asked."""

    targets: tuple[str, ...]
    vary: tuple[str, ...]
    request: SimulateRequest
    budget: Budget
    apply: bool = False
    as_json: bool = False
    minutes: float = 15.0  # the time the seats are chosen to fit, when --policy names none


def tune(pack: Path, ruleset: str | None, asked: TuneRequest, emit: Emit, report: Emit) -> int:
    """Search for the edit, print it, apply it if asked; the exit code (1: targets not met)."""
    targets = _targets(asked.targets)
    if not asked.vary:
        raise UsageError("name the cards whose numbers may change: --vary TITLE (or a kind)")
    folder = _pack_folder(pack)
    request = asked.request
    with (
        Engine(request.engine, request.scheduler, request.workers or 1) as engine,
        Lab(folder, ruleset, targets, request, engine=engine) as lab,
    ):
        rulesets = {f: t for f, t in lab.texts.items() if f.endswith(RULESET_SUFFIXES)}
        knobs = find_knobs(lab.texts, asked.vary) + find_designer_knobs(rulesets, asked.vary)
        if not knobs:
            raise UsageError(
                f"--vary {', '.join(asked.vary)}: no card of that title or kind has a number, "
                "and no derived stat of the pack's own ruleset of that name has designer values"
            )
        first = lab.compiled(())
        if isinstance(first, str):
            raise UsageError(f"{pack} does not check ({first}): run pillbox check first")
        if lab.request.policy is None and lab.request.seats is None:
            workers = lab.request.workers or 1
            chosen = strongest_in_time(lab, knobs, asked.budget, asked.minutes, workers, report)
            lab.request = dataclasses.replace(lab.request, policy=chosen)
        try:
            found = search(lab, knobs, asked.budget, report)
        except TargetError as error:
            raise UsageError(str(error)) from None
        failing = lab.test_failures(found.best.edits) if found.best.edits else []
        changed = edited(lab.texts, found.best.edits)
        effects = _effects(lab, found, asked.budget)
        applied = False
        if asked.apply and found.best.edits and not failing:
            _write_atomically(folder, changed)
            applied = True
    answer = _answer(found, knobs, changed, lab.texts, effects, failing, applied, lab)
    if asked.as_json:
        emit(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        for line in _lines(answer, found):
            emit(line)
    return EXIT_CLEAN if found.met else EXIT_CONTENT


def _targets(texts: Sequence[str]) -> list[Target]:
    if not texts:
        raise UsageError("name at least one --target, e.g. --target 'won 40..60%'")
    try:
        return [parse_target(text) for text in texts]
    except TargetError as error:
        raise UsageError(str(error)) from None


def _pack_folder(pack: Path) -> Path:
    folder = (pack.parent if pack.name == "pack.yaml" else pack).resolve()
    if not (folder / "pack.yaml").is_file():
        raise UsageError(f"{pack}: tune works on a pack folder (with its pack.yaml)")
    return folder


def _effects(lab: Lab, found: Found, budget: Budget) -> list[dict[str, Any]]:
    """How far one move of each knob moved each target, on the first round's short sweeps."""
    if not found.singles:
        return []
    base = lab.trial((), min(budget.first_games, budget.most_games))
    rows = []
    for trial in found.singles:
        (edit,) = trial.edits
        row: dict[str, Any] = {"edit": edit.describe(), "step": edit.step}
        if trial.playable:
            row["moves"] = {
                r.target.text: round(r.value - b.value, 4)
                for r, b in zip(trial.readings, base.readings, strict=True)
            }
        else:
            row["cannot"] = trial.problem
        rows.append(row)
    return rows


def _answer(
    found: Found,
    knobs: Sequence[Knob],
    changed: dict[str, str],
    texts: dict[str, str],
    effects: list[dict[str, Any]],
    failing: list[str],
    applied: bool,
    lab: Lab,
) -> dict[str, Any]:
    best, start = found.best, found.start
    diff = "".join(
        "".join(
            difflib.unified_diff(
                texts[file].splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"a/{file}",
                f"b/{file}",
            )
        )
        for file, text in sorted(changed.items())
    )
    return {
        "met": found.met,
        "interrupted": found.interrupted,
        "policies": [lab.request.policy or "random"],  # tune seats one policy everywhere
        "seed": lab.request.seed,
        "games": best.games,
        "knobs": len(knobs),
        "edits": [
            {
                "card": e.knob.card,
                "file": e.knob.file,
                "line": e.knob.span.line,
                "column": e.knob.span.column,
                "from": e.knob.value,
                "to": e.value,
            }
            for e in best.edits
        ],
        "diff": diff,
        "targets": [
            {
                "target": after.target.text,
                "before": _figure(before),
                "after": _figure(after),
                "on fresh seeds": _figure(fresh) if fresh else None,
                "met": after.met and fresh is not None and fresh.met,
            }
            for before, after, fresh in zip(
                start.readings, best.readings, _fresh(found, len(best.readings)), strict=True
            )
        ],
        "effects": effects,
        "tests failing with the edit": failing,
        "applied": applied,
        "search": {
            "rounds": found.rounds,
            "candidates": found.candidates,
            "dropped early": found.dropped,
            "trials": lab.trials,
            "games played": lab.games_played,
        },
    }


def _fresh(found: Found, targets: int) -> list[Reading | None]:
    """Each target's reading on the fresh seeds the best was confirmed on, if it was."""
    confirmation = found.confirmation
    if confirmation is None or not confirmation.playable:
        return [None] * targets
    return list(confirmation.readings)


def _figure(reading: Reading) -> dict[str, Any]:
    return {
        "value": reading.value,
        "low": reading.low,
        "high": reading.high,
        "shown": reading.shown(),
    }


def _lines(answer: dict[str, Any], found: Found) -> list[str]:
    lines: list[str] = []
    policies = ", ".join(answer["policies"])
    if not found.best.edits:
        lines.append(
            "the pack meets every target as written"
            if found.met
            else "no edit found that meets the targets"
            if not found.best.met
            else "the pack meets every target as written, but not again on fresh seeds"
        )
    else:
        count = len(answer["edits"])
        lines.append(
            f"{'meets every target' if answer['met'] else 'nearest found'} with "
            f"{count} edit{'s' if count != 1 else ''} ({answer['games']} games a sweep, "
            f"seats: {policies}, seed {answer['seed']}):"
        )
        lines.extend(answer["diff"].rstrip("\n").splitlines())
    lines.append("")
    for row in answer["targets"]:
        mark = "met" if row["met"] else "not met"
        fresh = row["on fresh seeds"]
        again = f"; on fresh seeds {fresh['shown']}" if fresh and answer["edits"] else ""
        lines.append(
            f"  {row['target']}: {row['before']['shown']} → {row['after']['shown']}{again} ({mark})"
        )
    if answer["effects"]:
        lines.append("")
        lines.append("one move of each knob (on the first short sweeps):")
        for row in answer["effects"]:
            if "moves" in row:
                moved = ", ".join(f"{t} {v:+.3f}" for t, v in row["moves"].items())
                lines.append(f"  {row['edit']}: {moved}")
            else:
                lines.append(f"  {row['edit']}: cannot: {row['cannot']}")
    if answer["tests failing with the edit"]:
        lines.append("")
        lines.append("card tests that pin the old numbers (left to you; not applied):")
        lines.extend(f"  {failure}" for failure in answer["tests failing with the edit"])
    search_figures = answer["search"]
    lines.append("")
    lines.append(
        f"{search_figures['candidates']} candidates in {search_figures['rounds']} rounds, "
        f"{search_figures['dropped early']} dropped after a short sweep, "
        f"{search_figures['games played']} games played"
        + (" (interrupted: the best so far)" if answer["interrupted"] else "")
    )
    if answer["applied"]:
        lines.append("applied: the card files are edited, and their tests pass")
    return lines


def _write_atomically(folder: Path, changed: dict[str, str]) -> None:
    """Each changed card file replaced whole: written beside it, then renamed over it."""
    for file, text in changed.items():
        path = folder / file
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(temporary, path.stat().st_mode & 0o7777)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
