"""The dataclasses that write out their `__init__` for mypyc (runtime/native.py) take exactly
their fields, in order, with their defaults, and set each: a field added without its parameter
fails here, not in a sweep."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from typing import Any

import pytest

from compiler.simulate.compiled import COMPILED


def _written_inits() -> list[type]:
    found = []
    for path in COMPILED:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
                and "def __init__(" in inspect.getsource(value)
            ):
                found.append(value)
    return found


WRITTEN = _written_inits()


def test_the_hot_dataclasses_write_their_init_out() -> None:
    names = {cls.__name__ for cls in WRITTEN}
    wanted = {"Decision", "Rolled", "CheckCall", "Pool", "PoolResult", "Roll", "CardInstance"}
    wanted |= {"Actor", "Stats", "GameState"}  # what every playout's fork makes
    assert wanted <= names


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda cls: cls.__qualname__)
def test_a_written_init_takes_the_fields_with_their_defaults(cls: type) -> None:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in parameters] == [f.name for f in fields]
    given: dict[str, Any] = {}
    for field, parameter in zip(fields, parameters, strict=True):
        if field.default is not dataclasses.MISSING:
            assert parameter.default == field.default, field.name
        elif field.default_factory is not dataclasses.MISSING:
            assert parameter.default is None, field.name  # None stands for a fresh one
        else:
            assert parameter.default is inspect.Parameter.empty, field.name
        given[field.name] = object()
    made = cls(**given)
    for name, value in given.items():
        assert getattr(made, name) is value, name


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda cls: cls.__qualname__)
def test_a_written_init_makes_each_default_afresh(cls: type) -> None:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = {f.name: object() for f in fields if _required(f)}
    first, second = cls(**required), cls(**required)
    for field in fields:
        if field.default_factory is not dataclasses.MISSING:
            made = getattr(first, field.name)
            assert made == field.default_factory(), field.name
            assert made is not getattr(second, field.name), field.name
        elif field.default is not dataclasses.MISSING:
            assert getattr(first, field.name) == field.default, field.name


def _required(field: dataclasses.Field[Any]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
