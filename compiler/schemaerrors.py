"""Say a JSON Schema error the way a designer would: a table of small keyword functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler.patterns import did_you_mean
from compiler.yamlio import YamlDocument
from dsl.spans import Diagnostic, Span

Explanation = tuple[str, str | None]


def _where(error: Any) -> str:
    path = "/".join(str(p) for p in error.absolute_path)
    return f"'{path}'" if path else "the top level"


def _additional(error: Any) -> Explanation:
    allowed = sorted(error.schema.get("properties", {}))
    extra = (
        [k for k in error.instance if k not in allowed] if isinstance(error.instance, dict) else []
    )
    name = extra[0] if extra else "?"
    return (
        f"unknown key '{name}' in {_where(error)}",
        did_you_mean(str(name), allowed) or f"allowed keys: {', '.join(allowed)}",
    )


def _required(error: Any) -> Explanation:
    missing = [k for k in error.validator_value if k not in (error.instance or {})]
    return f"{_where(error)} is missing the key '{missing[0] if missing else '?'}'", None


def _enum(error: Any) -> Explanation:
    choices = [str(c) for c in error.validator_value]
    return (
        f"{error.instance!r} is not allowed in {_where(error)}",
        did_you_mean(str(error.instance), choices) or f"choose one of: {', '.join(choices)}",
    )


def _const(error: Any) -> Explanation:
    wanted = error.validator_value
    shown = "true" if wanted is True else "false" if wanted is False else repr(wanted)
    return (
        f"{error.instance!r} is not allowed in {_where(error)}",
        f"the only value allowed is {shown}",
    )


_YAML_WORDS = {
    "string": "a text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


def _yaml_word(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true or false"
    names = {str: "string", int: "integer", float: "number", list: "array", dict: "object"}
    return _YAML_WORDS[names.get(type(value), "string")]


def _type(error: Any) -> Explanation:
    wanted = (
        error.validator_value
        if isinstance(error.validator_value, list)
        else [error.validator_value]
    )
    wanted_text = " or ".join(_YAML_WORDS.get(str(w), str(w)) for w in wanted)
    help_text: str | None = None
    if (
        "string" in wanted
        and isinstance(error.instance, (int, float))
        and not isinstance(error.instance, bool)
    ):
        help_text = f'put it in quotes: "{error.instance}"'
    elif "array" in wanted and isinstance(error.instance, str):
        help_text = f'write a list: ["{error.instance}"]'
    return f"{_where(error)} must be {wanted_text}, not {_yaml_word(error.instance)}", help_text


def _not(error: Any) -> Explanation:
    reason = (
        error.validator_value.get("description")
        if isinstance(error.validator_value, dict)
        else None
    )
    return f"{error.instance!r} is not allowed in {_where(error)}", reason


def _pattern(error: Any) -> Explanation:
    return f"{error.instance!r} is not a valid value for {_where(error)}", (
        error.schema.get("description") or f"it must match {error.validator_value}"
    )


def _bounds(error: Any) -> Explanation:
    described = error.schema.get("description")
    if isinstance(error.instance, list):  # not the whole list, which may be long
        bound = "at most" if error.validator == "maxItems" else "at least"
        message = f"{_where(error)} lists {len(error.instance)} items"
        said = f"{bound} {error.validator_value} may be listed"
    else:
        message = f"{error.instance!r} is out of range in {_where(error)}"
        said = error.message
    return message, f"{said}: {described[:1].lower()}{described[1:]}" if described else said


def _unique(error: Any) -> Explanation:
    seen: list[Any] = []
    for item in error.instance:
        if item in seen:
            return f"{_where(error)} lists {item!r} twice", "each may be listed once"
        seen.append(item)
    return f"{_where(error)}: {error.message}", None


def _one_of(error: Any) -> Explanation:
    """A list that fits none of the alternatives is told by what the list alternative says of
    it (that it is not the other alternatives' text or number goes without saying)."""
    branches = error.validator_value
    if isinstance(error.instance, list) and isinstance(branches, list):
        for index, branch in enumerate(branches):
            if isinstance(branch, dict) and branch.get("type") == "array":
                within = [e for e in error.context if list(e.relative_schema_path)[:1] == [index]]
                if within:
                    return explain(within[0])
    return f"{_where(error)}: {error.message}", None


_EXPLAINERS: dict[str, Callable[[Any], Explanation]] = {
    "additionalProperties": _additional,
    "required": _required,
    "enum": _enum,
    "const": _const,
    "type": _type,
    "not": _not,
    "pattern": _pattern,
    "minimum": _bounds,
    "maximum": _bounds,
    "minLength": _bounds,
    "maxLength": _bounds,
    "minItems": _bounds,
    "maxItems": _bounds,
    "uniqueItems": _unique,
    "oneOf": _one_of,
}


def explain(error: Any) -> Explanation:
    """A message and an optional help line for one jsonschema ValidationError."""
    explainer = _EXPLAINERS.get(error.validator)
    if explainer is None:
        return f"{_where(error)}: {error.message}", None
    return explainer(error)


def schema_diagnostics(
    document: YamlDocument, validator: Any, code: str, what: str, shape: str
) -> list[Diagnostic]:
    """Every way a YAML document misses its schema, best first, placed at its key or value."""
    from jsonschema.exceptions import relevance

    if not isinstance(document.data, dict):
        return [
            Diagnostic(code, "error", f"{what} must be {shape}", Span.whole_file(document.file))
        ]
    errors = sorted(validator.iter_errors(document.data), key=relevance)
    diagnostics = []
    for error in errors[:20]:
        message, help_text = explain(error)
        diagnostics.append(
            Diagnostic(
                code, "error", f"{what}: {message}", document.schema_error_span(error), help_text
            )
        )
    return diagnostics
