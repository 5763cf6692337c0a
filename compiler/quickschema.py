"""A small exact JSON Schema validator for the keywords pillbox's own simple schemas use.

jsonschema takes about 80 ms to import and build a validator, more than a cold check of a small
pack spends on its cards; yet nearly every document it is shown is valid. This module answers
only "is it valid?", exactly as jsonschema's Draft 2020-12 validator would, for the keywords in
`KEYWORDS`; a schema with any other keyword raises `Unsupported`. The caller asks jsonschema
only when the answer is no, for the diagnostics (`schemaerrors`).

A schema's local references (`"$ref": "#/$defs/name"`, as the IR schema writes each effect)
are read once `linked` has put the schema each names in its place; a reference left as text is
`Unsupported`.

Like python-jsonschema, a validator is a table of small keyword functions; unlike it, each
says only yes or no.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

Schema = dict[str, Any] | bool


class Unsupported(ValueError):
    """The schema uses a keyword this validator does not implement."""


def is_valid(schema: Schema, instance: object) -> bool:
    """Whether the instance is valid under the schema, as Draft 2020-12 reads it."""
    if schema is True:
        return True
    if schema is False:
        return False
    for keyword, value in schema.items():
        if keyword in ANNOTATIONS:
            continue
        check = KEYWORDS.get(keyword)
        if check is None:
            raise Unsupported(keyword)
        if not check(value, instance, schema):
            return False
    return True


def _is_integer(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def _type(value: str | list[str], instance: object, _: Schema) -> bool:
    names = [value] if isinstance(value, str) else value
    return any(_TYPES[name](instance) for name in names)


def _equal(one: object, other: object) -> bool:
    """jsonschema's equality of scalars: True is not 1, 1 is 1.0, a string only a string."""
    if isinstance(one, str) or isinstance(other, str):
        return one == other
    if isinstance(one, list | dict) or isinstance(other, list | dict):
        if isinstance(one, list | dict) and isinstance(other, list | dict):
            raise Unsupported("enum or const of containers")
        return False
    if isinstance(one, bool) or isinstance(other, bool):
        return type(one) is type(other) and one == other
    return one == other


def _enum(value: list[object], instance: object, _: Schema) -> bool:
    return any(_equal(instance, item) for item in value)


def _const(value: object, instance: object, _: Schema) -> bool:
    return _equal(instance, value)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _pattern(value: str, instance: object, _: Schema) -> bool:
    return not isinstance(instance, str) or _compiled(value).search(instance) is not None


def _min_length(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, str) or len(instance) >= value


def _max_length(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, str) or len(instance) <= value


def _minimum(value: float, instance: object, _: Schema) -> bool:
    # Written as jsonschema writes it, so that a NaN passes here as it passes there.
    if isinstance(instance, int | float) and not isinstance(instance, bool):
        return not instance < value
    return True


def _maximum(value: float, instance: object, _: Schema) -> bool:
    if isinstance(instance, int | float) and not isinstance(instance, bool):
        return not instance > value
    return True


def _min_items(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, list) or len(instance) >= value


def _max_items(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, list) or len(instance) <= value


def _items(value: Schema, instance: object, schema: Schema) -> bool:
    if isinstance(schema, dict) and "prefixItems" in schema:
        raise Unsupported("prefixItems")
    return not isinstance(instance, list) or all(is_valid(value, item) for item in instance)


def _min_properties(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, dict) or len(instance) >= value


def _max_properties(value: int, instance: object, _: Schema) -> bool:
    return not isinstance(instance, dict) or len(instance) <= value


def _required(value: list[str], instance: object, _: Schema) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in value)


def _properties(value: dict[str, Schema], instance: object, _: Schema) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(is_valid(sub, instance[name]) for name, sub in value.items() if name in instance)


def _additional_properties(value: Schema, instance: object, schema: Schema) -> bool:
    if not isinstance(instance, dict):
        return True
    assert isinstance(schema, dict)
    if "patternProperties" in schema:
        raise Unsupported("patternProperties")
    known = schema.get("properties") or {}
    return all(is_valid(value, item) for name, item in instance.items() if name not in known)


def _property_names(value: Schema, instance: object, _: Schema) -> bool:
    return not isinstance(instance, dict) or all(is_valid(value, name) for name in instance)


def _not(value: Schema, instance: object, _: Schema) -> bool:
    return not is_valid(value, instance)


def _any_of(value: list[Schema], instance: object, _: Schema) -> bool:
    return any(is_valid(sub, instance) for sub in value)


def _one_of(value: list[Schema], instance: object, _: Schema) -> bool:
    return sum(1 for sub in value if is_valid(sub, instance)) == 1


def _all_of(value: list[Schema], instance: object, _: Schema) -> bool:
    return all(is_valid(sub, instance) for sub in value)


def _ref(value: Schema | str, instance: object, _: Schema) -> bool:
    if isinstance(value, str):
        raise Unsupported(f"$ref {value!r} not linked")
    return is_valid(value, instance)


def _defs(value: object, instance: object, _: Schema) -> bool:
    return True  # the schemas a reference names, asked where one is made


DEFS = "#/$defs/"


def linked(root: Schema) -> Schema:
    """The schema with each local reference (`"$ref": "#/$defs/name"`) replaced by the schema it
    names, cycles and all, for `is_valid`; any other reference raises Unsupported."""
    if not isinstance(root, dict):
        return root
    defs = root.get("$defs") or {}
    copies: dict[str, Schema] = {name: {} for name, sub in defs.items() if isinstance(sub, dict)}

    def link(node: object) -> Any:
        if isinstance(node, list):
            return [link(item) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for keyword, value in node.items():
            if keyword == "$defs":
                continue  # each is linked in where it is named
            if keyword in ("enum", "const"):  # values, not schemas
                out[keyword] = value
            elif keyword == "properties" and isinstance(value, dict):  # names, then schemas
                out[keyword] = {name: link(sub) for name, sub in value.items()}
            elif keyword != "$ref":
                out[keyword] = link(value)
            else:
                named = isinstance(value, str) and value.startswith(DEFS)
                name = value[len(DEFS) :] if named else ""
                if name not in defs:
                    raise Unsupported(f"$ref {value!r}")
                out[keyword] = copies.get(name, defs[name])
        return out

    for name, target in copies.items():
        assert isinstance(target, dict)
        target.update(link(defs[name]))
    return link(root)  # type: ignore[no-any-return]


KEYWORDS: dict[str, Callable[[Any, object, Schema], bool]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "minLength": _min_length,
    "maxLength": _max_length,
    "minimum": _minimum,
    "maximum": _maximum,
    "items": _items,
    "minItems": _min_items,
    "maxItems": _max_items,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "required": _required,
    "minProperties": _min_properties,
    "maxProperties": _max_properties,
    "not": _not,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "allOf": _all_of,
    "$ref": _ref,
    "$defs": _defs,
}
"""Each keyword this validator implements, and the function that checks it."""

ANNOTATIONS = frozenset(
    ("$schema", "$id", "$comment", "title", "description", "default", "examples")
)
"""Keywords that say something of a schema without constraining an instance."""
