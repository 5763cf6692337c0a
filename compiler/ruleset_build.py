"""Building a Ruleset from merged ruleset data: one builder per section, in dependency order.

Each builder reads one section of the merged tables, checks what that section names against the
sections built before it, and records every problem on the shared `SectionBuilder`, so that one
pass reports all of a ruleset's cross-reference errors at once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from compiler.patterns import (
    Literal,
    Pattern,
    PatternError,
    PatternTable,
    SlotType,
    compile_pattern,
)
from compiler.ruleset_model import Chart, CheckRule, Derived, Kind, Ruleset, RulesetError, Wording
from compiler.texttemplates import TemplateError, template_slots
from compiler.world import build_world, stat_rules, world_triggers, world_vocabularies
from compiler.yamlio import YamlDocument
from dsl.parser import CONDITION_KEYWORDS, STATEMENT_KEYWORDS
from dsl.spans import Diagnostic
from runtime.games import UnknownGame, game_module
from runtime.module import ENGINE_TRIGGERS, GameModule
from runtime.stats import DerivedRule, StatRule
from runtime.world import World

YamlPath = tuple[str | int, ...]
"""Keys from the top of a ruleset file down to one entry, to place an error there."""


class SectionBuilder:
    """The merged ruleset data and the cross-reference errors found while building it."""

    def __init__(self, data: dict[str, Any], top: YamlDocument) -> None:
        self.data = data
        self.top = top
        self.errors: list[Diagnostic] = []
        self.texts: dict[str, dict[str, str]] = {}

    def section(self, name: str) -> dict[str, Any]:
        """One section's entries (empty when the ruleset leaves it out)."""
        return self.data.get(name) or {}

    def error(self, message: str, path: YamlPath, *, key: bool = False) -> None:
        """Record a cross-reference error at the place in the YAML it is about (its value, or
        with `key` its key)."""
        span = self.top.span(path, key=key)
        self.errors.append(Diagnostic("E0412", "error", message, span))

    def table(self, section: str, slot_types: dict[str, SlotType]) -> PatternTable:
        """Compile one section's patterns, reporting the malformed and the unmatchable."""
        patterns: list[Pattern] = []
        for name, entry in self.section(section).items():
            if entry is None:
                continue
            source = entry if isinstance(entry, str) else entry["pattern"]
            try:
                pattern = compile_pattern(name, source, slot_types)
            except PatternError as error:
                self.error(str(error), (section, name))
                continue
            if isinstance(entry, dict) and isinstance(entry.get("summary"), str):
                pattern = replace(pattern, summary=entry["summary"])
            clash = _reserved_word(section, pattern)
            if clash is not None:
                self.error(
                    f"{section} entry {name!r} uses {clash!r}, a word the grammar reserves "
                    "there; no card line could ever match it",
                    (section, name),
                )
            patterns.append(pattern)
            text = entry.get("text") if isinstance(entry, dict) else None
            if text is not None:
                self.template(text, {s.name for s in pattern.slots}, (section, name, "text"))
                self.texts.setdefault(section, {})[name] = text
        return PatternTable.build(section, patterns)

    def template(self, text: str, slots: set[str] | None, path: YamlPath) -> None:
        """Report a rules-text template that is malformed or names a slot it cannot have."""
        try:
            used = template_slots(text)
        except TemplateError as error:
            self.error(str(error), path)
            return
        unknown = used - slots - {"this"} if slots is not None else set()
        if unknown:
            self.error(f"text {text!r} names no slot of its pattern: {sorted(unknown)}", path)


@dataclass(frozen=True, slots=True)
class _Tables:
    """The pattern tables, one per phrase section."""

    verbs: PatternTable
    modifiers: PatternTable
    conditions: PatternTable
    properties: PatternTable
    values: PatternTable
    blocks: PatternTable
    checks: PatternTable


def build_ruleset(
    data: dict[str, Any], top: YamlDocument, documents: list[YamlDocument], path: str
) -> Ruleset:
    """The Ruleset the merged data describes; RulesetError with every problem if it is wrong."""
    builder = SectionBuilder(data, top)
    stats = _stats(builder)
    derived = _derived(builder, stats)
    decks = {
        name: tuple((d or {}).get("kinds", [])) for name, d in builder.section("decks").items()
    }
    places = tuple(builder.section("places"))
    bands = _bands(builder, stats, derived)
    world = build_world(
        data,
        tuple(stats.values()),
        tuple(DerivedRule(d.name, d.source, d.table) for d in derived.values()),
        builder.section("kinds"),
        builder.error,
    )
    vocabularies = _vocabularies(builder, stats, derived, decks, places, bands, world)
    slot_types = _slot_types(builder, vocabularies)
    table = builder.table
    tables = _Tables(
        verbs=table("verbs", slot_types),
        modifiers=table("modifiers", slot_types),
        conditions=table("conditions", slot_types),
        properties=table("properties", slot_types),
        values=table("values", slot_types),
        blocks=table("blocks", slot_types),
        checks=table("checks", slot_types),
    )
    stat_names = [*stats, *derived]
    module = _runtime_module(builder)
    if module is not None:
        _check_procedures(builder, module, stat_names)
    triggers = _triggers(builder, module, world)
    if module is not None:
        _phase_steps(builder, module, world)
    _blocks(builder, triggers, stat_names)
    kinds = _kinds(builder, tables.properties, tables.conditions, decks, world)
    _slot_titles(builder, slot_types)
    _deck_kinds(builder, decks, kinds)
    charts = _charts(builder, kinds)
    _needs(builder, kinds)
    wording = _wording(builder, tables.verbs, tables.blocks)
    if builder.errors:
        raise RulesetError(builder.errors)
    values_data = builder.section("values")
    digest_source = json.dumps([d.data for d in documents], sort_keys=True, default=str)
    return Ruleset(
        name=str(data.get("ruleset")),
        title=str(data.get("title")),
        file=top.file,
        path=path,
        digest=hashlib.sha256(digest_source.encode()).hexdigest()[:16],
        stats=stats,
        derived=derived,
        decks=decks,
        places=places,
        world=world,
        slot_types=slot_types,
        value_types={name: v["type"] for name, v in values_data.items() if v is not None},
        settable_values=frozenset(
            name for name, v in values_data.items() if v is not None and v.get("settable")
        ),
        block_bodies={
            name: b["body"] for name, b in builder.section("blocks").items() if b is not None
        },
        procedures=_procedures(builder),
        runtime=str(data.get("runtime", "base")),
        kinds=kinds,
        charts=charts,
        wording=wording,
        verbs=tables.verbs,
        modifiers=tables.modifiers,
        conditions=tables.conditions,
        properties=tables.properties,
        values=tables.values,
        blocks=tables.blocks,
        checks=tables.checks,
        data=json.loads(json.dumps(data, default=str)),
    )


def _reserved_word(section: str, pattern: Pattern) -> str | None:
    """The grammar's word a pattern cannot contain where its phrases are written, if any."""
    if section in ("values", "conditions"):
        words = [e.word for e in pattern.elements if isinstance(e, Literal)]
        return next((w for w in words if w in CONDITION_KEYWORDS), None)
    if section in ("verbs", "modifiers", "properties", "blocks"):
        first = pattern.first_word
        return first if first in STATEMENT_KEYWORDS else None
    return None


def _stats(builder: SectionBuilder) -> dict[str, StatRule]:
    """`stats:`, each with its start inside its limits and its overflow a known stat."""
    stats = {stat.name: stat for stat in stat_rules(builder.section("stats"))}
    for name, stat in stats.items():
        if not stat.low <= stat.start <= stat.high:
            builder.error(
                f"stat {name!r} must have min <= start <= max, not {stat.low}, {stat.start}, "
                f"{stat.high}",
                ("stats", name),
            )
        if stat.above_max is not None and stat.above_max not in stats:
            builder.error(
                f"stat {name!r} overflows into unknown stat {stat.above_max!r}", ("stats", name)
            )
    return stats


def _derived(builder: SectionBuilder, stats: dict[str, StatRule]) -> dict[str, Derived]:
    """`derived:`, each reading a known stat through a table that covers its whole range."""
    derived: dict[str, Derived] = {}
    for name, d in builder.section("derived").items():
        if d["from"] not in stats:
            builder.error(
                f"derived stat {name!r} reads unknown stat {d['from']!r}", ("derived", name)
            )
            continue
        derived[name] = Derived(name, d["from"], {int(k): int(v) for k, v in d["table"].items()})
        source = stats[d["from"]]
        missing = [v for v in range(source.low, source.high + 1) if v not in derived[name].table]
        if missing:
            builder.error(
                f"derived stat {name!r} has no value for {d['from']} "
                + ", ".join(map(str, missing[:5]))
                + f"; its table must cover {source.low} to {source.high}",
                ("derived", name, "table"),
            )
    return derived


def _bands(
    builder: SectionBuilder, stats: dict[str, StatRule], derived: dict[str, Derived]
) -> frozenset[str]:
    """`bands:`, each naming a stat with its limits the right way round."""
    bands = {name: b for name, b in builder.section("bands").items() if b is not None}
    for name, band in bands.items():
        stat, (low, high) = next(iter(band.items()))
        if stat not in stats and stat not in derived:
            builder.error(f"band {name!r} names {stat!r}, which is not a stat", ("bands", name))
        elif low > high:
            builder.error(f"band {name!r} has its limits the wrong way round", ("bands", name))
    return frozenset(bands)


def _vocabularies(
    builder: SectionBuilder,
    stats: dict[str, StatRule],
    derived: dict[str, Derived],
    decks: dict[str, tuple[str, ...]],
    places: tuple[str, ...],
    bands: frozenset[str],
    world: World,
) -> dict[str, frozenset[str]]:
    """`vocabularies:` with the words the other sections and the world name."""
    vocabularies: dict[str, frozenset[str]] = {
        name: frozenset(words or []) for name, words in builder.section("vocabularies").items()
    }
    vocabularies["stats"] = frozenset([*stats, *derived])
    vocabularies["tracked_stats"] = frozenset(stats)  # derived stats follow; they never change
    vocabularies["decks"] = frozenset(decks)
    vocabularies["places"] = frozenset(places)
    vocabularies["bands"] = bands
    vocabularies["kinds"] = frozenset(builder.section("kinds"))
    vocabularies |= world_vocabularies(world)
    vocabularies["stats"] |= vocabularies["actor_stats"]
    vocabularies["tracked_stats"] |= vocabularies["actor_stats"]
    return vocabularies


def _limits(value: Any) -> tuple[int, int] | None:
    return (int(value[0]), int(value[1])) if isinstance(value, list) else None


def _slot_types(
    builder: SectionBuilder, vocabularies: dict[str, frozenset[str]]
) -> dict[str, SlotType]:
    """`slots:`, each with its limits the right way round and a known vocabulary."""
    slot_types: dict[str, SlotType] = {}
    for name, s in builder.section("slots").items():
        if s is None:
            continue
        for limit in ("integer", "signed"):
            if limit in s and s[limit][0] > s[limit][1]:
                builder.error(
                    f"slot {name!r} has its {limit} limits the wrong way round", ("slots", name)
                )
        vocabulary = s.get("vocabulary")
        if vocabulary is not None and vocabulary not in vocabularies:
            builder.error(f"slot {name!r} uses unknown vocabulary {vocabulary!r}", ("slots", name))
            continue
        slot_types[name] = SlotType(
            name=name,
            vocabulary=vocabulary,
            words=vocabularies.get(vocabulary or "", frozenset()),
            repeat=bool(s.get("repeat", False)),
            integer=_limits(s.get("integer")),
            signed=_limits(s.get("signed")),
            text=bool(s.get("text", False)),
            titles=tuple(s.get("titles") or ()),
        )
    return slot_types


def _runtime_module(builder: SectionBuilder) -> GameModule | None:
    """`runtime:`, the game module the ruleset's checks and steps run in."""
    try:
        return game_module(str(builder.data.get("runtime", "base")))
    except UnknownGame as unknown:
        builder.error(str(unknown), ("runtime",))
        return None


def _check_procedures(builder: SectionBuilder, module: GameModule, stat_names: list[str]) -> None:
    """`checks:`, each run by a procedure of the game module that gives what it promises."""
    for name, check in builder.section("checks").items():
        if check is None:
            continue
        procedure = module.checks.get(check["procedure"])
        if procedure is None:
            known = ", ".join(sorted(module.checks)) or "none"
            builder.error(
                f"check {name!r}: the {module.name} runtime has no procedure "
                f"{check['procedure']!r} (it has: {known})",
                ("checks", name, "procedure"),
            )
            continue
        result = check["outcomes"] if isinstance(check["outcomes"], str) else "named"
        if procedure.results and result not in procedure.results:
            gives = " or ".join(sorted(procedure.results))
            builder.error(
                f"check {name!r}: procedure {check['procedure']!r} gives {gives}, not {result}",
                ("checks", name, "outcomes"),
            )
        for problem in procedure.validate(check.get("params") or {}, stat_names):
            builder.error(f"check {name!r}: {problem}", ("checks", name, "params"))


def _procedures(builder: SectionBuilder) -> dict[str, CheckRule]:
    """`checks:` as the compiler reads them: procedure, what they give, their params."""
    return {
        name: CheckRule(
            name=name,
            procedure=c["procedure"],
            result=c["outcomes"] if isinstance(c["outcomes"], str) else "named",
            names=tuple(c["outcomes"]) if isinstance(c["outcomes"], list) else (),
            params=dict(c.get("params") or {}),
        )
        for name, c in builder.section("checks").items()
        if c is not None
    }


def _triggers(builder: SectionBuilder, module: GameModule | None, world: World) -> set[str]:
    """`triggers:`, each announced by someone, and every trigger the world fires declared."""
    triggers = {name for name, entry in builder.section("triggers").items() if entry is not None}
    if module is not None:
        for name in sorted(triggers - module.announces - ENGINE_TRIGGERS - world_triggers(world)):
            builder.error(
                f"trigger {name!r} is never announced by the {module.name} runtime, so no "
                "block could run on it",
                ("triggers", name),
            )
    for name in sorted(world_triggers(world) - triggers):
        builder.error(
            f"the rounds, phases or tracks fire trigger {name!r}, which the ruleset does not "
            "declare in `triggers:`",
            ("turns",) if "turns" in builder.data else ("tracks",),
        )
    return triggers


def _phase_steps(builder: SectionBuilder, module: GameModule, world: World) -> None:
    """`turns:`, each phase's steps ones the game module can take."""
    for phase in world.turns.phases:
        for index, step in enumerate(phase.steps):
            if step not in module.steps:
                known = ", ".join(sorted(module.steps)) or "none"
                builder.error(
                    f"phase {phase.name!r}: the {module.name} runtime has no step {step!r} "
                    f"(it has: {known})",
                    ("turns", "phases", phase.name, "steps", index),
                )


def _blocks(builder: SectionBuilder, triggers: set[str], stat_names: list[str]) -> None:
    """`blocks:`, each on a declared trigger, needing a known verb, held by known stats."""
    for name, block in builder.section("blocks").items():
        trigger = (block or {}).get("trigger")
        if trigger is not None and trigger not in triggers:
            builder.error(
                f"block {name!r} runs on trigger {trigger!r}, which the ruleset does not "
                f"declare (it declares: {', '.join(sorted(triggers)) or 'none'})",
                ("blocks", name, "trigger"),
            )
        needs = (block or {}).get("needs")
        if needs is not None and needs not in builder.section("verbs"):
            builder.error(
                f"block {name!r} needs verb {needs!r}, which the ruleset does not declare",
                ("blocks", name, "needs"),
            )
        for stat in (block or {}).get("while_stat") or {}:
            if stat not in stat_names:
                builder.error(
                    f"block {name!r} holds while unknown stat {stat!r}",
                    ("blocks", name, "while_stat"),
                )


def _kinds(
    builder: SectionBuilder,
    properties: PatternTable,
    conditions: PatternTable,
    decks: dict[str, tuple[str, ...]],
    world: World,
) -> dict[str, Kind]:
    """`kinds:`, each naming known properties, blocks, deck, marks and narrated property."""
    blocks_data = builder.section("blocks")
    # Properties every kind may give (a card's picture), after those the kind lists itself.
    every_kind = [
        name
        for name, entry in builder.section("properties").items()
        if isinstance(entry, dict) and entry.get("every_kind") and name in properties.by_name
    ]
    card_tokens = {n for n, t in world.tracks.items() if t.on == "card"}
    kinds: dict[str, Kind] = {}
    for name, k in builder.section("kinds").items():
        k = k or {}
        for prop in k.get("properties", {}):
            if prop not in properties.by_name:
                builder.error(f"kind {name!r} names unknown property {prop!r}", ("kinds", name))
        for block in k.get("blocks", []):
            if blocks_data.get(block) is None:  # absent, or blanked by an extending ruleset
                builder.error(f"kind {name!r} names unknown block {block!r}", ("kinds", name))
        if k.get("deck") is not None and k["deck"] not in decks:
            builder.error(f"kind {name!r} goes to unknown deck {k['deck']!r}", ("kinds", name))
        shown_when = k.get("shown_when")
        if shown_when is not None and not k.get("hidden"):
            builder.error(
                f"kind {name!r} is shown when {shown_when!r} but is not dealt face down "
                "(`hidden: true`)",
                ("kinds", name, "shown_when"),
            )
        elif shown_when is not None and shown_when not in conditions.by_name:
            builder.error(
                f"kind {name!r} is shown when {shown_when!r}, which is not one of the "
                "ruleset's `conditions:`",
                ("kinds", name, "shown_when"),
            )
        variants = k.get("variants")
        kinds[name] = Kind(
            name=name,
            deck=k.get("deck"),
            options=bool(k.get("options", False)),
            properties={
                **{p: r == "required" for p, r in k.get("properties", {}).items()},
                **{p: False for p in every_kind if p not in k.get("properties", {})},
            },
            blocks=tuple(k.get("blocks", [])),
            variants_same=tuple(variants.get("same", [])) if variants else None,
            variants_same_options=bool(variants.get("same_options")) if variants else False,
            narrated=k.get("narrated"),
            hidden=bool(k.get("hidden", False)),
            shown_when=shown_when,
            marks=tuple(k.get("marks") or ()),
        )
        for mark in k.get("marks") or ():
            if mark not in kinds[name].properties and mark not in card_tokens:
                builder.error(
                    f"kind {name!r} marks {mark!r}, which is neither one of its properties nor "
                    "a token kind on cards (`tracks:` with `on: card`)",
                    ("kinds", name, "marks"),
                )
        if k.get("narrated") is not None and k["narrated"] not in kinds[name].properties:
            builder.error(
                f"kind {name!r} is narrated from {k['narrated']!r}, which is none of its "
                "properties",
                ("kinds", name, "narrated"),
            )
    return kinds


def _slot_titles(builder: SectionBuilder, slot_types: dict[str, SlotType]) -> None:
    """A slot that takes card titles takes them of known kinds."""
    kinds_data = builder.section("kinds")
    for slot in slot_types.values():
        for kind in slot.titles:
            if kind not in kinds_data:
                builder.error(
                    f"slot {slot.name!r} names titles of unknown kind {kind!r}",
                    ("slots", slot.name, "titles"),
                )


def _deck_kinds(
    builder: SectionBuilder, decks: dict[str, tuple[str, ...]], kinds: dict[str, Kind]
) -> None:
    """`decks:`, each holding known kinds."""
    for deck, deck_kinds in decks.items():
        for kind in deck_kinds:
            if kind not in kinds:
                builder.error(f"deck {deck!r} holds unknown kind {kind!r}", ("decks", deck))


def _charts(builder: SectionBuilder, kinds: dict[str, Kind]) -> tuple[Chart, ...]:
    """`charts:`, each picking cards of a known kind."""
    charts = []
    for name, c in builder.section("charts").items():
        if c is None:
            continue
        symbols = c.get("symbols") or {}
        charts.append(
            Chart(name, c["kind"], c["key"], symbols.get("kind"), symbols.get("property"))
        )
        if c["kind"] not in kinds:
            builder.error(f"chart {name!r} names unknown kind {c['kind']!r}", ("charts", name))
    return tuple(charts)


def _needs(builder: SectionBuilder, kinds: dict[str, Kind]) -> None:
    """`game: needs:`, each naming a known kind."""
    game = builder.data.get("game")
    needs = game.get("needs") if isinstance(game, dict) else None
    for kind, need in (needs or {}).items():
        if need is not None and kind not in kinds:
            builder.error(
                f"`needs:` names unknown kind {kind!r}", ("game", "needs", kind), key=True
            )


def _wording(builder: SectionBuilder, verbs: PatternTable, blocks: PatternTable) -> Wording:
    """`wording:`, with its templates and the entries it names checked."""
    table = builder.section("wording")
    for key, value in table.items():
        if key in ("names", "short", "cost"):
            continue
        phrases = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, phrase in phrases:
            if isinstance(phrase, str):
                builder.template(phrase, None, ("wording", key, *([sub] if sub else [])))
    for verb, phrase in (table.get("short") or {}).items():
        pattern = verbs.by_name.get(verb)
        if pattern is None:
            builder.error(f"a short form is given for unknown verb {verb!r}", ("wording", "short"))
        else:
            builder.template(phrase, {s.name for s in pattern.slots}, ("wording", "short", verb))
    cost = table.get("cost") or {}
    for name in cost.get("verbs") or []:
        if name not in verbs.by_name:
            builder.error(f"wording names unknown cost verb {name!r}", ("wording", "cost"))
    for name in cost.get("blocks") or []:
        if name not in blocks.by_name:
            builder.error(f"wording names unknown block {name!r}", ("wording", "cost"))
    return Wording(builder.texts, table)
