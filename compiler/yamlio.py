"""Read YAML into plain data, remembering where each value was written."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compiler.cache import remember_document, remembered_document
from dsl.spans import Diagnostic, Span

Path = tuple[str | int, ...]

MAX_YAML_BYTES = 256_000
"""Larger ruleset files are refused rather than parsed: the YAML parser takes ~10 µs a byte."""

MAX_MANIFEST_BYTES = 64_000
"""Larger pack.yaml files are refused: a real one is a dozen lines."""


@dataclass
class YamlDocument:
    """Plain data read from a YAML file, with the line and column of every key and item."""

    file: str
    data: Any
    positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)

    def schema_error_span(self, error: Any) -> Span:
        """Where a jsonschema error belongs: an unexpected key, or the value at its path."""
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            extra = [k for k in error.instance if k not in allowed]
            if extra:
                span = self.span((*path, extra[0]), key=True)
                return Span(
                    span.file, span.line, span.column, span.line, span.column + len(str(extra[0]))
                )
        return self.span(path)

    def span(self, path: Path, *, key: bool = False) -> Span:
        """The span of the value (or key) at `path`, or of its nearest written ancestor."""
        table = self.key_positions if key else self.positions
        for cut in range(len(path), -1, -1):
            found = table.get(path[:cut]) or self.positions.get(path[:cut])
            if found is not None:
                line, column = found
                return Span(self.file, line, column, line, column + 1)
        return Span.whole_file(self.file)

    def to_json(self) -> dict[str, Any]:
        """The data and its positions as plain JSON (the document cache keeps this)."""
        return {
            "data": self.data,
            "positions": [[list(p), *at] for p, at in self.positions.items()],
            "key_positions": [[list(p), *at] for p, at in self.key_positions.items()],
        }

    @classmethod
    def from_json(cls, file: str, payload: dict[str, Any]) -> YamlDocument:
        """Rebuild a document from `to_json` output."""
        return cls(
            file,
            payload["data"],
            {tuple(p): (line, column) for p, line, column in payload["positions"]},
            {tuple(p): (line, column) for p, line, column in payload["key_positions"]},
        )


def in_key_order(document: YamlDocument) -> YamlDocument:
    """The document with every mapping's keys in order, as JSON written with its keys sorted
    holds it (a number that is a key becomes text).

    A ruleset is read in this form whether it comes from its YAML or from the JSON precompiled
    beside a bundled one (`compiler.precompile`): the engine meets some of its mappings in
    order, and a copy of a bundled ruleset must play as the bundled one does, whatever order
    its file writes its keys in.
    """
    data = json.loads(json.dumps(_keys_in_order(document.data)))
    return YamlDocument(document.file, data, document.positions, document.key_positions)


def _keys_in_order(value: Any) -> Any:
    """Plain data with every mapping's keys sorted as `json.dumps(sort_keys=True)` sorts them,
    or as text where they are of several types (`1:` beside `name:`), which it refuses."""
    if isinstance(value, list):
        return [_keys_in_order(item) for item in value]
    if not isinstance(value, dict):
        return value
    items = [(key, _keys_in_order(item)) for key, item in value.items()]
    try:
        items.sort(key=lambda pair: pair[0])
    except TypeError:
        items.sort(key=lambda pair: str(pair[0]))
    return dict(items)


def load_valid_yaml(
    text: str, file: str, kind: str, validate: Callable[[YamlDocument], list[Diagnostic]]
) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Read a YAML document and validate it, or take it from the cache if it passed before."""
    payload = remembered_document(kind, text)
    if payload is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return YamlDocument.from_json(file, payload), []
    try:
        document = load_yaml(text, file)
    except YamlError as error:
        return None, [error.diagnostic]
    problems = validate(document)
    if problems:
        return None, problems
    remember_document(kind, text, document.to_json())
    return document, []


class YamlError(Exception):
    """A YAML file could not be read; carries the diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _refusal(message: str, span: Span, help_text: str | None = None) -> YamlError:
    return YamlError(Diagnostic("E0401", "error", message, span, help_text))


MAX_FLOW_DEPTH = 50
_MAYBE_ALIAS_OR_TAG = re.compile(r"[&*!][^\s,\[\]{}]")


def _refuse_deep_nesting(text: str, file: str) -> None:
    """The YAML scanner slows down quadratically on deeply nested [ and {; count them first.

    Brackets inside quotes count too: telling quotes apart needs the scanner this protects,
    and no real pack file holds fifty unclosed brackets even in a text.
    """
    depth = 0
    for index, char in enumerate(text):
        if char in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                raise _refusal(
                    f"this YAML nests more than {MAX_FLOW_DEPTH} brackets deep",
                    Span.at_offset(file, text, index),
                )
        elif char in "]}":
            depth = max(depth - 1, 0)


def _refuse_aliases_and_tags(yaml: Any, text: str, file: str) -> None:
    """Pack files need neither: aliases can expand a small file enormously (even inside the
    YAML library's own error messages) and tags ask for types no pack file uses."""
    from ruamel.yaml.tokens import AliasToken, AnchorToken, TagToken

    if not _MAYBE_ALIAS_OR_TAG.search(text):
        return  # the full scan costs as much as the parse; most files need none
    for token in yaml.scan(text):
        if isinstance(token, (AliasToken, AnchorToken, TagToken)):
            what = "tags (!name)" if isinstance(token, TagToken) else "anchors and aliases"
            raise _refusal(
                f"YAML {what} are not allowed in pack files",
                Span.at_offset(file, text, token.start_mark.index),
                "write the value out in full",
            )


def load_yaml(text: str, file: str) -> YamlDocument:
    """Parse YAML text safely; raise YamlError with line and column on any problem."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if len(text) > MAX_YAML_BYTES:
        raise _refusal("this YAML file is too large", Span.whole_file(file))
    _refuse_deep_nesting(text, file)
    yaml = YAML(typ="rt", pure=True)
    try:
        _refuse_aliases_and_tags(yaml, text, file)
        raw = yaml.load(text)
    except MarkedYAMLError as error:
        raise _unreadable(error, text, file) from None
    except (YAMLError, RecursionError, ValueError) as error:
        long_number = _long_number_at(yaml, text) if isinstance(error, ValueError) else None
        if long_number is not None:
            raise _too_large(Span.at_offset(file, text, long_number)) from None
        raise _refusal(f"this YAML cannot be read: {error}", Span.whole_file(file)) from None
    document = YamlDocument(file, None)
    document.data = _Copier(document).plain(raw, (), depth=0)
    return document


def _unreadable(error: Any, text: str, file: str) -> YamlError:
    """What the YAML library could not read, said for whoever wrote the file: the whole wrong
    word or value under the caret, and how such a line is written."""
    problem = str(error.problem or error.context or "malformed YAML")
    mark = error.problem_mark or error.context_mark
    if mark is None:
        return _refusal(f"this YAML cannot be read: {problem}", Span.whole_file(file))
    began = error.context_mark.index if error.context_mark is not None else None
    index = mark.index
    if index >= len(text.rstrip()) and began is not None:
        index = began  # "unexpected end" is best shown where the thing began
    start, end, help_text = _explain(problem, str(error.context or ""), text, index, began)
    where = Span.at_offset(file, text, start)
    where = Span(file, where.line, where.column, where.line, where.column + max(end - start, 1))
    return _refusal(f"this YAML cannot be read: {problem}", where, help_text)


def _explain(
    problem: str, context: str, text: str, index: int, began: int | None
) -> tuple[int, int, str]:
    """Where the wrong part of a line starts and ends, and the help for the mistake."""
    line_start = text.rfind("\n", 0, index) + 1
    if problem == "mapping values are not allowed here":
        value = _value_start(text, line_start, index)
        if value is None:  # `key: value` indented under a line that has a value already
            start = line_start + len(text[line_start:index]) - len(text[line_start:index].lstrip())
            return start, index, "line this key up with the keys above it"
        end = _value_end(text, value)
        key = text[line_start:value].strip()
        quoted = json.dumps(text[value:end], ensure_ascii=False)
        return value, end, f'a value with ": " in it goes in quotes: {key} {quoted}'
    if problem == "could not find expected ':'" and began is not None:
        return began, _value_end(text, began), "write this line as `key: value`"
    if problem.startswith("found character '\\t'"):
        return index, index + 1, "indent with spaces: YAML does not allow tabs"
    if problem.startswith("found character"):
        end = _value_end(text, index)
        quoted = json.dumps(text[index:end], ensure_ascii=False)
        first = text[index : index + 1]
        return index, end, f"a value that starts with {first} goes in quotes: {quoted}"
    if context == "while scanning a quoted scalar":
        quote = text[index : index + 1] if text[index : index + 1] in ("'", '"') else '"'
        return index, _value_end(text, index), f"close the text with a second {quote}"
    if problem.startswith("expected ',' or"):
        closer = problem[len("expected ',' or '")]
        opened = f" (opened on line {text.count(chr(10), 0, began) + 1})" if began else ""
        return (
            index,
            _word_end(text, index),
            f"close the {'[' if closer == ']' else '{'}{opened} with {closer}, "
            "with a comma between its items",
        )
    if problem.startswith("expected <block end>") and problem.endswith("'<scalar>'"):
        return index, _value_end(text, index), "put the whole value inside the quotes"
    if problem.startswith("expected") and problem[-3:] in ("'['", "'{'", "']'", "'}'", "','"):
        mark = problem[-2]
        fix = "remove the extra comma" if mark == "," else "match the bracket"
        return (
            index,
            _word_end(text, index),
            (f"{mark} is read as YAML's own here: {fix}, or put the value in quotes"),
        )
    if problem.startswith("expected chomping or indentation indicators"):
        end = _value_end(text, began if began is not None else index)
        start = began if began is not None else index
        quoted = json.dumps(text[start:end], ensure_ascii=False)
        return start, end, f"a value that starts with | or > goes in quotes: {quoted}"
    if problem.startswith("expected <block end>") and problem.endswith("'-'"):
        return index, index + 1, "a list goes under its key, indented: `key:`, then `  - item`"
    if problem.startswith("expected <block end>"):
        return index, _word_end(text, index), "indent this line as far as the lines beside it"
    if problem.startswith("found duplicate key"):
        return index, _word_end(text, index), "write each key once: keep one of the two"
    return (
        index,
        _word_end(text, index),
        (
            "each line is `key: value`, indented with spaces under its parent key; "
            'a value holding ": " or " #" goes in quotes'
        ),
    )


def scalar_span(span: Span, text: str) -> Span:
    """A span at the first character of a scalar written on one line, widened to the whole
    scalar: its quotes, or a plain one to its line's end (less a comment), or inside brackets
    to the next `,` `]` or `}`."""
    lines = text.split("\n")
    if not 1 <= span.line <= len(lines):
        return span
    line = lines[span.line - 1]
    start = span.column - 1
    if start >= len(line):
        return span
    opener = line[start]
    if opener in "'\"":
        end = start + 1
        while end < len(line) and line[end] != opener:
            end += 2 if opener == '"' and line[end] == "\\" else 1
        end = min(end + 1, len(line))
    else:
        end = _value_end(line, start)
        before = line[:start]
        if sum(map(before.count, "[{")) > sum(map(before.count, "]}")):  # inside brackets
            end = min([end, *(i for c in ",]}" if (i := line.find(c, start)) >= 0)])
    return Span(span.file, span.line, span.column, span.line, span.column + max(end - start, 1))


def _value_start(text: str, line_start: int, index: int) -> int | None:
    """Where the value of a `key: value` line starts, if a key is written before `index`."""
    colon = text.find(": ", line_start, index)
    if colon < 0:
        return None
    start = colon + 2
    while start < index and text[start] == " ":
        start += 1
    return start


def _value_end(text: str, start: int) -> int:
    """The end of a plain value: its line's end, less a comment and the spaces before it."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    comment = text.find(" #", start, end)
    end = comment if comment >= 0 else end
    return max(len(text[start:end].rstrip()) + start, start + 1)


def _word_end(text: str, start: int) -> int:
    """The end of the word that starts at `start` (at least its first character); a key's
    colon is not part of it."""
    end = start + 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return end - 1 if end - start > 1 and text[end - 1] == ":" else end


def yaml_scalar(text: str) -> str:
    """A YAML scalar that reads back as this text: plain, unless plain it would be read as
    something else (`123` a number, `null` nothing), then quoted."""
    from ruamel.yaml import YAML

    return text if YAML(typ="safe", pure=True).load(text) == text else json.dumps(text)


MAX_NUMBER = 10**18
"""Numbers in pack files stay below this: no count or bound needs more, and Python refuses to
turn integers of more than 4,300 digits into text (in messages, in JSON) at all."""


def _too_large(span: Span) -> YamlError:
    return YamlError(
        Diagnostic(
            "E0415",
            "error",
            f"this number is too large: numbers in pack files have at most "
            f"{len(str(MAX_NUMBER)) - 1} digits",
            span,
        )
    )


def _long_number_at(yaml: Any, text: str) -> int | None:
    """Where the first integer too long for Python to read is written, if that is what failed.

    The loader's error does not say where; composing the nodes again, without making values,
    does (and costs nothing on the way of a file that loads).
    """
    from ruamel.yaml.error import YAMLError

    try:
        pending = [yaml.compose(text)]
    except (YAMLError, RecursionError, ValueError):
        return None
    found: list[int] = []
    while pending:
        node = pending.pop()
        value = node.value
        if isinstance(value, list):
            for item in value:
                pending.extend(item if isinstance(item, tuple) else (item,))
        elif (
            str(getattr(node.tag, "value", node.tag)).endswith(":int")
            and len(value) > sys.get_int_max_str_digits()
        ):
            found.append(node.start_mark.index)
    return min(found, default=None)


MAX_YAML_NODES = 200_000
"""Aliases can make a small file expand enormously; copying stops past this many values."""


@dataclass
class _Copier:
    """Copies ruamel's round-trip nodes into dicts and lists, recording positions."""

    document: YamlDocument
    copied: int = 0

    def refuse(self, message: str) -> YamlError:
        """The error to raise when a document is too big or too deep to copy."""
        return _refusal(message, Span.whole_file(self.document.file))

    def plain(self, node: Any, path: Path, depth: int) -> Any:
        """Copy one node, within the depth and size limits."""
        self.copied += 1
        if depth > 50:
            raise self.refuse("this YAML nests more than 50 levels deep")
        if self.copied > MAX_YAML_NODES:
            raise self.refuse("this YAML expands to too many values (aliases?)")
        return _plain(self, node, path, depth)


def _plain(copier: _Copier, node: Any, path: Path, depth: int) -> Any:
    positions = copier.document.positions
    lc = getattr(node, "lc", None)
    if isinstance(node, dict):
        result: dict[str, Any] = {}
        for key, value in node.items():
            if isinstance(key, int) and not isinstance(key, bool) and abs(key) >= MAX_NUMBER:
                line, column = lc.key(key) if lc is not None else (0, 0)
                raise _too_large(
                    Span(copier.document.file, line + 1, column + 1, line + 1, column + 2)
                )
            child = (*path, str(key))
            if lc is not None:
                try:
                    line, column = lc.key(key)
                    copier.document.key_positions[child] = (line + 1, column + 1)
                    line, column = lc.value(key)
                    positions[child] = (line + 1, column + 1)
                except (KeyError, TypeError):
                    pass
            result[str(key)] = copier.plain(value, child, depth + 1)
        return result
    if isinstance(node, list):
        items = []
        for index, value in enumerate(node):
            child = (*path, index)
            if lc is not None:
                try:
                    line, column = lc.item(index)
                    positions[child] = (line + 1, column + 1)
                except (KeyError, TypeError, IndexError):
                    pass
            items.append(copier.plain(value, child, depth + 1))
        return items
    if isinstance(node, str):
        return str(node)
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        if abs(node) >= MAX_NUMBER:
            raise _too_large(copier.document.span(path))
        return int(node)
    if isinstance(node, float):
        return float(node)
    return str(node)
