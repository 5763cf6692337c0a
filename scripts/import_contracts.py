"""The import contracts of pillbox's packages, checked over the source's `ast`.

`python scripts/import_contracts.py [ROOT]` prints each broken contract as `file:line: message`
and exits 1 when there is one. `make lint` runs it, and a test plants a broken import in a copy
of the tree to prove that each contract still bites.

Every import counts: at a module's top, inside a function, and under `if TYPE_CHECKING:`. An
import hidden inside a function or behind TYPE_CHECKING still ties two modules together, and a
circle that holds only because one of its imports waits for a call is still a circle.
The contracts:

1. The packages point one way: `dsl` knows nothing of the others; `runtime` knows nothing of
   `dsl` or `compiler`; `content` and `schemas` hold data, and import nothing of pillbox.
2. The generic runtime knows no game: of `runtime.games` it imports only the registry
   (`runtime.games` itself), never a game's module.
3. The compiler's core (its root modules, less the commands) never imports a tool's
   subpackage (`TOOLS`: `lsp`, `serve`, `report`, `simulate`, `play`, `tune`, `table`,
   `balance`, `new`, `formats`), nor
   of `printing` anything but the modules that say what a card's print would warn of
   (`PRINT_CHECKS`).
4. No circles: the modules' import graph is a DAG, but for type-only imports among the
   runtime's modules of one recursive type (`RECURSIVE_TYPES`).
5. No import inside a function, except of a heavy optional dependency (`DEFERRED`, each with
   its reason), whose first import would cost every command that never needs it.
6. A command's module (`compiler.commands.*`) is reached only from the command line's table of
   commands (`COMMANDS` in compiler/cli.py, read here as that module's imports) and from its
   fellow commands' shared module: no stage depends on how a command reads its flags.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("dsl", "compiler", "runtime", "content", "schemas")
"""pillbox's own top-level packages: imports of anything else are third-party."""

MAY_IMPORT = {
    "dsl": {"dsl"},
    "runtime": {"runtime"},
    "content": set(),
    "schemas": set(),
    "compiler": {"compiler", "dsl", "runtime"},
}
"""Which of pillbox's packages each package may import (contract 1)."""

TOOLS = (
    "compiler.lsp",
    "compiler.serve",
    "compiler.report",
    "compiler.simulate",
    "compiler.play",
    "compiler.tune",
    "compiler.table",
    "compiler.balance",
    "compiler.new",
    "compiler.formats",
)
"""The compiler's tool subpackages, each above the compile pipeline."""

PRINTING = "compiler.printing"

PRINT_CHECKS = frozenset(
    {
        "compiler.printing.sizes",
        "compiler.printing.art",
        "compiler.printing.estimates",
    }
)
"""The printing modules a check runs: a pack's print settings, its art, and the print passes
(`PRINT_PASSES`: text that will not fit, art with no room, characters no font has). They read
the IR and the pack, and print nothing."""

COMMANDS = frozenset({"compiler.cli", "compiler.__main__"})
"""The compiler's root modules that may reach any tool: the command line and its entry."""

COMMAND_PACKAGE = "compiler.commands"

COMMAND_TABLE = ("compiler.cli", "COMMANDS")
"""The module and the name of its `{command: "module:attribute"}` table, loaded lazily."""

RECURSIVE_TYPES = frozenset(
    {
        "runtime.game",
        "runtime.cards",
        "runtime.card_blocks",
        "runtime.checks",
        "runtime.module",
        "runtime.state",
        "runtime.decisions",
    }
)
"""The one circle of type-only imports let be: a recursive type, not a circle of code. The game
holds cards and a game module whose effects, checks and hooks are functions of the game; their
types name `Game`, which names them. Breaking it would take a type parameter on every card,
block and hook, or a Protocol standing for `Game`, which makes mypyc's native calls on it
generic and slower; neither buys a module that can be read or loaded alone."""

DEFERRED = {
    "concurrent.futures.process": "it imports multiprocessing and socket, about 15 ms of every"
    " check; only a pack large enough to share among worker processes needs it",
    "importlib.metadata": "it imports email, csv and socket, about 10 ms of every start; only a"
    " game name no bundled module answers to needs the installed packages' entry points",
    "jsonschema": "about 80 ms to import; a warm check takes every validated document from the"
    " cache and never validates one",
    "ruamel": "about 30 ms to import; a warm check takes every YAML document from the cache and"
    " never parses one",
    "weasyprint": "its first import loads Pango and takes about a second; only print needs it",
    "PIL": "only art checks, previews and Tabletop Simulator decks read images",
    "pypdfium2": "only PNG previews and PDF checks render pages",
    "pikepdf": "only the face cache and PDF checks rewrite PDFs",
    "fontTools": "only the glyph check reads fonts, and only when a card has unusual text",
    "openpyxl": "only a pack with a workbook in its `sheets:` reads one",
    "watchfiles": "only `serve` watches files, and its native extension is slow to load",
    "distributed": "an optional extra: only `simulate --engine dask` needs it",
    "mypy_extensions": "present only where the runtime is compiled with mypyc",
    "resource": "Unix only: the workers' memory limits, absent on other systems",
    "fcntl": "Unix only: the face cache's lock, absent on other systems",
    "ctypes": "only a worker that must tell the kernel to end it with its parent",
}
"""Third-party (or platform) modules that may be imported inside a function, and why."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it was written, and how."""

    source: str
    target: str
    file: Path
    line: int
    in_function: bool
    type_only: bool


@dataclass(frozen=True)
class Broken:
    """A contract that an import breaks."""

    file: Path
    line: int
    message: str

    def shown(self, root: Path) -> str:
        """`file:line: message`, the file relative to the tree checked."""
        return f"{self.file.relative_to(root)}:{self.line}: {self.message}"


def modules(root: Path) -> dict[str, Path]:
    """Every module of pillbox's packages under `root`, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for file in sorted((root / package).rglob("*.py")):
            if file.name == "_lark_parser.py":  # generated by Lark; it imports only itself
                continue
            parts = file.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = file
    return found


def imports(name: str, file: Path, known: dict[str, Path]) -> Iterator[Import]:
    """Each import in one module, with its target resolved to a known module where it is
    pillbox's own (`from compiler.pack import Pack` targets `compiler.pack`)."""
    for line, target, in_function, type_only in _written(name, file.name, file.read_text()):
        resolved = _known(target, known) or target
        if resolved != name:
            yield Import(name, resolved, file, line, in_function, type_only)


@functools.cache
def _written(name: str, file_name: str, text: str) -> tuple[tuple[int, str, bool, bool], ...]:
    """The imports a module's text writes: (line, dotted target, in a function, type-only).
    Kept by text, so that checking many copies of a tree parses each file once."""
    tree = ast.parse(text, file_name)
    found: list[tuple[int, str, bool, bool]] = []
    for node, in_function, type_only in _walk(tree, False, False):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = _absolute(name, file_name == "__init__.py", node)
            targets = [f"{base}.{alias.name}" for alias in node.names] if base else []
            targets = targets or [base]
        found += [(node.lineno, target, in_function, type_only) for target in targets]
    return tuple(found)


def table_imports(known: dict[str, Path]) -> Iterator[Import]:
    """The command line's table of commands, read as imports of the module that holds it."""
    source, name = COMMAND_TABLE
    file = known.get(source)
    if file is None:
        return
    for node in ast.parse(file.read_text(), str(file)).body:
        if (
            isinstance(node, ast.Assign)
            and [ast.unparse(target) for target in node.targets] == [name]
            and isinstance(node.value, ast.Dict)
        ):
            for entry in node.value.values:
                value = entry.elts[0] if isinstance(entry, ast.Tuple) and entry.elts else entry
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    target = value.value.partition(":")[0]
                    yield Import(
                        source, _known(target, known) or target, file, value.lineno, False, False
                    )


def _walk(
    node: ast.AST, in_function: bool, type_only: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import under `node`, with whether a function or TYPE_CHECKING holds it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function, type_only
            continue
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for statement in child.body:
                yield from _walk(ast.Module([statement], []), inside, True)
            for statement in child.orelse:
                yield from _walk(ast.Module([statement], []), inside, type_only)
            continue
        yield from _walk(child, inside, type_only)


def _absolute(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The dotted module a `from ... import` names, with relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = name.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def _known(target: str, known: dict[str, Path]) -> str | None:
    """The longest known module that `target` is or lies in, if any."""
    while target:
        if target in known:
            return target
        target = target.rpartition(".")[0]
    return None


def _package(module: str) -> str:
    """The top-level package of a dotted module name."""
    return module.split(".")[0]


def _within(module: str, package: str) -> bool:
    """Whether the module is the package or lies inside it."""
    return module == package or module.startswith(package + ".")


def layer_problems(found: list[Import], known: dict[str, Path]) -> Iterator[Broken]:
    """Contracts 1 to 3: each import points down, never up or across to a game or a tool."""
    for each in found:
        if each.target not in known:
            continue
        source, target = _package(each.source), _package(each.target)
        if target not in MAY_IMPORT[source]:
            yield Broken(each.file, each.line, f"{each.source} may not import {each.target}")
        elif (
            _within(each.target, "runtime.games")
            and each.target != "runtime.games"
            and not _within(each.source, "runtime.games")
        ):
            yield Broken(
                each.file,
                each.line,
                f"{each.source} names a game's module ({each.target}): the engine knows no"
                " game; ask the registry, runtime.games",
            )
        elif (
            _within(each.target, COMMAND_PACKAGE)
            and not _within(each.source, COMMAND_PACKAGE)
            and each.source != COMMAND_TABLE[0]
        ):
            yield Broken(
                each.file,
                each.line,
                f"{each.source} imports the command {each.target}: only the command line's"
                " table reaches a command; move what both need below them",
            )
        elif _core(each.source) and _tool(each.target):
            yield Broken(
                each.file,
                each.line,
                f"{each.source} is the compile pipeline and may not import the tool {each.target}",
            )


def _core(module: str) -> bool:
    """A root module of the compiler that is not the command line."""
    return module.count(".") == 1 and _within(module, "compiler") and module not in COMMANDS


def _tool(module: str) -> bool:
    """A module of a tool's subpackage, or of printing beyond what a check runs."""
    if any(_within(module, tool) for tool in TOOLS):
        return True
    return _within(module, PRINTING) and module != PRINTING and module not in PRINT_CHECKS


def deferred(target: str) -> bool:
    """Whether a module is one DEFERRED names, or inside one (`importlib.metadata.x`)."""
    parts = target.split(".")
    return any(".".join(parts[:end]) in DEFERRED for end in range(1, len(parts) + 1))


def function_problems(found: list[Import]) -> Iterator[Broken]:
    """Contract 5: an import inside a function defers only a heavy optional dependency."""
    for each in found:
        if each.in_function and not each.type_only and not deferred(each.target):
            yield Broken(
                each.file,
                each.line,
                f"{each.source} imports {each.target} inside a function: import it at the"
                " module's top, or list it in DEFERRED with the reason it waits",
            )


def circles(found: list[Import], known: dict[str, Path]) -> Iterator[Broken]:
    """Contract 4: each circle of imports, named once, at one of its imports; a circle of
    type-only imports inside `RECURSIVE_TYPES` is the one kind let be."""
    for type_only in (False, True):
        graph: dict[str, dict[str, Import]] = {name: {} for name in known}
        for each in found:
            if each.target in known and (type_only or not each.type_only):
                graph[each.source].setdefault(each.target, each)
        for component in _strongly_connected(graph):
            cycle = _cycle_in(component, graph)
            first = graph[cycle[0]][cycle[1]]
            if not type_only:
                yield Broken(first.file, first.line, "an import circle: " + " -> ".join(cycle))
            elif not set(component) <= RECURSIVE_TYPES and not _has_plain_cycle(component, found):
                yield Broken(
                    first.file,
                    first.line,
                    "a circle of type-only imports: " + " -> ".join(cycle),
                )


def _has_plain_cycle(component: list[str], found: list[Import]) -> bool:
    """Whether the modules also form a circle without their type-only imports (reported so)."""
    members = set(component)
    graph: dict[str, dict[str, Import]] = {name: {} for name in members}
    for each in found:
        if each.source in members and each.target in members and not each.type_only:
            graph[each.source].setdefault(each.target, each)
    return bool(_strongly_connected(graph))


def _strongly_connected(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _cycle_in(component: list[str], graph: dict[str, dict[str, Import]]) -> list[str]:
    """One shortest circle through the component's first module, to name it in a message."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node]):
            if target == start:
                return [*paths[node], start]
            if target in members and target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    return [*component, start]


def problems(root: Path) -> list[Broken]:
    """Every broken contract in the tree at `root`, in file and line order."""
    known = modules(root)
    found = [each for name, file in known.items() for each in imports(name, file, known)]
    found += table_imports(known)
    broken = [
        *layer_problems(found, known),
        *function_problems(found),
        *circles(found, known),
    ]
    return sorted(broken, key=lambda b: (str(b.file), b.line, b.message))


def main(argv: list[str]) -> int:
    """Print each broken contract; exit 1 when there is one."""
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    broken = problems(root)
    for each in broken:
        print(each.shown(root))
    if broken:
        print(f"{len(broken)} broken import contracts (scripts/import_contracts.py says why)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
