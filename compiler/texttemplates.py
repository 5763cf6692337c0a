"""The templates of rules text: a vocabulary entry's `text:`, with slots and optional parts.

Templates name slots in braces (`increase your {stat} by {amount}`). `[...]` is printed only
when its slots have values; `[A|B]` prints A when its slots have values and none of them is
the count 1, else B (`draw [{count} {deck}s|a {deck}]`). "a" before a slot value that starts
with a vowel becomes "an". The ruleset validates its templates with this module when it loads;
`compiler.rulestext` fills them to write a card's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache


class TemplateError(ValueError):
    """A `text:` template whose braces or brackets do not pair."""


@dataclass(frozen=True, slots=True)
class _Hole:
    name: str


@dataclass(frozen=True, slots=True)
class _Group:
    choices: tuple[tuple[_Node, ...], ...]


_Node = str | _Hole | _Group

_TOKEN_RE = re.compile(r"\{([^{}]*)\}|[\[\]|]|[^\[\]{}|]+")
_ARTICLE_RE = re.compile(r"(?:^|\s)[aA] $")


@cache
def parse_template(source: str) -> tuple[_Node, ...]:
    """Parse a template; raise TemplateError when it is malformed."""
    stack: list[list[list[_Node]]] = [[[]]]  # open groups, each a list of choices of nodes
    position = 0
    for found in _TOKEN_RE.finditer(source):
        if found.start() != position:
            break  # a lone brace, which no token takes
        position = found.end()
        token = found.group(0)
        if found.group(1) is not None:
            # `{name:type}` is how patterns rename a slot; the value goes by the name
            name = found.group(1).partition(":")[0].strip()
            if not name:
                raise TemplateError(f"empty slot {{}} in {source!r}")
            stack[-1][-1].append(_Hole(name))
        elif token == "[":
            stack.append([[]])
        elif token in "|]" and len(stack) == 1:
            raise TemplateError(f"{token!r} outside [...] in {source!r}")
        elif token == "|":
            stack[-1].append([])
        elif token == "]":
            choices = stack.pop()
            stack[-1][-1].append(_Group(tuple(tuple(c) for c in choices)))
        else:
            stack[-1][-1].append(token)
    if position != len(source):
        raise TemplateError(f"unpaired brace in {source!r}")
    if len(stack) != 1:
        raise TemplateError(f"unclosed '[' in {source!r}")
    return tuple(stack[0][0])


def template_slots(source: str) -> set[str]:
    """The slot names a template uses; raise TemplateError when it is malformed."""
    return set(_holes(parse_template(source)))


def _holes(nodes: Iterable[_Node]) -> Iterable[str]:
    for node in nodes:
        if isinstance(node, _Hole):
            yield node.name
        elif isinstance(node, _Group):
            for choice in node.choices:
                yield from _holes(choice)


_SPACES = re.compile(r" {2,}")
"""A run of spaces a missing slot leaves, closed up."""


def fill(template: str, values: Mapping[str, str]) -> str:
    """Write a template out with slot values; a missing slot prints nothing."""
    # The same few phrases recur on card after card (one verb, the same amount): each is
    # written once.
    return _filled(template, tuple(values.items()))


@lru_cache(maxsize=4096)
def _filled(template: str, items: tuple[tuple[str, str], ...]) -> str:
    values = dict(items)
    try:
        nodes = parse_template(template)
    except TemplateError:
        return template  # rulesets are validated on load; print a stray one as written
    text = _render(nodes, values, strict=False) or ""
    return _SPACES.sub(" ", text).strip()


def _render(nodes: Sequence[_Node], values: Mapping[str, str], strict: bool) -> str | None:
    """The nodes written out, or None under `strict` when a slot has no value."""
    text = ""
    for node in nodes:
        if isinstance(node, str):
            text += node
        elif isinstance(node, _Hole):
            value = values.get(node.name)
            if value is None:
                if strict:
                    return None
                continue
            if value[:1].lower() in ("a", "e", "i", "o", "u") and _ARTICLE_RE.search(text):
                text = text[:-1] + "n "
            text += value
        else:
            text += _pick(node, values)
    return text


def _pick(group: _Group, values: Mapping[str, str]) -> str:
    last = len(group.choices) - 1
    for index, choice in enumerate(group.choices):
        text = _render(choice, values, strict=True)
        if text is None:
            continue
        # a counted form before a `|` gives way to the next form for a count of one
        if index < last and any(values.get(name) == "1" for name in _holes(choice)):
            continue
        return text
    return ""
