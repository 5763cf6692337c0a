"""What the runtime's sources tell mypyc when `make compiled` builds them; nothing in pure Python.

The compiled runtime (`compiler/simulate/compiled.py`) is optional: the pure sources must run
without mypy_extensions, which only the dev lock installs. So `mypyc_attr` is the real one
where it is importable (and always for mypy and mypyc, which see through the fallback) and a
decorator that changes nothing where it is not.

A dataclass that a game makes hundreds of times (a decision, a roll, a check) writes its
`__init__` out: mypyc compiles a class's methods, but the `__init__` that `@dataclass` writes
is made when the module loads, so it stays interpreted, and calling it took 15 times as long as
a compiled one (a fifth of a compiled game's first act). The dataclass keeps an `__init__` that
is there already; `tests/test_native_inits.py` checks that each written one takes the fields,
in order, with their defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:  # a pure install: the attributes only mean something to mypyc

        def mypyc_attr(*flags, **settings):
            """A class decorator that returns the class as it is."""
            return lambda cls: cls
