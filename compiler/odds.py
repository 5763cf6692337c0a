"""`pillbox odds`: the exact outcomes of a card's options and blocks, as a table or as JSON.

The walk itself is `runtime.odds`; here the checked IR tells it how each check and roll is
written (its header and its ranges, in the card's own words), and the results are worded.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from compiler.build import CompiledPack
from compiler.codegen import written_arm, written_header
from compiler.errors import EXIT_CLEAN, EXIT_CONTENT
from compiler.ir import Card
from compiler.passes import card_effects
from compiler.playing import (
    Emit,
    find_card,
    load_compiled,
    set_the_scene,
    variant_note,
)
from compiler.render import Style, plain, render_text
from compiler.ruleset import Ruleset
from compiler.terminal import echo
from dsl.spans import Diagnostic, Span
from runtime.cards import CardDef
from runtime.dice import MAX_POOL_DICE, PoolTooLarge
from runtime.game import Game, RunawayError
from runtime.odds import (
    BlockOdds,
    Outcome,
    Table,
    TooManyPaths,
    TooMuchWork,
    card_odds,
)
from runtime.testing import card_line, runtime_failure


def written_checks(ruleset: Ruleset, card: Card) -> list[tuple[str, tuple[str, ...]]]:
    """Each check and roll of a card as its odds paths read it: its header and its outcomes."""
    found = []
    for node in card_effects(card):
        table = node.get("check") or node.get("roll")
        if (
            not isinstance(table, dict)
            or not table.get("outcomes")
            or ("check" in node and table.get("procedure") is None)
        ):
            continue
        arms = tuple(written_arm(o) for o in table["outcomes"] if not o.get("invalid"))
        found.append((written_header(ruleset, node), arms))
    return found


@dataclass(frozen=True)
class OddsRequest:
    """What `pillbox odds` was asked."""

    title: str
    variant: int | str | None  # a number, or `random`
    settings: Sequence[str]
    as_json: bool
    against: str | None = None  # the card of an actor to face: your target


def odds_table(
    compiled: CompiledPack, settings: Sequence[str], against: str | None = None
) -> Table:
    """The start of every walk: the pack's game with the player as `--set` gives them, facing
    the actor of the `against` card, if one is named."""

    def setup(game: Game) -> None:
        set_the_scene(game, compiled, settings, against)

    # A usage error in the settings is raised here, once, not inside the walk.
    setup(compiled.new_game(seed=0))
    return Table(compiled.rules, compiled.cards, compiled.module, setup, against=against)


def variant_tables(
    compiled: CompiledPack, table: Table, blocks: Sequence[BlockOdds]
) -> list[tuple[str, Table]]:
    """The other starts the game module offers (with the Chaos Die...) for a card whose walks
    (`blocks`) rolled what they change, each after `table`'s."""
    rolled = set().union(*(block.procedures for block in blocks))

    def then(
        first: Callable[[Game], None], extra: Callable[[Game], None]
    ) -> Callable[[Game], None]:
        def setup(game: Game) -> None:
            first(game)
            extra(game)

        return setup

    return [
        (name, replace(table, setup=then(table.setup, variant.setup)))
        for name, variant in compiled.module.odds_variants.items()
        if variant.procedures & rolled
    ]


def given(table: Table) -> dict[str, int]:
    """Every stat as the walks start, modifiers included."""
    game = table.opening()
    return {name: game.stat(name) for name in game.stat_names()}


def odds_json(card: CardDef, blocks: list[BlockOdds], table: Table) -> dict[str, Any]:
    """The odds as the JSON scripts read (`pillbox odds --json`)."""
    return {
        "card": card.title,
        "variant": card.variant,
        "given": given(table),
        "blocks": [
            {
                "name": block.name,
                "outcomes": [_outcome_json(outcome) for outcome in block.outcomes],
                "expected": {
                    stat: round(float(mean), 4)
                    for stat, mean in block.expected(table.stats).items()
                },
                "death": round(float(block.death), 4),
                "final_blow": round(float(block.final_blow), 4),
                "decisions": block.decisions,
            }
            for block in blocks
        ],
    }


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "path": list(outcome.path),
        "probability": round(float(outcome.probability), 4),
        "exact": _exact(outcome.probability),
        "changes": outcome.changes,
        "draws": outcome.draws,
        "also": list(outcome.also),
        "death": outcome.death,
        "target": outcome.target,
        "final_blow": outcome.target_down,
    }


def _exact(value: Fraction) -> str:
    """The fraction in full: a check of many dice has odds of thousands of digits, past the
    4,300 that `str` of an int refuses (decimal has no such limit)."""
    numerator, denominator = (_digits(n) for n in (value.numerator, value.denominator))
    return numerator if value.denominator == 1 else f"{numerator}/{denominator}"


_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX)


def _digits(number: int) -> str:
    return str(_EXACT.create_decimal(number))


def odds_text(
    card: CardDef, blocks: list[BlockOdds], table: Table, variant: str | None = None
) -> list[str]:
    """The odds as a table per option or block, for a person."""
    start = ", ".join(f"{name} {value}" for name, value in given(table).items())
    out = [f"{card.label}{f' {variant}' if variant else ''}, given {start}"]
    if not blocks:
        out.append("  it has no effects to walk")
    quiet = [block.name for block in blocks if _nothing_to_tell(block)]
    for block in blocks:
        if block.name in quiet:
            continue
        out += ["", f"  {block.name}"]
        rows = [
            (_percent(o.probability), " › ".join(o.path) or "(always)", outcome_result(o))
            for o in block.outcomes
        ]
        width = max(len(path) for _, path, _ in rows)
        if block.decisions:
            out.append(
                "    percentages are per decision: a row is the chance of its path when the "
                "answers on it are given, so the rows of one set of answers add up to 100 %"
            )
        out += [f"    {odds:>7}  {path:<{width}}  {result}" for odds, path, result in rows]
        mean = block.expected(table.stats)
        expected = ", ".join(f"{stat} {float(value):+.2f}" for stat, value in mean.items())
        blow = f"; final blow {_percent(block.final_blow)}" if table.against else ""
        evenly = " (each answer taken with even odds)" if block.decisions else ""
        out.append(f"    expected{evenly}: {expected}; death {_percent(block.death)}{blow}")
    if quiet:
        # Round blocks that each printed "100.0 % (always) no change": said once.
        out += ["", f"  {', '.join(quiet)}: nothing left to chance, and no change the odds count"]
    return out


def _nothing_to_tell(block: BlockOdds) -> bool:
    """Whether a block always ends the one way, changing nothing the odds count."""
    if len(block.outcomes) != 1:
        return False
    only = block.outcomes[0]
    return not only.path and not _effects(only)


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.1f} %"


def outcome_result(outcome: Outcome) -> str:
    """What an outcome does, in a few words: `health -1; draw 1 item`."""
    return "; ".join(_effects(outcome)) or "no change"


def _effects(outcome: Outcome) -> list[str]:
    """Each thing an outcome does that the odds count, in words."""
    parts = [f"{stat} {delta:+d}" for stat, delta in outcome.changes.items()]
    parts += [f"draw {count} {deck}" for deck, count in outcome.draws.items()]
    parts += list(outcome.also)
    parts += [f"target {stat} {delta:+d}" for stat, delta in outcome.target.items()]
    if outcome.target_down:
        parts.append("final blow")
    if outcome.death:
        parts.append("death")
    return parts


def show_odds(
    path: Path, ruleset: str | None, request: OddsRequest, emit: Emit, style: Style = plain
) -> int:
    """`pillbox odds PACK "Title"`: walk every option or block of the card and report."""
    compiled = load_compiled(path, ruleset, emit, style, only=request.title)
    if compiled is None:
        return EXIT_CONTENT
    card = find_card(compiled, request.title, request.variant)
    note = variant_note(compiled, card, request.variant)
    if note is not None:
        (echo(style, err=True) if request.as_json else emit)(style("note:", "note") + f" {note}")
    table = odds_table(compiled, request.settings, request.against)
    try:
        blocks = card_odds(table, card, implied=True)
        variants = [
            (name, other, card_odds(other, card, implied=True))
            for name, other in variant_tables(compiled, table, blocks)
        ]
    except Exception as error:  # a card's code failing is reported on its line
        problem, _ = walk_failed(card, error)
    else:
        if request.as_json:
            shown = odds_json(card, blocks, table)
            shown["variants"] = [
                {"name": name, **odds_json(card, found, other)} for name, other, found in variants
            ]
            emit(json.dumps(shown, indent=2, ensure_ascii=False))
        else:
            for line in odds_text(card, blocks, table):
                emit(line)
            for name, other, found in variants:
                emit("")
                for line in odds_text(card, found, other, name):
                    emit(line)
        return EXIT_CLEAN
    emit(render_text(problem, compiled.sources(), style))
    return EXIT_CONTENT


WORK_HELP = (
    "each check, roll and decision multiplies the paths, and `repeat` multiplies them again: "
    "split a long chain of checks over several cards or blocks, or shorten the `repeat`"
)

POOL_HELP = (
    f"no check may roll more than {MAX_POOL_DICE} dice: look for bonuses added in a `repeat`, "
    "or a stat whose range in the ruleset is far wider than a card needs"
)


def walk_failed(card: CardDef, error: Exception) -> tuple[Diagnostic, str]:
    """Why the walk of a card stopped, at the card line that was running (or the card's first
    line): E0606 for a pool past the dice a check rolls, E0605 for a walk past its work,
    E0604 for anything else (too many paths, a runaway, the card's code failing); and the
    reason alone, which ends the diagnostic's message, for a caller that words it otherwise."""
    line, column = card_line(error, card.file) or (card.line, 1)
    code, help_text, message = "E0604", None, runtime_failure(error)
    if isinstance(error, PoolTooLarge):
        code, help_text, message = "E0606", POOL_HELP, str(error)
    elif isinstance(error, TooMuchWork):
        code, help_text, message = "E0605", WORK_HELP, str(error)
    elif isinstance(error, (RunawayError, TooManyPaths)):
        message = str(error)
    diagnostic = Diagnostic(
        code,
        "error",
        f"the odds of {card.label} cannot be worked out: {message}",
        Span(card.file, line, column, line, column + 1),
        help=help_text,
    )
    return diagnostic, message
