"""Rulesets: a game's tables read from YAML, merged over the ruleset they extend, and checked."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from compiler.lineage import conflicts, linearize
from compiler.pack import display_path, hard_link_refused, hard_linked
from compiler.patterns import (
    Literal,
    Pattern,
    PatternError,
    PatternTable,
    SlotType,
    compile_pattern,
    did_you_mean,
)
from compiler.schemaerrors import schema_diagnostics
from compiler.texttemplates import TemplateError, template_slots
from compiler.world import build_world, stat_rules, world_triggers, world_vocabularies
from compiler.yamlio import MAX_YAML_BYTES, YamlDocument, load_valid_yaml
from dsl.parser import CONDITION_KEYWORDS, STATEMENT_KEYWORDS
from dsl.spans import Diagnostic, Span
from runtime.checks import COUNTED, Bounds, CheckProcedure
from runtime.games import UnknownGame, game_module
from runtime.module import ENGINE_TRIGGERS
from runtime.stats import DerivedRule, StatRule
from runtime.world import World


@dataclass(frozen=True, slots=True)
class Derived:
    """A stat read from a table by the value of another stat."""

    name: str
    source: str
    table: dict[int, int]

    @property
    def low(self) -> int:
        """The smallest value the table gives."""
        return min(self.table.values())

    @property
    def high(self) -> int:
        """The largest value the table gives."""
        return max(self.table.values())


@dataclass(frozen=True, slots=True)
class Kind:
    """A card kind: its deck, properties, blocks and variant rules."""

    name: str
    deck: str | None
    options: bool
    properties: dict[str, bool]  # property name -> required
    blocks: tuple[str, ...]
    variants_same: tuple[str, ...] | None
    variants_same_options: bool
    narrated: str | None = None  # the property the narrator reads first
    marks: tuple[str, ...] = ()  # properties and card tokens printed as boxes to mark


@dataclass(frozen=True, slots=True)
class CheckRule:
    """A `check` entry: its procedure in the game module, what it gives, and its params."""

    name: str
    procedure: str
    result: str  # "successes", "total", "face", "damage", or "named"
    names: tuple[str, ...]  # a named check's outcomes
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def counted(self) -> bool:
        """Whether its outcomes are counts and ranges rather than names."""
        return self.result in COUNTED


@dataclass(frozen=True, slots=True)
class Chart:
    """Cards of `kind` are picked by the value of `key` (a chart keyed by symbols)."""

    name: str
    kind: str
    key: str
    symbol_kind: str | None
    symbol_property: str | None


@dataclass(frozen=True, slots=True)
class Wording:
    """How rules text reads: the entries' `text:` templates and the `wording:` table."""

    texts: dict[str, dict[str, str]]  # section ("verbs", "checks"...) -> entry name -> template
    table: dict[str, Any]  # the merged `wording:` mapping, shaped by the schema


@dataclass
class Ruleset:
    """Everything the compiler knows about one game, ready to match phrases against."""

    name: str
    title: str
    file: str
    path: str  # the ruleset file, absolute, for worker processes to load it again
    digest: str
    stats: dict[str, StatRule]
    derived: dict[str, Derived]
    decks: dict[str, tuple[str, ...]]
    places: tuple[str, ...]
    world: World
    slot_types: dict[str, SlotType]
    verbs: PatternTable
    modifiers: PatternTable
    conditions: PatternTable
    properties: PatternTable
    values: PatternTable
    blocks: PatternTable
    checks: PatternTable
    value_types: dict[str, str]
    settable_values: frozenset[str]
    block_bodies: dict[str, str]
    procedures: dict[str, CheckRule]
    kinds: dict[str, Kind]
    charts: tuple[Chart, ...]
    wording: Wording
    runtime: str = "base"  # the game module's name
    data: dict[str, Any] = field(default_factory=dict)  # the merged tables, as plain data

    def check_procedure(self, check: str) -> CheckProcedure | None:
        """The game module's procedure that runs one of the ruleset's checks."""
        rule = self.procedures.get(check)
        if rule is None:
            return None
        return game_module(self.runtime).checks.get(rule.procedure)

    def check_bounds(self, check: str, args: dict[str, Any]) -> Bounds | None:
        """The results a check can give with these slots, if its procedure says."""
        procedure = self.check_procedure(check)
        if procedure is None or procedure.bounds is None:
            return None
        return procedure.bounds(self.procedures[check].params, args, self)

    def stat_range(self, name: str) -> tuple[int, int]:
        """The lowest and highest value a stat or derived stat can take."""
        if name in self.stats:
            return self.stats[name].low, self.stats[name].high
        derived = self.derived[name]
        return derived.low, derived.high

    @property
    def stat_names(self) -> list[str]:
        """Tracked and derived stats, in declaration order."""
        return [*self.stats, *self.derived]


UNPLACED = "<where the pack names its ruleset>"
"""The file of a diagnostic about a ruleset reference, until the caller places it."""


class RulesetError(Exception):
    """A ruleset could not be loaded; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "ruleset error")
        self.diagnostics = diagnostics


def bundled_names() -> list[str]:
    """Names of the rulesets shipped with pillbox."""
    root = resources.files("content")
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and entry.joinpath("ruleset.yaml").is_file()
    )


def bundled_games() -> list[str]:
    """Names of the games shipped with pillbox, in order of name: each folder of the bundled
    content that holds a ruleset and the showcase pack made for it (`content/<game>/ruleset.yaml`
    beside `pack.yaml`). A game added there is found here, with no list to edit; `base`, a
    ruleset alone, is none."""
    root = resources.files("content")
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir()
        and entry.joinpath("ruleset.yaml").is_file()
        and entry.joinpath("pack.yaml").is_file()
    )


def bundled_lineage(ruleset: Ruleset) -> list[str]:
    """The names of the bundled rulesets a ruleset is made of, in its merge order (itself first
    if it is one): `house, base` for a pack's ruleset that extends a bundled `house`."""
    order = _Lineage().walk(Path(ruleset.path), ())
    return [key.parent.name for key in order if _is_bundled(key)]


def bundled_path(name: str) -> Path | None:
    """The file of a bundled ruleset, or None."""
    entry = resources.files("content").joinpath(name, "ruleset.yaml")
    return Path(str(entry)) if entry.is_file() else None


def load_ruleset(reference: str, *, base_dir: Path | None = None) -> Ruleset:
    """Load a ruleset by bundled name, or by file path.

    A pack's own ruleset file (`base_dir` given) must lie inside the pack folder; a path the
    user names on the command line (`base_dir` None) is read where it is.
    """
    return _load_cached(str(_resolve(reference, base_dir)))


def load_ruleset_file(path: str) -> Ruleset:
    """Load a ruleset file already found by `load_ruleset` (worker processes do this)."""
    return _load_cached(path)


def _resolve(reference: str, base_dir: Path | None) -> Path:
    try:
        return _find(reference, base_dir)
    except (OSError, ValueError) as error:  # e.g. a NUL byte in the name
        raise RulesetError([_problem("E0410", f"no ruleset {reference!r}: {error}")]) from None


def _find(reference: str, base_dir: Path | None) -> Path:
    if "/" not in reference and not reference.endswith((".yaml", ".yml")):
        bundled = bundled_path(reference)
        if bundled is not None:
            return bundled
    candidate = (base_dir / reference if base_dir is not None else Path(reference)).resolve()
    if base_dir is not None:
        root = base_dir.resolve()
        if root not in candidate.parents:
            raise RulesetError(
                [_problem("E0411", f"the ruleset {reference!r} lies outside the pack folder")]
            )
    if not candidate.is_file():
        known = bundled_names()
        problem = _problem(
            "E0410", f"no ruleset {reference!r}: it is neither a bundled ruleset nor a file"
        )
        hint = did_you_mean(reference, known) or f"bundled rulesets: {', '.join(known)}"
        raise RulesetError([Diagnostic(problem.code, "error", problem.message, problem.span, hint)])
    return candidate


def _problem(code: str, message: str, span: Span | None = None) -> Diagnostic:
    return Diagnostic(code, "error", message, span or Span.whole_file(UNPLACED))


def entry_places(ruleset: Ruleset, section: str, name: str) -> list[tuple[Path, int, int]]:
    """Where the files a ruleset merges write an entry of a section (its key's line and
    column in each file, the ruleset's own first); for an editor's go to definition."""
    lineage = _Lineage()
    found = []
    for key in lineage.walk(Path(ruleset.path), ()):
        at = lineage.documents[key].key_positions.get((section, name))
        if at is not None:
            found.append((key, *at))
    return found


def _load_cached(path: str) -> Ruleset:
    # A pack's ruleset may extend other files of the pack: an edit to one of those is a new
    # version too. Which files it extends is known once it has been read.
    for _ in range(2):
        files = (path, *_EXTENDED.get(path, ()))
        ruleset = _load_versioned(path, tuple(_file_version(Path(f)) for f in files))
        if _EXTENDED.get(path, ()) == files[1:]:
            break
    return ruleset


_EXTENDED: dict[str, tuple[str, ...]] = {}
"""Each loaded ruleset file -> the files of its pack it extends (none for a bundled one)."""


def _file_version(path: Path) -> tuple[int, int]:
    """What tells an edited ruleset file from the one loaded before: its mtime and size."""
    try:
        status = path.stat()
    except OSError:
        return (0, 0)
    return (status.st_mtime_ns, status.st_size)


@cache
def _load_versioned(path: str, versions: tuple[tuple[int, int], ...]) -> Ruleset:
    lineage = _Lineage()
    order = lineage.walk(Path(path), ())
    _EXTENDED[path] = tuple(str(key) for key in order[1:] if not _is_bundled(key))
    documents = [lineage.documents[key] for key in order]
    top = documents[0]
    problems = lineage.conflict_problems(top, order)
    if problems:
        raise RulesetError(problems)
    merged: dict[str, Any] = {}
    for document in reversed(documents):
        merged = _merge(merged, document.data)
    merged["ruleset"] = top.data.get("ruleset")
    merged.pop("extends", None)
    # Rules text needs every word of the table: a ruleset that extends nothing reads in the
    # base's words wherever it does not give its own.
    merged["wording"] = _merge(_base_wording(), merged.get("wording") or {})
    return _build(merged, top, documents, path)


def _base_wording() -> dict[str, Any]:
    base = bundled_path("base")
    return dict(_read(base).data.get("wording") or {}) if base else {}


class _Lineage:
    """A ruleset and every one it extends, read once each, and the order they merge in."""

    def __init__(self) -> None:
        self.documents: dict[Path, YamlDocument] = {}
        self.orders: dict[Path, list[Path]] = {}  # each ruleset's own merge order
        self.parents: dict[Path, list[Path]] = {}  # each ruleset's parents, as written
        self.pack_bytes = 0  # what the pack's own files weigh together (bounded as one file)

    def walk(self, path: Path, seen: tuple[Path, ...]) -> list[Path]:
        """The merge order of the ruleset at `path`: itself first (compiler.lineage)."""
        key = path.resolve()
        if key in self.orders:
            return self.orders[key]
        if key not in self.documents:
            if not _is_bundled(key):
                self.pack_bytes += _size(key)
            if self.pack_bytes > MAX_YAML_BYTES:
                raise RulesetError(
                    [_problem("E0412", f"the ruleset files {path.name} combines are too large")]
                )
            self.documents[key] = _read(path)
        document = self.documents[key]
        written = document.data.get("extends")
        names = written if isinstance(written, list) else [] if written is None else [written]
        lineages, parents = [], []
        for index, parent in enumerate(names):
            where = document.span(("extends", index) if isinstance(written, list) else ("extends",))
            parent_path = self.parent_file(parent, key, seen, where)
            if parent_path is None:
                known = bundled_names()
                hint = did_you_mean(parent, known) or f"bundled rulesets: {', '.join(known)}"
                message = f"extends {parent!r}, which is not a bundled ruleset"
                raise RulesetError([Diagnostic("E0410", "error", message, where, hint)])
            if parent_path.resolve() in (*seen, key):
                raise RulesetError([_problem("E0412", f"ruleset {parent!r} extends itself", where)])
            lineages.append(self.walk(parent_path, (*seen, key)))
            parents.append(parent_path.resolve())
        self.parents[key] = parents
        order = linearize(key, lineages)
        if order is None:
            raise RulesetError(
                [
                    Diagnostic(
                        "E0446",
                        "error",
                        f"these rulesets cannot be merged in the order {names!r}: one is listed "
                        "before a ruleset that extends it",
                        document.span(("extends",)),
                        "list each ruleset before the rulesets it extends (a game before base)",
                    )
                ]
            )
        self.orders[key] = order
        return order

    @staticmethod
    def parent_file(name: str, key: Path, seen: tuple[Path, ...], where: Span) -> Path | None:
        """The file a ruleset extends: a bundled ruleset by name, or a file of the pack beside
        the pack's own ruleset (never outside its folder; a bundled ruleset names only
        bundled ones)."""
        if not name.endswith((".yaml", ".yml")):
            return bundled_path(name)
        top = seen[0] if seen else key
        candidate = (key.parent / name).resolve()
        if _is_bundled(key) or top.parent not in candidate.parents:
            message = f"extends {name!r}, which lies outside the pack folder of {top.name}"
            raise RulesetError([_problem("E0411", message, where)])
        if not candidate.is_file():
            raise RulesetError([_problem("E0410", f"extends {name!r}, which is no file", where)])
        return candidate

    def conflict_problems(self, top: YamlDocument, order: list[Path]) -> list[Diagnostic]:
        """E0445 for each entry two unrelated rulesets define differently, at `extends:`."""
        parents = order[1:]
        related = {
            index: frozenset(parents.index(p) for p in self.orders[key][1:])
            for index, key in enumerate(parents)
        }
        documents = [self.documents[key] for key in parents]
        problems = []
        for conflict in conflicts(top, documents, related):
            first, other = conflict.first, conflict.second
            problems.append(
                Diagnostic(
                    "E0445",
                    "error",
                    f"{conflict.name} is defined differently by {first.data.get('ruleset')} "
                    f"({conflict.where(first)}) and {other.data.get('ruleset')} "
                    f"({conflict.where(other)}), neither of which extends the other",
                    self.extends_item(order[0], parents[documents.index(other)]),
                    f"state {conflict.name} in this ruleset to say which holds (its own "
                    "entries win over every ruleset it extends), or set it to null",
                )
            )
        return problems

    def extends_item(self, top: Path, key: Path) -> Span:
        """Where the ruleset `top` names the one through which it extends `key`."""
        document = self.documents[top]
        listed = isinstance(document.data.get("extends"), list)
        for index, parent in enumerate(self.parents[top]):
            if listed and key in self.orders[parent]:
                return document.span(("extends", index))
        return document.span(("extends",))


def _size(path: Path) -> int:
    """A file's size, or 0 when it cannot be read (reading it then says why)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read(path: Path) -> YamlDocument:
    """One ruleset file, validated (a bundled one from its precompiled JSON when it fits)."""
    shown = display_path(path)
    try:
        if hard_linked(path):
            raise RulesetError([hard_link_refused(shown)])
        if path.stat().st_size > MAX_YAML_BYTES:
            raise RulesetError([_problem("E0412", f"the ruleset {shown} is too large")])
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as error:
        raise RulesetError([_problem("E0410", f"cannot read ruleset {shown}: {error}")]) from None
    document = _precompiled(path, text, shown)
    if document is None:
        document, errors = load_valid_yaml(text, shown, "ruleset", _ruleset_problems)
        if document is None:
            raise RulesetError(errors)
    return document


PRECOMPILED = "ruleset.compiled.json"
"""Beside a bundled ruleset.yaml: the same document, validated, as JSON (`make rulesets`)."""


def _precompiled(path: Path, text: str, shown: str) -> YamlDocument | None:
    """A bundled ruleset's validated document, when the JSON beside it matches its text.

    The bundled rulesets are read on every run; parsing their YAML and loading jsonschema to
    validate them again cost more than the rest of checking a small pack. A stale or missing
    JSON file only costs that time back: the YAML is then read as any other ruleset. Only
    pillbox's own are trusted so: beside a pack's ruleset the JSON is the pack's, as
    untrusted as the YAML, and is never read.
    """
    if not _is_bundled(path):
        return None
    compiled = path.with_name(PRECOMPILED)
    if not compiled.is_file():
        return None
    try:
        data = json.loads(compiled.read_text(encoding="utf-8"))
        if data.get("source_sha256") != source_digest(text):
            return None
        return YamlDocument.from_json(shown, data["document"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _is_bundled(path: Path) -> bool:
    """Whether a ruleset file is one pillbox ships (an installer may hard-link those)."""
    bundled = bundled_path(path.parent.name)
    return bundled is not None and bundled.resolve() == path.resolve()


def source_digest(text: str) -> str:
    """The hash that ties a precompiled ruleset to its YAML text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def precompile(path: Path) -> dict[str, Any]:
    """Validate a ruleset file and return what `make rulesets` writes beside it."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    document, errors = load_valid_yaml(text, display_path(path), "ruleset", _ruleset_problems)
    if document is None:
        raise RulesetError(errors)
    return {"source_sha256": source_digest(text), "document": document.to_json()}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Merge `over` onto `base` key by key; a null value removes the key."""
    result = dict(base)
    for key, value in over.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merge(result[key], value)
        else:
            result[key] = value
    return result


@cache
def _ruleset_validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads(resources.files("schemas").joinpath("ruleset.schema.json").read_text())
    return Draft202012Validator(schema)


def _ruleset_problems(document: YamlDocument) -> list[Diagnostic]:
    """Everything wrong with one ruleset file, as its schema sees it."""
    return schema_diagnostics(document, _ruleset_validator(), "E0412", "ruleset", "a mapping")


# ---------------------------------------------------------------- building


class _Builder:
    """Turns merged ruleset data into a Ruleset, collecting cross-reference errors."""

    def __init__(self, data: dict[str, Any], top: YamlDocument) -> None:
        self.data = data
        self.top = top
        self.errors: list[Diagnostic] = []
        self.texts: dict[str, dict[str, str]] = {}

    def error(self, message: str, path: tuple[str | int, ...]) -> None:
        """Record a cross-reference error at the place in the YAML it is about."""
        self.errors.append(Diagnostic("E0412", "error", message, self.top.span(path)))

    def table(self, section: str, slot_types: dict[str, SlotType]) -> PatternTable:
        """Compile one section's patterns, reporting the malformed and the unmatchable."""
        patterns: list[Pattern] = []
        for name, entry in (self.data.get(section) or {}).items():
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

    def template(self, text: str, slots: set[str] | None, path: tuple[str | int, ...]) -> None:
        """Report a rules-text template that is malformed or names a slot it cannot have."""
        try:
            used = template_slots(text)
        except TemplateError as error:
            self.error(str(error), path)
            return
        unknown = used - slots - {"this"} if slots is not None else set()
        if unknown:
            self.error(f"text {text!r} names no slot of its pattern: {sorted(unknown)}", path)


def _reserved_word(section: str, pattern: Pattern) -> str | None:
    """The grammar's word a pattern cannot contain where its phrases are written, if any."""
    if section in ("values", "conditions"):
        words = [e.word for e in pattern.elements if isinstance(e, Literal)]
        return next((w for w in words if w in CONDITION_KEYWORDS), None)
    if section in ("verbs", "modifiers", "properties", "blocks"):
        first = pattern.first_word
        return first if first in STATEMENT_KEYWORDS else None
    return None


def _check_runtime_tables(
    builder: _Builder, data: dict[str, Any], stat_names: list[str], world: World
) -> None:
    """What the runtime reads as data must make sense: its module, dice faces, stat windows,
    the triggers it announces and the steps of a round."""
    try:
        module = game_module(str(data.get("runtime", "base")))
    except UnknownGame as unknown:
        builder.error(str(unknown), ("runtime",))
        module = None
    for name, check in (data.get("checks") or {}).items():
        if module is None or check is None:
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
    triggers = {name for name, entry in (data.get("triggers") or {}).items() if entry is not None}
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
            ("turns",) if "turns" in data else ("tracks",),
        )
    for phase in world.turns.phases:
        for index, step in enumerate(phase.steps):
            if module is not None and step not in module.steps:
                known = ", ".join(sorted(module.steps)) or "none"
                builder.error(
                    f"phase {phase.name!r}: the {module.name} runtime has no step {step!r} "
                    f"(it has: {known})",
                    ("turns", "phases", phase.name, "steps", index),
                )
    for name, block in (data.get("blocks") or {}).items():
        trigger = (block or {}).get("trigger")
        if trigger is not None and trigger not in triggers:
            builder.error(
                f"block {name!r} runs on trigger {trigger!r}, which the ruleset does not "
                f"declare (it declares: {', '.join(sorted(triggers)) or 'none'})",
                ("blocks", name, "trigger"),
            )
        needs = (block or {}).get("needs")
        if needs is not None and needs not in (data.get("verbs") or {}):
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


def _wording(
    builder: _Builder, table: dict[str, Any], verbs: PatternTable, blocks: PatternTable
) -> Wording:
    """The wording table, with its templates and the entries it names checked."""
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


def _limits(value: Any) -> tuple[int, int] | None:
    return (int(value[0]), int(value[1])) if isinstance(value, list) else None


def _build(
    data: dict[str, Any], top: YamlDocument, documents: list[YamlDocument], path: str
) -> Ruleset:
    builder = _Builder(data, top)
    stats = {stat.name: stat for stat in stat_rules(data.get("stats") or {})}
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
    derived: dict[str, Derived] = {}
    for name, d in (data.get("derived") or {}).items():
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
    decks = {
        name: tuple((d or {}).get("kinds", [])) for name, d in (data.get("decks") or {}).items()
    }
    places = tuple(data.get("places") or {})
    kinds_data: dict[str, Any] = data.get("kinds") or {}
    vocabularies: dict[str, frozenset[str]] = {
        name: frozenset(words or []) for name, words in (data.get("vocabularies") or {}).items()
    }
    vocabularies["stats"] = frozenset([*stats, *derived])
    vocabularies["tracked_stats"] = frozenset(stats)  # derived stats follow; they never change
    vocabularies["decks"] = frozenset(decks)
    vocabularies["places"] = frozenset(places)
    bands = {name: b for name, b in (data.get("bands") or {}).items() if b is not None}
    vocabularies["bands"] = frozenset(bands)
    for name, band in bands.items():
        stat, (low, high) = next(iter(band.items()))
        if stat not in stats and stat not in derived:
            builder.error(f"band {name!r} names {stat!r}, which is not a stat", ("bands", name))
        elif low > high:
            builder.error(f"band {name!r} has its limits the wrong way round", ("bands", name))
    vocabularies["kinds"] = frozenset(kinds_data)
    world = build_world(
        data,
        tuple(stats.values()),
        tuple(DerivedRule(d.name, d.source, d.table) for d in derived.values()),
        kinds_data,
        builder.error,
    )
    vocabularies |= world_vocabularies(world)
    vocabularies["stats"] |= vocabularies["actor_stats"]
    vocabularies["tracked_stats"] |= vocabularies["actor_stats"]

    slot_types: dict[str, SlotType] = {}
    for name, s in (data.get("slots") or {}).items():
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

    table = builder.table
    verbs, modifiers = table("verbs", slot_types), table("modifiers", slot_types)
    conditions, properties = table("conditions", slot_types), table("properties", slot_types)
    values, blocks = table("values", slot_types), table("blocks", slot_types)
    checks = table("checks", slot_types)
    values_data = data.get("values") or {}
    blocks_data = data.get("blocks") or {}
    _check_runtime_tables(builder, data, [*stats, *derived], world)
    procedures = {
        name: CheckRule(
            name=name,
            procedure=c["procedure"],
            result=c["outcomes"] if isinstance(c["outcomes"], str) else "named",
            names=tuple(c["outcomes"]) if isinstance(c["outcomes"], list) else (),
            params=dict(c.get("params") or {}),
        )
        for name, c in (data.get("checks") or {}).items()
        if c is not None
    }
    kinds: dict[str, Kind] = {}
    # Properties every kind may give (a card's picture), after those the kind lists itself.
    every_kind = [
        name
        for name, entry in (data.get("properties") or {}).items()
        if isinstance(entry, dict) and entry.get("every_kind") and name in properties.by_name
    ]
    for name, k in kinds_data.items():
        k = k or {}
        for prop in k.get("properties", {}):
            if prop not in properties.by_name:
                builder.error(f"kind {name!r} names unknown property {prop!r}", ("kinds", name))
        for block in k.get("blocks", []):
            if blocks_data.get(block) is None:  # absent, or blanked by an extending ruleset
                builder.error(f"kind {name!r} names unknown block {block!r}", ("kinds", name))
        if k.get("deck") is not None and k["deck"] not in decks:
            builder.error(f"kind {name!r} goes to unknown deck {k['deck']!r}", ("kinds", name))
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
            marks=tuple(k.get("marks") or ()),
        )
        card_tokens = {n for n, t in world.tracks.items() if t.on == "card"}
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
    for slot in slot_types.values():
        for kind in slot.titles:
            if kind not in kinds_data:
                builder.error(
                    f"slot {slot.name!r} names titles of unknown kind {kind!r}",
                    ("slots", slot.name, "titles"),
                )
    for deck, deck_kinds in decks.items():
        for kind in deck_kinds:
            if kind not in kinds:
                builder.error(f"deck {deck!r} holds unknown kind {kind!r}", ("decks", deck))
    charts = []
    for name, c in (data.get("charts") or {}).items():
        if c is None:
            continue
        symbols = c.get("symbols") or {}
        charts.append(
            Chart(name, c["kind"], c["key"], symbols.get("kind"), symbols.get("property"))
        )
        if c["kind"] not in kinds:
            builder.error(f"chart {name!r} names unknown kind {c['kind']!r}", ("charts", name))
    wording = _wording(builder, data.get("wording") or {}, verbs, blocks)
    if builder.errors:
        raise RulesetError(builder.errors)
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
        block_bodies={name: b["body"] for name, b in blocks_data.items() if b is not None},
        procedures=procedures,
        runtime=str(data.get("runtime", "base")),
        kinds=kinds,
        charts=tuple(charts),
        wording=wording,
        verbs=verbs,
        modifiers=modifiers,
        conditions=conditions,
        properties=properties,
        values=values,
        blocks=blocks,
        checks=checks,
        data=json.loads(json.dumps(data, default=str)),
    )
