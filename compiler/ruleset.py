"""Rulesets: a game's tables read from YAML, merged over the ruleset they extend, and checked.

Loading lives here; what a built ruleset is lives in `compiler.ruleset_model` and how the merged
tables become one in `compiler.ruleset_build`. The model's names are re-exported, since every
reader of a ruleset starts from `load_ruleset`.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from compiler.lineage import conflicts, linearize
from compiler.pack import display_path, hard_link_refused, hard_linked
from compiler.patterns import did_you_mean
from compiler.ruleset_build import build_ruleset
from compiler.ruleset_model import Chart as Chart
from compiler.ruleset_model import CheckRule as CheckRule
from compiler.ruleset_model import Derived as Derived
from compiler.ruleset_model import Kind as Kind
from compiler.ruleset_model import Ruleset as Ruleset
from compiler.ruleset_model import RulesetError as RulesetError
from compiler.ruleset_model import Wording as Wording
from compiler.schemaerrors import schema_diagnostics
from compiler.yamlio import MAX_YAML_BYTES, YamlDocument, in_key_order, load_valid_yaml
from dsl.spans import Diagnostic, Span

UNPLACED = "<where the pack names its ruleset>"
"""The file of a diagnostic about a ruleset reference, until the caller places it."""


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


def lineage_documents(ruleset: Ruleset) -> list[tuple[Path, YamlDocument]]:
    """The files a ruleset merges, each with its document, in merge order (its own first)."""
    lineage = _Lineage()
    return [(key, lineage.documents[key]) for key in lineage.walk(Path(ruleset.path), ())]


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
    return build_ruleset(merged, top, documents, path)


def _base_wording() -> dict[str, Any]:
    base = bundled_path("base")
    return dict(_read(base).data.get("wording") or {}) if base else {}


MAX_EXTENDS_DEPTH = 32
"""The most rulesets one chain of `extends` may pass through below the pack's own (E0447)."""

MAX_RULESET_FILES = 64
"""The most ruleset files (bundled ones too) a ruleset may combine (E0447): lists of eight,
each extending eight more, would otherwise reach thousands within the depth and the bytes."""


def _cycle(parent: str, chain: tuple[Path, ...], again: Path) -> str:
    """What is wrong with extending `parent`, the file `again`, which is on the `chain` of
    rulesets that led to this one (the pack's own first): it extends this one, or is it."""
    loop = [*chain[chain.index(again) :], again]
    if len(loop) == 2 and parent == loop[0].name:
        return f"ruleset {parent!r} extends itself"
    folder = chain[0].parent
    shown = [str(p.relative_to(folder)) if p.is_relative_to(folder) else p.name for p in loop]
    if len(loop) == 2:
        return f"extends {parent!r}, which is this file ({shown[0]}) itself"
    return f"extends {parent!r}, which extends this one: a cycle {' → '.join(shown)}"


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
            if len(self.documents) >= MAX_RULESET_FILES:
                top = self.documents[seen[0]]
                raise RulesetError(
                    [
                        Diagnostic(
                            "E0447",
                            "error",
                            f"the rulesets {seen[0].name} extends are more than "
                            f"{MAX_RULESET_FILES} files ({path.name} is one more)",
                            top.span(("extends",)),
                            "merge the pack's ruleset files into fewer",
                        )
                    ]
                )
            if not _is_bundled(key):
                self.pack_bytes += _size(key)
            if self.pack_bytes > MAX_YAML_BYTES:
                raise RulesetError(
                    [
                        _problem(
                            "E0412",
                            f"the ruleset files {(seen[0] if seen else key).name} combines "
                            "are too large",
                        )
                    ]
                )
            self.documents[key] = _read(path)
        document = self.documents[key]
        written = document.data.get("extends")
        names = written if isinstance(written, list) else [] if written is None else [written]
        if names and len(seen) >= MAX_EXTENDS_DEPTH:
            top = self.documents[seen[0]]
            raise RulesetError(
                [
                    Diagnostic(
                        "E0447",
                        "error",
                        f"the rulesets {seen[0].name} extends go more than {MAX_EXTENDS_DEPTH} "
                        f"deep (ruleset {document.data.get('ruleset') or path.name!s} still "
                        f"extends {names[0]!r})",
                        top.span(("extends",)),
                        "merge the pack's ruleset files into fewer: each may extend several",
                    )
                ]
            )
        lineages: list[list[Path]] = []
        parents: list[Path] = []
        for index, parent in enumerate(names):
            where = document.span(("extends", index) if isinstance(written, list) else ("extends",))
            parent_path = self.parent_file(parent, key, seen, where)
            if parent_path is None:
                known = bundled_names()
                hint = did_you_mean(parent, known) or f"bundled rulesets: {', '.join(known)}"
                message = f"extends {parent!r}, which is not a bundled ruleset"
                raise RulesetError([Diagnostic("E0410", "error", message, where, hint)])
            resolved = parent_path.resolve()
            if resolved in (*seen, key):
                cycle = _cycle(parent, (*seen, key), resolved)
                raise RulesetError([_problem("E0412", cycle, where)])
            if resolved in parents:
                again = names[parents.index(resolved)]
                same = " twice" if again == parent else f", the same file as {again!r} before it"
                raise RulesetError([_problem("E0412", f"extends {parent!r}{same}", where)])
            lineages.append(self.walk(parent_path, (*seen, key)))
            parents.append(resolved)
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
        position = {key: index for index, key in enumerate(parents)}
        related = {
            index: frozenset(position[p] for p in self.orders[key][1:])
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
        document = in_key_order(document)
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
    return {"source_sha256": source_digest(text), "document": in_key_order(document).to_json()}


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
