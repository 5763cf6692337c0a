"""Code generation: the checked IR of a card file becomes a Python module, built as `ast` nodes.

Content reaches the generated code only as `ast.Constant` values; every identifier is made
here. Each statement carries the line and column of the card line it came from, and the module
is compiled with the `.card` file as its filename (its text registered with `linecache`), so a
traceback or a profiler inside an effect points at the card.

The module binds what it calls from the one global `runtime` (a `runtime.library.Library`)
and ends with `CARDS`, the compiled cards: data and the functions of their blocks, options and
tests.
"""

from __future__ import annotations

import ast
import json
import keyword
import linecache
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from compiler.ir import (
    BlockEntry,
    Branch,
    Card,
    Check,
    Condition,
    Effect,
    Operand,
    Option,
    Outcome,
    Roll,
    Step,
    Test,
)
from compiler.kept import Kept, keeping
from compiler.ruleset import Ruleset
from compiler.rulestext import effects_text
from dsl.spans import span_text

_CARD_STEPS: tuple[Literal["use", "carry", "play"], ...] = ("use", "carry", "play")
"""The test steps that name another card."""

GAME, CARD, VALUE = "game", "card", "value"
"""The parameters of every generated function: the game, the card in play, a value to set."""


_COMPARE: dict[str, type[ast.cmpop]] = {
    "==": ast.Eq,
    "!=": ast.NotEq,
    "<": ast.Lt,
    "<=": ast.LtE,
    ">": ast.Gt,
    ">=": ast.GtE,
}

_SAFE_BUILTINS: dict[str, Any] = {}
"""Generated code calls no builtin: everything it uses is bound from the runtime."""


class CodegenError(Exception):
    """The IR holds something the generator cannot compile: a bug in the checker."""


@dataclass
class CompiledFile:
    """The generated module of one card file, and the compiled cards it defines."""

    file: str
    module: ast.Module
    cards: tuple[Any, ...] = ()  # runtime.cards.CardDef, once executed

    def source(self) -> str:
        """The generated module as Python source (`pillbox build --emit python`)."""
        return ast.unparse(self.module)


@dataclass
class _Positions:
    """Maps IR spans (1-based line and column) onto a card file's lines for `ast` offsets."""

    lines: Sequence[str]
    spans: dict[int, tuple[ast.AST, tuple[int, int, int, int]]] = field(default_factory=dict)
    """The span placed on each node, by its id (the node is held, so the id stays its own)."""

    def offset(self, line: int, column: int) -> int:
        """The UTF-8 byte offset of a 1-based column, as `ast` counts columns."""
        if 1 <= line <= len(self.lines):
            return len(self.lines[line - 1][: max(column - 1, 0)].encode("utf-8"))
        return max(column - 1, 0)

    def place(self, node: ast.AST, at: Sequence[int] | None) -> None:
        """Give a node and all its children without a position the span `at` (when `settle`
        walks the module; the first span given a node is the one it keeps)."""
        if not at or id(node) in self.spans:
            return
        line, column, end_line, end_column = at
        start, end = self.offset(line, column), self.offset(end_line, end_column)
        self.spans[id(node)] = (node, (line, start, end_line, end))

    def settle(self, module: ast.Module) -> ast.Module:
        """Position every node of the module in one walk: a node without a position takes the
        span placed on it, else that of its nearest placed ancestor (spans are placed inside
        out, so the innermost is the first given), else its parent's position, as
        `ast.fix_missing_locations` gives it. One walk, because walking was most of generating:
        placing each node as it was made walked the nodes below it again, and the fix-up all of
        them once more (41 card files: 1.48 s to 0.89 s)."""
        spans = self.spans
        waiting: list[tuple[ast.AST, tuple[int, int, int, int] | None, tuple[int, int, int, int]]]
        waiting = [(module, None, (1, 0, 1, 0))]
        push, pop = waiting.append, waiting.pop
        while waiting:
            node, span, parent = pop()
            placed = spans.get(id(node))
            if placed is not None:
                span = placed[1]
            located: Any = node  # statements and expressions: both have positions
            if "lineno" in node._attributes:
                if getattr(located, "lineno", None) is None:
                    given = span or parent
                    located.lineno, located.col_offset = given[0], given[1]
                    located.end_lineno, located.end_col_offset = given[2], given[3]
                else:  # positioned when made or met before: a span from above stops here
                    span = None
                end_line = getattr(located, "end_lineno", None)
                end_column = getattr(located, "end_col_offset", None)
                parent = (
                    located.lineno,
                    located.col_offset,
                    parent[2] if end_line is None else end_line,
                    parent[3] if end_column is None else end_column,
                )
            # The children as `ast.iter_child_nodes` gives them, in its order; a context
            # (Load, Store) has no position and no child, and most nodes hold one.
            for name in node._fields:
                if name == "ctx":
                    continue
                value = getattr(node, name, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            push((item, span, parent))
                elif isinstance(value, ast.AST):
                    push((value, span, parent))
        return module

    def text(self, at: Sequence[int]) -> str:
        """What the card says at a span (its first line only), for test messages."""
        return span_text(self.lines, at)


def _name(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())


def _call(
    function: str, args: Sequence[ast.expr], keywords: dict[str, Any] | None = None
) -> ast.Call:
    return ast.Call(
        _name(function),
        list(args),
        [_keyword(key, value) for key, value in (keywords or {}).items()],
    )


def _keyword(name: str, value: Any) -> ast.keyword:
    """A slot as a keyword argument; the ruleset loader allows only plain slot names."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise CodegenError(f"cannot pass a slot named {name!r}")
    return ast.keyword(name, _literal(value))


def _literal(value: Any) -> ast.expr:
    """JSON data from the IR as an expression of constants only."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return ast.Constant(value)
    if isinstance(value, (list, tuple)):
        return ast.Tuple([_literal(v) for v in value], ast.Load())
    if isinstance(value, dict):
        return ast.Dict(
            [ast.Constant(str(k)) for k in value], [_literal(v) for v in value.values()]
        )
    raise CodegenError(f"cannot compile a {type(value).__name__} constant")


def _identifier(prefix: str, name: str) -> str:
    """A Python identifier for a ruleset name: letters, digits and underscores only."""
    cleaned = re.sub(r"[^0-9a-z_]", "_", name.lower())
    identifier = f"{prefix}_{cleaned}"
    if not identifier.isidentifier() or keyword.iskeyword(identifier):
        raise CodegenError(f"cannot make an identifier of {name!r}")
    return identifier


@dataclass
class _Generator:
    """Builds the module of one file; collects the runtime names its functions use."""

    ruleset: Ruleset
    file: str
    positions: _Positions
    bindings: dict[str, ast.expr] = field(default_factory=dict)
    bound: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, name) -> identifier
    functions: list[ast.stmt] = field(default_factory=list)
    _results: int = 0
    _made: dict[str, int] = field(default_factory=dict)  # stem -> names made of it

    # -- names bound from the runtime ---------------------------------------------------------

    def bind(self, kind: str, name: str) -> str:
        """The local name of a runtime callable: `verb_gain = runtime.verb('gain')`."""
        known = self.bound.get((kind, name))
        if known is not None:
            return known
        # Ruleset names may differ only where the identifier cannot (`end-turn`, `end_turn`).
        identifier = stem = _identifier(kind, name)
        suffix = 1
        while identifier in self.bindings:
            suffix += 1
            identifier = f"{stem}_{suffix}"
        self.bound[(kind, name)] = identifier
        self.bindings[identifier] = ast.Call(
            ast.Attribute(_name("runtime"), kind, ast.Load()), [ast.Constant(name)], []
        )
        return identifier

    def control(self, name: str) -> str:
        """The local name of a control callable: `say = runtime.say`."""
        self.bindings.setdefault(name, ast.Attribute(_name("runtime"), name, ast.Load()))
        return name

    def made(self, stem: str, value: ast.expr) -> str:
        """A module-level name for one check or roll, made once when the module loads."""
        self._made[stem] = self._made.get(stem, 0) + 1
        identifier = f"{stem}_{self._made[stem]}"
        self.bindings[identifier] = value
        return identifier

    def arms(self, table: Check | Roll) -> ast.Tuple:
        """The outcomes of a check or roll as the odds branch on them, from the IR."""
        arms: list[ast.expr] = []
        for outcome in table["outcomes"]:
            if outcome.get("invalid"):
                continue
            if "name" in outcome:
                fields = [ast.Constant(0), ast.Constant(0), ast.Constant(outcome["name"])]
                fields.append(ast.Constant(outcome["name"]))
            else:
                low, high, text = outcome["min"], outcome["max"], written_arm(outcome)
                fields = [ast.Constant(low), ast.Constant(high), ast.Constant(text)]
            arms.append(self.runtime_call("arm", fields))
        return ast.Tuple(arms, ast.Load())

    def fresh(self, stem: str) -> str:
        """A new local variable for a check or roll result."""
        self._results += 1
        return f"{stem}_{self._results}"

    # -- functions ------------------------------------------------------------------------------

    def function(
        self,
        name: str,
        doc: str,
        body: list[ast.stmt],
        at: Sequence[int],
        params: Sequence[str] = (GAME, CARD),
    ) -> str:
        """Add a module-level function placed at the span `at`."""
        docstring = ast.Expr(ast.Constant(doc))
        self.positions.place(docstring, at)
        definition = ast.FunctionDef(
            name=name,
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(p) for p in params],
                kwonlyargs=[],
                kw_defaults=[],
                defaults=[],
            ),
            body=[docstring, *(body or [ast.Pass()])],
            decorator_list=[],
            returns=None,
        )
        self.positions.place(definition, at)
        self.functions.append(definition)
        return name

    # -- effects --------------------------------------------------------------------------------

    def effects(self, effects: Sequence[Effect]) -> list[ast.stmt]:
        """The statements of a list of effects."""
        statements: list[ast.stmt] = []
        for effect in effects:
            statement = self.effect(effect)
            for node in statement:
                self.positions.place(node, effect.get("at"))
            statements.extend(statement)
        return statements

    def effect(self, effect: Effect) -> list[ast.stmt]:
        """The statements of one effect."""
        game_card = [_name(GAME), _name(CARD)]
        if "verb" in effect:
            return [ast.Expr(_call(self.bind("verb", effect["verb"]), game_card, effect["args"]))]
        if "say" in effect:
            return [ast.Expr(_call(self.control("say"), [*game_card, ast.Constant(effect["say"])]))]
        if "rule" in effect:
            return [
                ast.Expr(_call(self.control("rule"), [*game_card, ast.Constant(effect["rule"])]))
            ]
        if "may" in effect:
            body = effect["may"]["effects"]
            prompt = ast.Constant(self.prompt(body))
            return [ast.If(_call(self.control("may"), [*game_card, prompt]), self.body(body), [])]
        if "choose" in effect:
            return self.choose(effect["choose"]["options"])
        if "if" in effect:
            return [self.branches(effect["if"]["branches"], effect["if"].get("otherwise"))]
        if "check" in effect:
            check = effect["check"]
            name, args = _named(check["procedure"], "check"), check["args"]
            header = ast.Constant(written_header(self.ruleset, effect))
            made = self.made(
                "check",
                self.runtime_call(
                    "check", [ast.Constant(name), _literal(args), self.arms(check), header]
                ),
            )
            return self.outcomes("result", _call(made, game_card), check["outcomes"])
        if "roll" in effect:
            roll = effect["roll"]
            count, sides = ast.Constant(roll["dice"]["count"]), ast.Constant(roll["dice"]["sides"])
            made = self.made(
                "roll", self.runtime_call("roll_table", [count, sides, self.arms(roll)])
            )
            return self.outcomes("rolled", _call(made, game_card), roll["outcomes"])
        if "repeat" in effect:
            repeat = effect["repeat"]
            passes = _call(self.control("repeat"), [*game_card, ast.Constant(repeat["times"])])
            loop = ast.For(ast.Name("_", ast.Store()), passes, self.body(repeat["effects"]), [])
            return [loop]
        raise CodegenError(f"cannot compile the effect {sorted(effect)}")

    def body(self, effects: Sequence[Effect]) -> list[ast.stmt]:
        """A block's statements; `pass` when it is empty."""
        return self.effects(effects) or [ast.Pass()]

    def prompt(self, effects: Sequence[Effect]) -> str:
        """What a `may` asks, in the card's words."""
        sentence = effects_text(self.ruleset, list(effects)).rstrip(".")
        # The runtime asks "you may <prompt>": the clause goes mid-sentence.
        return sentence[:1].lower() + sentence[1:]

    def choose(self, options: Sequence[Option]) -> list[ast.stmt]:
        """`choose { option ... }`: ask, then run the option picked."""
        picked = self.fresh("picked")
        titles = ast.Tuple([ast.Constant(o["title"]) for o in options], ast.Load())
        ask = ast.Assign(
            [ast.Name(picked, ast.Store())],
            _call(self.control("choose"), [_name(GAME), _name(CARD), titles]),
        )
        chain: list[ast.stmt] = []
        for index, option in reversed(list(enumerate(options))):
            test = ast.Compare(_name(picked), [ast.Eq()], [ast.Constant(index)])
            branch = ast.If(test, self.body(option["effects"]), chain)
            self.positions.place(branch, option.get("at"))
            chain = [branch]
        return [ask, *chain]

    def branches(self, branches: Sequence[Branch], otherwise: Sequence[Effect] | None) -> ast.If:
        """`if / else if / else`."""
        chain: list[ast.stmt] = self.body(otherwise) if otherwise else []
        for branch in reversed(branches):
            node = ast.If(self.condition(branch["when"]), self.body(branch["effects"]), chain)
            self.positions.place(node, branch.get("at"))
            chain = [node]
        first = chain[0]
        assert isinstance(first, ast.If)
        return first

    def outcomes(self, stem: str, call: ast.Call, outcomes: Sequence[Outcome]) -> list[ast.stmt]:
        """A check or roll: keep its result, then run the outcome whose label covers it."""
        result = self.fresh(stem)
        statements: list[ast.stmt] = [ast.Assign([ast.Name(result, ast.Store())], call)]
        miss = ast.Expr(
            _call(self.control("no_outcome"), [_name(GAME), _name(CARD), _name(result)])
        )
        chain: list[ast.stmt] = [miss]
        for outcome in reversed([o for o in outcomes if not o.get("invalid")]):
            node = ast.If(self.label(result, outcome), self.body(outcome["effects"]), chain)
            self.positions.place(node, outcome.get("label_at") or outcome.get("at"))
            chain = [node]
        return statements + chain

    @staticmethod
    def label(result: str, outcome: Outcome) -> ast.expr:
        """The test of one outcome label: `3`, `1..2`, `4+` or a name."""
        value = _name(result)
        if "name" in outcome:
            return ast.Compare(value, [ast.Eq()], [ast.Constant(outcome["name"])])
        low, high = outcome["min"], outcome["max"]
        if high is None:
            return ast.Compare(value, [ast.GtE()], [ast.Constant(low)])
        if low == high:
            return ast.Compare(value, [ast.Eq()], [ast.Constant(low)])
        return ast.Compare(ast.Constant(low), [ast.LtE(), ast.LtE()], [value, ast.Constant(high)])

    # -- conditions and values ------------------------------------------------------------------

    def condition(self, condition: Condition) -> ast.expr:
        """A condition as a boolean expression."""
        if "compare" in condition:
            left, right = condition["left"], condition["right"]
            if condition["compare"] in ("==", "!=") and ("place" in left or "place" in right):
                # A place a card names is any of its spaces (the hallway of a mapped board):
                # the board says, not string equality.
                at = ast.Attribute(_name(GAME), "at_place", ast.Load())
                test = ast.Call(at, [self.operand(left), self.operand(right)], [])
                return test if condition["compare"] == "==" else ast.UnaryOp(ast.Not(), test)
            op = _COMPARE[condition["compare"]]()
            return ast.Compare(self.operand(left), [op], [self.operand(right)])
        if "flag" in condition:
            flag = self.bind("condition", _named(condition["flag"], "condition"))
            return _call(flag, [_name(GAME), _name(CARD)], condition["args"])
        if "not" in condition:
            return ast.UnaryOp(ast.Not(), self.condition(condition["not"]))
        if "all" in condition:
            return ast.BoolOp(ast.And(), [self.condition(c) for c in condition["all"]])
        if "any" in condition:
            return ast.BoolOp(ast.Or(), [self.condition(c) for c in condition["any"]])
        raise CodegenError(f"cannot compile the condition {sorted(condition)}")

    def operand(self, operand: Operand) -> ast.expr:
        """One side of a comparison."""
        if "value" in operand:
            value = self.bind("value", _named(operand["value"], "value"))
            return _call(value, [_name(GAME), _name(CARD)], operand["args"])
        if "const" in operand:
            return ast.Constant(operand["const"])
        if "place" in operand:
            return ast.Constant(operand["place"])
        raise CodegenError(f"cannot compile the operand {sorted(operand)}")

    # -- cards ----------------------------------------------------------------------------------

    def card(self, number: int, card: Card) -> ast.expr:
        """Compile a card's blocks, options and tests; return its `runtime.card(...)` entry."""
        stem = f"card_{number}"
        label = f"{card['kind']} {card['title']!r}" + (
            f" variant {card['variant']}" if card.get("variant") is not None else ""
        )
        options: list[ast.expr] = []
        for index, option in enumerate(card.get("options") or (), start=1):
            function = self.function(
                f"{stem}_option_{index}",
                f"{label}: option {option['title']!r}",
                self.effects(option["effects"]),
                option["at"],
            )
            options.append(
                self.runtime_call(
                    "option", [ast.Constant(option["title"]), _name(function), _line(option)]
                )
            )
        blocks: list[ast.expr] = []
        for index, block in enumerate(card["blocks"], start=1):
            if "modifiers" in block:
                modifiers: list[ast.expr] = [
                    self.runtime_call(
                        "modifier", [ast.Constant(m["modifier"]), _literal(m["args"])]
                    )
                    for m in block["modifiers"]
                    if "modifier" in m  # a `rule` line among modifiers is only printed
                ]
                run: ast.expr = ast.Constant(None)
                extra = [ast.Tuple(modifiers, ast.Load())]
            else:
                run = _name(
                    self.function(
                        f"{stem}_{_identifier('block', block['block'])}_{index}",
                        f"{label}: {block['block']}",
                        self.effects(block["effects"]),
                        block["at"],
                    )
                )
                extra = []
            args = {"args": _literal(block["args"])} if block.get("args") else {}
            blocks.append(
                self.runtime_call(
                    "block", [ast.Constant(block["block"]), _line(block), run, *extra], **args
                )
            )
        tests: list[ast.expr] = [
            self.test(f"{stem}_test_{index}", label, test)
            for index, test in enumerate(card.get("tests") or (), start=1)
        ]
        properties = _literal(card["properties"])
        entry = self.runtime_call(
            "card",
            [],
            kind=ast.Constant(card["kind"]),
            title=ast.Constant(card["title"]),
            variant=ast.Constant(card.get("variant")),
            file=ast.Constant(self.file),
            line=_line(card),
            properties=properties,
            options=ast.Tuple(options, ast.Load()),
            blocks=ast.Tuple(blocks, ast.Load()),
            tests=ast.Tuple(tests, ast.Load()),
        )
        self.positions.place(entry, card["at"])
        return entry

    def test(self, stem: str, label: str, test: Test) -> ast.expr:
        """A test: functions for its `given` and `expect` lines, and its steps as data."""
        steps: list[ast.expr] = []
        for index, step in enumerate(test["steps"], start=1):
            at = step["at"]
            common: dict[str, ast.expr] = {
                "line": ast.Constant(at[0]),
                "column": ast.Constant(at[1]),
                # a card filled from a sheet keeps the text: its spans point at the sheet's row
                "text": ast.Constant(step.get("text") or self.positions.text(at)),
            }
            if "set" in step:
                target = step["set"]["target"]
                setter = self.bind("setter", _named(target["value"], "value"))
                call = _call(setter, [_name(GAME), _name(CARD), _name(VALUE)], target["args"])
                function = self.function(
                    f"{stem}_given_{index}",
                    f"{label}, test {test['name']!r}: given",
                    [ast.Expr(call)],
                    at,
                    (GAME, CARD, VALUE),
                )
                value = _literal(step["set"]["to"])
                steps.append(
                    self.runtime_call(
                        "step", [ast.Constant("set")], **common, value=value, setter=_name(function)
                    )
                )
            elif "choose" in step:
                answer = step["choose"].get("option", step["choose"].get("answer"))
                steps.append(
                    self.runtime_call(
                        "step", [ast.Constant("choose")], **common, answer=ast.Constant(answer)
                    )
                )
            elif action := next((a for a in _CARD_STEPS if a in step), None):
                steps.append(
                    self.runtime_call(
                        "step", [ast.Constant(action)], **common, answer=ast.Constant(step[action])
                    )
                )
            elif "dice" in step:
                steps.append(
                    self.runtime_call(
                        "step", [ast.Constant("dice")], **common, faces=_literal(step["dice"])
                    )
                )
            elif "next_turn" in step:
                steps.append(self.runtime_call("step", [ast.Constant("turn")], **common))
            elif "expect" in step:
                steps.append(self.expect(f"{stem}_expect_{index}", label, test, step, common))
            else:
                raise CodegenError(f"cannot compile the test step {sorted(step)}")
        return self.runtime_call(
            "test",
            [ast.Constant(test["name"]), _line(test), ast.Tuple(steps, ast.Load())],
        )

    def expect(
        self, name: str, label: str, test: Test, step: Step, common: dict[str, ast.expr]
    ) -> ast.expr:
        """An `expect` line: a function for its condition, and one per value it reads."""
        condition = step["expect"]
        doc = f"{label}, test {test['name']!r}: expect"
        check = self.function(name, doc, [ast.Return(self.condition(condition))], step["at"])
        observers: list[ast.expr] = []
        for index, operand in enumerate(_value_operands(condition), start=1):
            observe = self.function(
                f"{name}_value_{index}", doc, [ast.Return(self.operand(operand))], step["at"]
            )
            shown = ast.Constant(self.value_label(operand))
            observers.append(ast.Tuple([shown, _name(observe)], ast.Load()))
        return self.runtime_call(
            "step",
            [ast.Constant("expect")],
            **common,
            check=_name(check),
            observe=ast.Tuple(observers, ast.Load()),
        )

    def value_label(self, operand: Operand) -> str:
        """A value as a card writes it (`health`, `items carried`), from its pattern."""
        name = operand["value"]
        pattern = self.ruleset.values.by_name.get(name) if name is not None else None
        if pattern is None:
            return str(operand["value"])
        return pattern.phrase(operand["args"])

    @staticmethod
    def runtime_call(
        constructor: str, positional: Sequence[ast.expr], **keywords: ast.expr
    ) -> ast.Call:
        """`runtime.<constructor>(...)` with expressions already built."""
        return ast.Call(
            ast.Attribute(_name("runtime"), constructor, ast.Load()),
            list(positional),
            [ast.keyword(k, v) for k, v in keywords.items()],
        )


def written_header(ruleset: Ruleset, node: Effect) -> str:
    """How a check or roll reads in a log or an odds path: `check speed -1`, `roll 2d6`."""
    if "roll" in node:
        count, sides = node["roll"]["dice"]["count"], node["roll"]["dice"]["sides"]
        return f"roll {count if count != 1 else ''}d{sides}"
    check = node["check"]
    name = _named(check["procedure"], "check")
    return "check " + ruleset.checks.by_name[name].phrase(check["args"])


def written_arm(outcome: Outcome) -> str:
    """An outcome's label as a card writes it: `0..1`, `3`, `4+`, `pass`."""
    if "name" in outcome:
        return str(outcome["name"])
    low, high = outcome["min"], outcome["max"]
    return f"{low}+" if high is None else str(low) if low == high else f"{low}..{high}"


def _line(item: Card | Option | BlockEntry | Test) -> ast.Constant:
    return ast.Constant(item["at"][0])


def _value_operands(condition: Condition) -> list[Operand]:
    """The values a condition reads, for the message of a failed `expect`."""
    if "compare" in condition:
        return [o for o in (condition["left"], condition["right"]) if "value" in o]
    if "all" in condition:
        return [o for c in condition["all"] for o in _value_operands(c)]
    if "any" in condition:
        return [o for c in condition["any"] for o in _value_operands(c)]
    if "not" in condition:
        return _value_operands(condition["not"])
    return []


def _named(name: str | None, what: str) -> str:
    """A ruleset word the IR names; None only where lowering reported an unknown word, and a
    card with errors is never compiled."""
    if name is None:
        raise CodegenError(f"the IR names no {what}: the card has errors")
    return name


def source_lines(source: str) -> list[str]:
    """A card file's lines as the parser counts them: split at line feeds only.

    `str.splitlines` also splits at form feeds, vertical tabs, NEL and U+2028, which a card's
    quoted text may hold: every line after one would be numbered wrong."""
    return source.split("\n")


def generate(ruleset: Ruleset, cards: Sequence[Card], file: str, source: str) -> ast.Module:
    """The module of one card file's checked cards, as `ast` nodes placed on its lines."""
    generator = _Generator(ruleset, file, _Positions(source_lines(source)))
    entries = [generator.card(number, card) for number, card in enumerate(cards, start=1)]
    table = ast.Assign([ast.Name("CARDS", ast.Store())], ast.Tuple(entries, ast.Load()))
    doc = ast.Expr(
        ast.Constant(f"Compiled by pillbox from {file} (ruleset {ruleset.name}); do not edit.")
    )
    bindings: list[ast.stmt] = [
        ast.Assign([ast.Name(name, ast.Store())], value)
        for name, value in sorted(generator.bindings.items())
    ]
    module = ast.Module([doc, *bindings, *generator.functions, table], type_ignores=[])
    for node in (doc, *bindings):
        generator.positions.place(node, (1, 1, 1, 1))
    generator.positions.place(table, cards[0]["at"] if cards else (1, 1, 1, 1))
    return generator.positions.settle(module)


_modules: Kept[tuple[ast.Module, Any]] = Kept(128)
"""The generated modules of the card files a process compiled, where it keeps results."""


def _module_and_code(
    ruleset: Ruleset, cards: Sequence[Card], file: str, source: str
) -> tuple[ast.Module, Any]:
    """The generated module of a card file and its code, made once for the same ruleset, file,
    text and IR where the process keeps results: generating is most of compiling, and running
    the code again is cheap. The IR is in the key because a sheet's cards have positions of
    the sheet, not of the text they were read from."""
    key = None
    if keeping():
        key = (ruleset.digest, file, source, json.dumps(cards, sort_keys=True, default=str))
        kept = _modules.get(key)
        if kept is not None:
            return kept
    module = generate(ruleset, cards, file, source)
    made = (module, compile(module, file, "exec", dont_inherit=True))
    if key is not None:
        _modules.put(key, made)
    return made


def compile_file(
    ruleset: Ruleset, cards: Sequence[Card], file: str, source: str, library: Any
) -> CompiledFile:
    """Generate, compile and run the module of one card file; its cards come back compiled.

    The cards are made anew each time (the code runs again against `library`), so nothing of
    one compiled pack is shared with another but the code."""
    module, code = _module_and_code(ruleset, cards, file, source)
    # The card file is the code's filename: tracebacks and profilers show its lines.
    lines = [f"{line}\n" for line in source_lines(source)]
    linecache.cache[file] = (len(source), None, lines, file)
    namespace: dict[str, Any] = {"__builtins__": dict(_SAFE_BUILTINS), "runtime": library}
    exec(code, namespace)
    return CompiledFile(file, module, tuple(namespace["CARDS"]))
