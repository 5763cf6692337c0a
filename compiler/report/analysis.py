"""What the pack report says about each card's odds: outcomes across a stat, and the flags.

Every option (or effect block) is walked exactly (`runtime.odds`) at the stats the report is
given, and again at each value of the stat its first check rolls, from the ruleset's lowest to
its highest. That stat is set as `--set` sets it: a derived stat (one read from a table of
another) is pinned at the value, and every other stat stays as given. The chart's axis is then
the number the check rolls, one column per value, with no repeats and no side effects; varying
the source instead would repeat a value the table gives twice, and would mix the check's odds
with what the source stat itself does to the outcomes. A check that rolls
the best of several stats (an attack) sets them all to the value, each within its own range.
A stat of a wide range is charted at `MAX_COLUMNS` values of it, and the chart says so. The
walks of a card, as given and at every value, share one budget of work (`runtime.odds`); a
value whose walk cannot be done (a pool past the dice a check rolls, say) is left off its
chart with a warning, and a card whose walk as given cannot be done gets the error instead of
its charts.

Good and bad come from the ruleset: a stat whose lowest value kills is good (more is better),
a stat whose excess is taken from a good stat, or that kills when pushed past its top, is bad;
a stat's `better: more|less` says it where those rules do not. Other stats count as neither.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from compiler.build import CompiledPack
from compiler.ir import Card
from compiler.odds import given, odds_table, walk_failed, written_checks
from compiler.playing import apply_settings
from compiler.report.uses import endless_use, halfway, uses_paid_by_the_turn
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic, Span
from runtime.cards import CardDef
from runtime.game import Game
from runtime.odds import MAX_WORK, BlockOdds, Budget, Table, card_odds
from runtime.stats import polarity as stat_polarity

RARE = Fraction(2, 100)
"""A branch that happens less often than this (or more often than 1 - RARE) is flagged."""

VARIANT_THRESHOLD = Fraction(1, 2)
"""Variants whose expected change of a good or bad stat differs by more than this are flagged."""

MAX_COLUMNS = 24
"""A stat with a wider range is charted at this many values, evenly spread, ends included."""

MAX_PACK_WORK = 10 * MAX_WORK
"""Steps the walks of a whole report may take, about fifteen seconds: the bundled pack takes
8,000 for its 116 cards, so a pack of tens of thousands of cards fits, but not thousands of
cards that each take a card's whole budget. The cards after it are shown without charts."""


def polarity(ruleset: Ruleset) -> dict[str, int]:
    """+1 for each tracked stat more of which is good, -1 where more is bad."""
    return stat_polarity(ruleset.stats.values())


@dataclass(frozen=True)
class Flag:
    """Something a designer should look at, on one card."""

    kind: str  # "branch", "dominated", "endless", "variants"
    anchor: str  # the card's id in the page
    card: str  # the card's label
    text: str
    others: tuple[str, ...] = ()  # the ids of other cards it is about (another variant)


@dataclass
class Column:
    """The outcomes of a block with the chart's stat at one value."""

    value: int | None  # None: a block whose checks roll no stat
    given: bool  # the value the report is given
    odds: BlockOdds


@dataclass
class BlockReport:
    """One option or effect block: its odds as given, and across its stat."""

    name: str
    odds: BlockOdds  # at the given stats
    axis: tuple[str, ...]  # the stats the chart varies; () when its checks roll none
    columns: list[Column]
    also: list[str]  # other stats its checks roll, held as given
    flags: list[Flag] = field(default_factory=list)
    values: int = 0  # how many values the axis stat has (more than the columns: sampled)
    left_out: list[int] = field(default_factory=list)  # values whose walk cannot be done
    failure: Exception | None = None  # why the first of them cannot

    def expected(self, stats: Sequence[str]) -> dict[str, Fraction]:
        """The expected change of each stat at the given stats."""
        return self.odds.expected(stats)


@dataclass
class CardReport:
    """A card with the report of each of its options or blocks."""

    card: CardDef
    ir: Card
    anchor: str
    blocks: list[BlockReport] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    failed: Diagnostic | None = None  # why its odds cannot be worked out at all
    unwalked: bool = False  # not walked: the report's walks had taken too long already


@dataclass
class Analysis:
    """The report's findings across the pack."""

    cards: list[CardReport]
    given: dict[str, int]
    stats: list[str]  # tracked stats, whose changes outcomes report
    polarity: dict[str, int]
    problems: list[Diagnostic]  # cards whose odds, or some of whose columns, cannot be walked

    @property
    def flags(self) -> list[Flag]:
        """Every flag, card by card, once (a flag about two variants is on both)."""
        return list(dict.fromkeys(flag for card in self.cards for flag in card.flags))


class _Walks:
    """Walks cards with stats set over the command line's settings, each walk made once."""

    def __init__(self, compiled: CompiledPack, settings: Sequence[str]) -> None:
        self.compiled = compiled
        self.settings = list(settings)
        self.base = odds_table(compiled, settings)  # a usage error in --set is raised here
        self.tables: dict[tuple[str, ...], Table] = {(): self.base}
        self.walks: dict[tuple[int, tuple[str, ...]], list[BlockOdds] | Exception] = {}

    def table(self, values: dict[str, int]) -> Table:
        """The start of every walk with these stats set over the settings."""
        kept = [s for s in self.settings if s.partition("=")[0].strip() not in values]
        key = tuple(f"{name}={value}" for name, value in values.items())
        if key not in self.tables:
            settings = [*kept, *key]

            def setup(game: Game) -> None:
                apply_settings(game, self.compiled, settings)

            # The same rules and branch points; only the player differs.
            base = self.base
            self.tables[key] = Table(base.rules, base.cards, base.module, setup)
        return self.tables[key]

    def blocks(
        self, index: int, card: CardDef, values: dict[str, int], budget: Budget
    ) -> list[BlockOdds] | Exception:
        """The card's blocks walked with `values` set (as given when empty), or why they
        cannot be: a walk that failed is not tried again."""
        key = (index, tuple(f"{name}={value}" for name, value in values.items()))
        if key not in self.walks:
            try:
                self.walks[key] = card_odds(self.table(values), card, budget)
            except Exception as error:  # a card's code failing is reported on its line
                self.walks[key] = error
        return self.walks[key]


def anchors(cards: Sequence[CardDef]) -> list[str]:
    """A unique id for each card, readable in a link."""
    out = []
    for index, card in enumerate(cards, 1):
        slug = "".join(c if c.isalnum() else "-" for c in card.title.lower())
        slug = "-".join(part for part in slug.split("-") if part)[:40]
        out.append(f"card-{index}" + (f"-{slug}" if slug else ""))
    return out


def analyse(compiled: CompiledPack, settings: Sequence[str]) -> Analysis:
    """Walk every card of the pack, across the stats its checks roll, and flag what stands out."""
    walks = _Walks(compiled, settings)
    ruleset = compiled.checked.ruleset
    signs = polarity(ruleset)
    stats = walks.base.stats
    start = given(walks.base)
    by_place = {(ir["file"], ir["at"][0]): ir for ir in compiled.checked.cards}
    reports: list[CardReport] = []
    problems: list[Diagnostic] = []
    spent = 0
    limited = uses_paid_by_the_turn(ruleset)
    tables = [walks.base, walks.table(halfway(ruleset))]  # a heal gains nothing at full health
    for index, (card, anchor) in enumerate(
        zip(compiled.cards, anchors(compiled.cards), strict=True)
    ):
        report = CardReport(card, by_place[(card.file, card.line)], anchor)
        reports.append(report)
        if spent > MAX_PACK_WORK:
            report.unwalked = True
            continue
        budget = Budget()  # shared by the card's walks as given and at every value
        _walk_card(walks, index, report, ruleset, start, budget, problems)
        if report.failed is None:
            for block in report.blocks:
                block.flags = branch_flags(report, block, written_checks(ruleset, report.ir))
                report.flags += block.flags
            report.flags += dominance_flags(report, stats, signs)
            gained = None if limited else endless_use(tables, card, signs, budget)
            if gained is not None:
                text = f"its use spends nothing and has no limit: it gives {gained} every time"
                report.flags.append(Flag("endless", anchor, card.label, text))
        spent += budget.spent
    unwalked = [report for report in reports if report.unwalked]
    if unwalked:
        problems.append(_unwalked(reports, unwalked))
    by_anchor = {report.anchor: report for report in reports}
    for flag in variant_flags(reports, stats, signs):
        for anchor in (flag.anchor, *flag.others):
            by_anchor[anchor].flags.append(flag)
    return Analysis(reports, start, stats, signs, problems)


def _walk_card(
    walks: _Walks,
    index: int,
    report: CardReport,
    ruleset: Ruleset,
    start: dict[str, int],
    budget: Budget,
    problems: list[Diagnostic],
) -> None:
    """Walk one card as given and across its charts' stats, within its budget: its blocks, or
    why it cannot be walked, go on the report; its diagnostics on `problems`."""
    as_given = walks.blocks(index, report.card, {}, budget)
    if isinstance(as_given, Exception):
        report.failed, _ = walk_failed(report.card, as_given)
        problems.append(report.failed)
        return
    report.blocks = _blocks(walks, index, report.card, report.ir, as_given, ruleset, start, budget)
    warning = left_out(report.card, report.blocks)
    if warning is not None:
        problems.append(warning)


def _unwalked(reports: Sequence[CardReport], unwalked: Sequence[CardReport]) -> Diagnostic:
    """E0607 at the first card the report did not walk, its walks having taken too long."""
    first = unwalked[0].card
    return Diagnostic(
        "E0607",
        "error",
        f"the report walked the odds of {len(reports) - len(unwalked)} of the {len(reports)} "
        f"cards: its walks took more than {MAX_PACK_WORK} steps in all, and the other cards "
        "are shown without charts",
        Span(first.file, first.line, 1, first.line, 1),
        help="fix the cards whose odds take too much work (E0605), or report the pack in parts",
    )


def _blocks(
    walks: _Walks,
    index: int,
    card: CardDef,
    ir: Card,
    as_given: list[BlockOdds],
    ruleset: Ruleset,
    start: dict[str, int],
    budget: Budget,
) -> list[BlockReport]:
    """Each option or block of the card, walked as given (`as_given`, the card's first walk)
    and across its chart's stat."""
    effects = block_effects(card, ir, len(as_given))
    out = []
    for position, (odds, tree) in enumerate(zip(as_given, effects, strict=True)):
        rolled = checked_stats(tree, ruleset) or [(stat,) for stat in read_stats(tree, ruleset)]
        axis = rolled[0] if rolled else ()
        also = [s for group in rolled[1:] for s in group if s not in axis]
        columns = [Column(None, True, odds)]
        report = BlockReport(odds.name, odds, axis, columns, list(dict.fromkeys(also)))
        if axis:
            low, high = ruleset.stat_range(axis[0])
            report.columns, report.values = [], high - low + 1
            for value in spread(low, high):
                values = {s: _clamp(value, ruleset.stat_range(s)) for s in axis}
                walked = walks.blocks(index, card, values, budget)
                if isinstance(walked, Exception):
                    report.left_out.append(value)
                    report.failure = report.failure or walked
                    continue
                report.columns.append(Column(value, start.get(axis[0]) == value, walked[position]))
            if not report.columns:  # not one value could be walked: the walk as given stands
                report.columns = [Column(start.get(axis[0]), True, odds)]
        out.append(report)
    return out


def left_out(card: CardDef, blocks: Sequence[BlockReport]) -> Diagnostic | None:
    """W0605 when some values of a chart's stat could not be walked, at the line that failed."""
    missing = [block for block in blocks if block.failure is not None]
    if not missing:
        return None
    first = missing[0]
    assert first.failure is not None
    failed, reason = walk_failed(card, first.failure)
    charts = ", ".join(f"“{block.name}”" for block in missing)
    return Diagnostic(
        "W0605",
        "warning",
        f"the report leaves {left_out_text(first)} off the chart of {card.label} ({charts}): "
        + reason,
        failed.span,
        help="the odds at those values cannot be worked out; the rest of each chart is exact",
    )


def left_out_text(block: BlockReport) -> str:
    """The values of a chart's stat left off it: `will 43478, 86957, … 1000000 (23 values)`."""
    values = block.left_out
    shown = ", ".join(map(str, values))
    if len(values) > 4:
        shown = f"{values[0]}, {values[1]}, … {values[-1]} ({len(values)} values)"
    return f"{' & '.join(block.axis)} {shown}"


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], value))


def spread(low: int, high: int) -> list[int]:
    """Every value from low to high, or MAX_COLUMNS of them evenly spread when too many."""
    if high - low + 1 <= MAX_COLUMNS:
        return list(range(low, high + 1))
    step = (high - low) / (MAX_COLUMNS - 1)
    return sorted({low + round(i * step) for i in range(MAX_COLUMNS)})


def block_effects(card: CardDef, ir: Card, walked: int) -> list[object]:
    """The IR of each of the `walked` options or blocks, in the order `card_odds` walks them;
    the walk of playing a card of no blocks (a kind its module plays itself) has none."""
    if card.options:
        return [option.get("effects", []) for option in ir.get("options", [])]
    named = {block.get("block"): block for block in ir.get("blocks", [])}
    found: list[object] = [
        named.get(block.name, {}) for block in card.blocks if block.run is not None
    ]
    return found + [{} for _ in range(walked - len(found))]


def checked_stats(tree: object, ruleset: Ruleset) -> list[tuple[str, ...]]:
    """The stats each check in an IR tree rolls, in reading order (empty tuples left out)."""
    found: list[tuple[str, ...]] = []
    for node in _nodes(tree):
        check = node.get("check")
        if not isinstance(check, dict) or "outcomes" not in check:
            continue
        name = str(check.get("procedure"))
        procedure = ruleset.check_procedure(name)
        if procedure is None:
            continue
        read = procedure.stats(ruleset.procedures[name].params, check.get("args") or {}, ruleset)
        stats = tuple(dict.fromkeys(s for s in read if s in ruleset.stat_names))
        if stats and stats not in found:
            found.append(stats)
    return found


def read_stats(tree: object, ruleset: Ruleset) -> list[str]:
    """The stats an IR tree reads (in a condition, say), in reading order."""
    found: list[str] = []
    for node in _nodes(tree):
        args = node.get("args") if node.get("value") == "stat" else None
        stat = args.get("stat") if isinstance(args, dict) else None
        if isinstance(stat, str) and stat in ruleset.stat_names and stat not in found:
            found.append(stat)
    return found


def _nodes(tree: object) -> Iterator[Mapping[str, object]]:
    """Every mapping inside an IR tree, in reading order: any part of a card's IR (an effect,
    an outcome, a condition...), walked without regard to its type, so the readers above
    look for their keys and test what they find."""
    if isinstance(tree, dict):
        yield tree
        for value in tree.values():
            yield from _nodes(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _nodes(value)


# ---------------------------------------------------------------------------------- flags


def is_decision(step: str) -> bool:
    """Whether a path step is a decision (`may: yes`, `choose: Run`) rather than dice."""
    return step.startswith(("may: ", "choose: "))


Written = tuple[str, tuple[str, ...]]
"""A check or roll of a card as its paths read it: its header and its outcomes' labels."""


@dataclass(frozen=True)
class Branch:
    """The arms of one branch point as reached by one path prefix, each with its odds."""

    prefix: tuple[str, ...]
    header: str
    arms: tuple[tuple[str, Fraction], ...]  # (arm as written, its odds once reached)


def branches(odds: BlockOdds, points: Sequence[Written] = ()) -> list[Branch]:
    """Every check or roll of the block's paths with the odds of each of its arms.

    An arm's odds once its check is reached are the weight of the paths through it over the
    weight of the paths reaching the check (weights take decisions with even odds, so the
    decisions cancel). Arms the card writes that cannot happen are found among `points`, the
    card's own checks and rolls, and given odds 0; a check no card line writes (a token's
    search test) has an arm per result.
    """
    weight: dict[tuple[str, ...], Fraction] = {}
    for outcome in odds.outcomes:
        for depth in range(len(outcome.path) + 1):
            prefix = outcome.path[:depth]
            weight[prefix] = weight.get(prefix, Fraction(0)) + outcome.weight
    grouped: dict[tuple[tuple[str, ...], str], dict[str, Fraction]] = {}
    for path in weight:
        if not path or is_decision(path[-1]):
            continue
        header, _, arm = path[-1].partition(": ")
        reached = weight[path[:-1]]
        share = weight[path] / reached if reached else Fraction(0)
        grouped.setdefault((path[:-1], header), {})[arm] = share
    out = []
    for (prefix, header), arms in grouped.items():
        for point_header, written in points:
            folded = _folded(arms, written) if point_header == header else None
            if folded is not None:
                arms = folded
                break
        else:  # a check no card line writes (a rule's own): its results, the splits summed
            arms = _folded(arms, list(dict.fromkeys(a.partition(" (")[0] for a in arms))) or arms
        out.append(Branch(prefix, header, tuple(arms.items())))
    return out


def _folded(arms: dict[str, Fraction], written: Sequence[str]) -> dict[str, Fraction] | None:
    """The odds of each arm as the card writes it, the paths that the dice split further
    (`1+ (2 damage)`: what a check settles besides) summed back into their arm; None if some
    path is of no arm written here."""
    folded = dict.fromkeys(written, Fraction(0))
    for label, share in arms.items():
        arm = next((w for w in written if label == w or label.startswith(f"{w} (")), None)
        if arm is None:
            return None
        folded[arm] += share
    return folded


def branch_flags(report: CardReport, block: BlockReport, points: Sequence[Written]) -> list[Flag]:
    """A flag for each check or roll of the block with an arm under 2 % or over 98 %: those the
    card writes, not the checks a verb makes inside, whose every result is a path of its own."""
    flags = []
    written = {header for header, _ in points}
    for branch in branches(block.odds, points):
        if branch.header not in written:
            continue
        extreme = [(arm, p) for arm, p in branch.arms if p < RARE or p > 1 - RARE]
        if not extreme:
            continue
        where = f" after {' › '.join(branch.prefix)}" if branch.prefix else ""
        arms = ", ".join(
            f"{arm} {percent(p)}{' (never)' if not p else ''}" for arm, p in branch.arms
        )
        text = f"{block.name}: {branch.header}{where}: {arms}"
        flags.append(Flag("branch", report.anchor, report.card.label, text))
    return flags


def dominance_flags(report: CardReport, stats: Sequence[str], signs: dict[str, int]) -> list[Flag]:
    """A flag for each option no better than another option on any stat and worse on one.

    Only options compete (a card's effect blocks are not alternatives); only stats that are
    good or bad count, and death (less is better). Draws, moves and other effects have no
    value to weigh, so two options are compared only when they do the same of those: the
    same expected draws of each deck and the same other effects.
    """
    if not report.card.options or not signs:
        return []
    rated = [s for s in stats if s in signs]
    scores = []
    for block in report.blocks:
        mean = block.expected(rated)
        scores.append({**{s: signs[s] * mean[s] for s in rated}, "death": -block.odds.death})
    besides = [_besides(block.odds) for block in report.blocks]
    flags = []
    for i, j in combinations(range(len(report.blocks)), 2):
        if besides[i] != besides[j]:
            continue
        for better, worse in ((i, j), (j, i)):
            a, b = scores[better], scores[worse]
            if all(a[k] >= b[k] for k in a) and any(a[k] > b[k] for k in a):
                behind = [k for k in a if a[k] > b[k]]
                detail = ", ".join(
                    _difference(k, report.blocks[worse], report.blocks[better]) for k in behind
                )
                text = (
                    f"“{report.blocks[worse].name}” is never better than "
                    f"“{report.blocks[better].name}” and worse on {detail}"
                )
                flags.append(Flag("dominated", report.anchor, report.card.label, text))
    return flags


def _besides(odds: BlockOdds) -> tuple[tuple[tuple[str, Fraction], ...], frozenset[str]]:
    """What a block does besides stats and death: its expected draws and its other effects."""
    draws: dict[str, Fraction] = {}
    for outcome in odds.outcomes:
        for deck, count in outcome.draws.items():
            draws[deck] = draws.get(deck, Fraction(0)) + outcome.weight * count
    return tuple(sorted(draws.items())), frozenset(a for o in odds.outcomes for a in o.also)


def _difference(stat: str, worse: BlockReport, better: BlockReport) -> str:
    if stat == "death":
        return f"death ({percent(worse.odds.death)} against {percent(better.odds.death)})"
    return f"{stat} ({against(worse.expected([stat])[stat], better.expected([stat])[stat])})"


def variant_flags(
    reports: Sequence[CardReport], stats: Sequence[str], signs: dict[str, int]
) -> list[Flag]:
    """A flag for each pair of variants whose same option's expected change of a stat (every
    good or bad stat) differs by more than VARIANT_THRESHOLD."""
    rated = [s for s in stats if s in signs]
    groups: dict[tuple[str, str], list[CardReport]] = {}
    for report in reports:
        if report.card.variant is not None and report.blocks:
            groups.setdefault((report.card.kind, report.card.title), []).append(report)
    flags = []
    for group in groups.values():
        for one, other in combinations(group, 2):
            theirs = {block.name: block for block in other.blocks}
            for block in one.blocks:
                twin = theirs.get(block.name)
                if twin is None:
                    continue
                mine, its = block.expected(rated), twin.expected(rated)
                apart = [s for s in rated if abs(mine[s] - its[s]) > VARIANT_THRESHOLD]
                if not apart:
                    continue
                detail = ", ".join(f"{s} {against(mine[s], its[s])}" for s in apart)
                text = (
                    f"variants {one.card.variant} and {other.card.variant} differ on "
                    f"“{block.name}”: {detail}"
                )
                flags.append(Flag("variants", one.anchor, one.card.label, text, (other.anchor,)))
    return flags


def percent(value: Fraction) -> str:
    """A probability as a percentage, never rounded to 0 or 100 when it is not."""
    if value in (0, 1):
        return f"{int(value) * 100} %"
    shown = f"{float(value) * 100:.1f} %"
    if value and shown == "0.0 %":
        return "< 0.1 %"
    if value != 1 and shown == "100.0 %":
        return "> 99.9 %"
    return shown


def signed(value: Fraction, digits: int = 2) -> str:
    """An expected change with its sign, two decimals (more, up to 4, rather than show 0.00)."""
    while value and digits < 4 and round(float(value), digits) == 0:
        digits += 1
    return f"{float(value):+.{digits}f}"


def against(one: Fraction, other: Fraction) -> str:
    """`+0.56 against +0.00`, with as many decimals as it takes (up to 4) to tell them apart."""
    digits = next((d for d in (2, 3, 4) if round(float(one), d) != round(float(other), d)), 4)
    return f"{signed(one, digits)} against {signed(other, digits)}"
