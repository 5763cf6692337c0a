"""Say a JSON Schema error the way a designer would: a table of small keyword functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler.patterns import did_you_mean

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


def _type(error: Any) -> Explanation:
    wanted = error.validator_value
    wanted_text = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
    return f"{_where(error)} must be {wanted_text}, not {type(error.instance).__name__}", None


def _pattern(error: Any) -> Explanation:
    return f"{error.instance!r} is not a valid value for {_where(error)}", (
        error.schema.get("description") or f"it must match {error.validator_value}"
    )


def _bounds(error: Any) -> Explanation:
    return f"{error.instance!r} is out of range in {_where(error)}", error.message


_EXPLAINERS: dict[str, Callable[[Any], Explanation]] = {
    "additionalProperties": _additional,
    "required": _required,
    "enum": _enum,
    "const": _enum,
    "type": _type,
    "pattern": _pattern,
    "minimum": _bounds,
    "maximum": _bounds,
    "minLength": _bounds,
    "maxLength": _bounds,
    "minItems": _bounds,
    "maxItems": _bounds,
}


def explain(error: Any) -> Explanation:
    """A message and an optional help line for one jsonschema ValidationError."""
    explainer = _EXPLAINERS.get(error.validator)
    if explainer is None:
        return f"{_where(error)}: {error.message}", None
    return explainer(error)
