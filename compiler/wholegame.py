"""A ruleset's whole game (`game:`): its effects and conditions lowered from the card language,
and its problems reported at the ruleset's lines (`compiler.wholegame_compile` compiles it).

An action's `effect:`, a setup, an ending's condition are card language written in YAML. Each
is parsed where it stands in its file (the parser is given the file's own lines, so every
span is the ruleset's line and column), lowered by the same `Lowerer` as a card's blocks and
compiled (`compiler.wholegame_compile`) by the same code generator into one rules card;
`runtime.datagame` plays it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from compiler.ir import BlockEntry, Card, Condition, Effect, Operand, Test
from compiler.lower import Lowerer, at
from compiler.ruleset import lineage_documents
from compiler.ruleset_model import Ruleset
from compiler.yamlio import YamlDocument
from dsl import nodes as n
from dsl.parser import parse
from dsl.spans import Diagnostic, Span
from runtime.games import game_module

SECTION = "game"
RULES_KIND = "game"
"""The kind of the rules card the whole game's effects are compiled into (never a pack's card)."""

OPEN_EFFECTS = '_ "_" { _ {'
OPEN_CONDITION = '_ "_" {'


@dataclass(frozen=True)
class Snippet:
    """One piece of card language in the `game:` section: where it is and what it is."""

    path: tuple[str, ...]  # its place in the ruleset data
    role: str  # "effects" or "condition"
    name: str  # the block or test it compiles to


@dataclass
class Lowered:
    """The `game:` section lowered: one IR card per file that writes a part of it."""

    cards: dict[Path, tuple[str, str, Card]]  # file -> (shown name, its text, its rules card)
    diagnostics: list[Diagnostic]
    ruleset: Ruleset

    @cached_property
    def documents(self) -> list[tuple[Path, YamlDocument]]:
        """The files the ruleset merges, its own first, read when a position is wanted: a
        section of procedures only, checked clean, needs none (reading them is 4 ms)."""
        return lineage_documents(self.ruleset)

    def in_written_order(
        self, entries: dict[str, Any], path: tuple[str, ...]
    ) -> list[tuple[str, Any]]:
        """A mapping's entries in the order its files write them."""
        order = written_order(self.documents, path)
        return sorted(entries.items(), key=lambda item: order.get(item[0], (len(order), 0)))


_LOWERED: dict[tuple[str, str], Lowered | None] = {}
"""Each ruleset's `game:` lowered, by its file and digest: the check and the compile of one run
(and a server's many) read it once."""

_MOST_LOWERED = 16
"""Rulesets kept lowered: a server's edits make new digests, and the oldest are let go."""


def lowered_whole(ruleset: Ruleset) -> Lowered | None:
    """The ruleset's `game:` section lowered, once a ruleset; None when it has none."""
    key = (ruleset.path, ruleset.digest)
    if key not in _LOWERED:
        while len(_LOWERED) >= _MOST_LOWERED:
            del _LOWERED[next(iter(_LOWERED))]
        _LOWERED[key] = lower_whole(ruleset)
    return _LOWERED[key]


def snippets(section: dict[str, Any]) -> Iterator[Snippet]:
    """Every piece of card language the section writes, in the order a reader meets them."""
    setup = section.get("setup") or {}
    for part in ("table", "seat"):
        if isinstance(setup.get(part), str):
            yield Snippet((SECTION, "setup", part), "effects", f"setup {part}")
    for name, action in (section.get("actions") or {}).items():
        action = action or {}
        if isinstance(action.get("effect"), str):
            yield Snippet((SECTION, "actions", name, "effect"), "effects", f"action {name}")
        if isinstance(action.get("when"), str):
            yield Snippet((SECTION, "actions", name, "when"), "condition", f"when {name}")
    if isinstance(section.get("turn_starts"), str):
        yield Snippet((SECTION, "turn_starts"), "effects", "turn starts")
    if isinstance(section.get("turn_ends"), str):
        yield Snippet((SECTION, "turn_ends"), "effects", "turn ends")
    for kind, effect in (section.get("turns") or {}).items():
        if isinstance(effect, str):
            yield Snippet((SECTION, "turns", kind), "effects", f"turn {kind}")
    end = section.get("end") or {}
    for result in ("lost", "won"):
        if isinstance(end.get(result), str):
            yield Snippet((SECTION, "end", result), "condition", result)
    for name, condition in (section.get("count") or {}).items():
        if isinstance(condition, str):
            yield Snippet((SECTION, "count", name), "condition", f"count {name}")
    for name, value in (section.get("tally") or {}).items():
        if isinstance(value, str):
            yield Snippet((SECTION, "tally", name), "value", f"tally {name}")
        elif isinstance(value, dict) and isinstance(value.get("value"), str):
            yield Snippet((SECTION, "tally", name, "value"), "value", f"tally {name}")
    for name, term in (section.get("worth") or {}).items():
        if not isinstance(term, dict):
            continue
        if isinstance(term.get("value"), str):
            yield Snippet((SECTION, "worth", name, "value"), "value", f"worth {name}")
        if isinstance(term.get("when"), str):
            yield Snippet((SECTION, "worth", name, "when"), "condition", f"worth when {name}")


def lower_whole(ruleset: Ruleset) -> Lowered | None:
    """Lower the ruleset's `game:` section; None when it has none."""
    section = ruleset.data.get(SECTION)
    if not isinstance(section, dict):
        return None
    lowered = Lowered({}, [], ruleset)
    texts: dict[Path, str] = {}
    for snippet in snippets(section):
        found = _written_in(lowered.documents, snippet.path)
        if found is None:
            continue
        path, document = found
        if path not in texts:
            texts[path] = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        shown = document.file
        entry = lowered.cards.get(path)
        if entry is None:
            card = _rules_card(ruleset, shown)
            lowered.cards[path] = entry = (shown, texts[path], card)
        line, column = document.positions[snippet.path]
        key_column = document.key_positions.get(snippet.path, (line, 1))[1]
        lowerer = Lowerer(ruleset, shown)
        written = _value_at(ruleset.data, snippet.path)
        parsed = _parse(snippet, texts[path], shown, (line, column, key_column), written)
        lowered.diagnostics += parsed[1]
        if parsed[0] is None or parsed[1]:
            continue
        node = parsed[0]
        card = entry[2]
        if isinstance(node, n.Block):
            effects: list[Effect] = lowerer.block_effects(node)
            block: BlockEntry = {"block": snippet.name, "at": at(node.span), "effects": effects}
            card["blocks"].append(block)
        else:
            condition: Condition = lowerer.condition(node)
            where = at(node.span)
            ending = snippet.name in ("won", "lost") and not lowerer.diagnostics
            if ending and never_holds(ruleset, condition):
                lowered.diagnostics.append(
                    _error(
                        "E0488",
                        f"the game is never {snippet.name}: this condition cannot hold "
                        "within the ranges of what it reads",
                        node.span,
                        "compare within the stat's or track's bounds (its `min:` and `max:`)",
                    )
                )
            test: Test = {
                "name": snippet.name,
                "at": where,
                "steps": [{"expect": condition, "at": where}],
            }
            card["tests"].append(test)
        lowered.diagnostics += lowerer.diagnostics
    lowered.diagnostics += list(_structure_problems(ruleset, section, lowered))
    return lowered


def never_holds(ruleset: Ruleset, condition: Condition) -> bool:
    """Whether a condition cannot hold whatever happens: a stat or track compared with a
    number outside the values it can take (`dawn >= 7` where dawn stops at 6)."""
    if "all" in condition:
        return any(never_holds(ruleset, part) for part in condition["all"])
    if "any" in condition:
        return all(never_holds(ruleset, part) for part in condition["any"])
    if "compare" not in condition:
        return False
    left, right, compare = condition["left"], condition["right"], condition["compare"]
    bounds = _bounds(ruleset, left)
    if bounds is None or "const" not in right:
        return False
    low, high, wanted = bounds[0], bounds[1], right["const"]
    can = {
        "==": low <= wanted <= high,
        "!=": not low == high == wanted,
        ">=": high >= wanted,
        ">": high > wanted,
        "<=": low <= wanted,
        "<": low < wanted,
    }
    return not can.get(compare, True)


def _bounds(ruleset: Ruleset, operand: Operand) -> tuple[int, int] | None:
    """The values a stat or a game's track can take, when the operand reads one."""
    args = operand.get("args") or {}
    if operand.get("value") == "stat" and args.get("stat") in ruleset.stat_names:
        return ruleset.stat_range(str(args["stat"]))
    track = ruleset.world.tracks.get(str(args.get("track")))
    if operand.get("value") == "track" and track is not None and track.on == "game":
        return track.low, track.high
    return None


def written_order(
    documents: list[tuple[Path, YamlDocument]], path: tuple[str, ...]
) -> dict[str, tuple[int, int]]:
    """Where each entry of a mapping is written, to order it as written: a merged mapping (a
    bundled ruleset's, read back from JSON) has lost the order of its keys. An ancestor's
    entries come first, each file's in the order of its lines."""
    found: dict[str, tuple[int, int]] = {}
    for depth, (_file, document) in enumerate(reversed(documents)):
        for key, (line, _column) in document.key_positions.items():
            if len(key) == len(path) + 1 and key[:-1] == path and str(key[-1]) not in found:
                found[str(key[-1])] = (depth, line)
    return found


def _value_at(data: dict[str, Any], path: tuple[str, ...]) -> str:
    """The text a snippet's path holds in the merged ruleset."""
    found: Any = data
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, str) else ""


def _rules_card(ruleset: Ruleset, shown: str) -> Card:
    return {
        "kind": RULES_KIND,
        "title": ruleset.title,
        "variant": None,
        "file": shown,
        "at": [1, 1, 1, 1],
        "properties": {},
        "blocks": [],
        "rules": [],
        "tests": [],
    }


def _written_in(
    documents: list[tuple[Path, YamlDocument]], path: tuple[str, ...]
) -> tuple[Path, YamlDocument] | None:
    """The file that writes this value: the first in merge order (the merge's winner)."""
    for file, document in documents:
        if path in document.positions:
            return file, document
    return None


def _parse(
    snippet: Snippet,
    text: str,
    shown: str,
    place: tuple[int, int, int],
    written: str,
) -> tuple[n.Block | n.Condition | None, list[Diagnostic]]:
    """Parse the piece of card language at (line, column) of the file's text, so that its
    nodes carry the file's own positions: the lines before it are blank but for an opening
    the grammar needs, written on the line above it."""
    line, column, key_column = place
    lines = text.split("\n")
    raw = lines[line - 1] if line <= len(lines) else ""
    start = raw[column - 1 : column] if column >= 1 else ""
    if start in ("|", ">"):  # a block scalar: its lines follow, indented past its key
        body = []
        for following in lines[line:]:
            indent = len(following) - len(following.lstrip(" "))
            if following.strip() and indent < key_column:
                break
            body.append(following)
        first = line + 1
    else:
        body = [_one_line(raw, column, written)]
        first = line
    if snippet.role in ("condition", "value"):
        if len([b for b in body if b.strip()]) != 1:
            problem = _error(
                "E0480",
                f"a {snippet.role} of `game:` is written on one line",
                Span(shown, line, column, line, column + 1),
                "write it as `key: the dawn >= 6`, not as a block",
            )
            return None, [problem]
        at_line = next(i for i, b in enumerate(body) if b.strip())
        written = body[at_line]
        indent = len(written) - len(written.lstrip(" "))
        head = "if "
        # The `if` goes just before the condition: there is room, its key is before it.
        # A value is read as the left side of a comparison, whose reader the generated code
        # keeps (as a failed `expect` shows the values it read).
        tail = " == 0 { }" if snippet.role == "value" else " { }"
        padded_line = " " * max(indent - len(head), 0) + head + written.lstrip(" ") + tail
        prefix = [""] * (first + at_line - 2) + [OPEN_CONDITION]
        source = "\n".join([*prefix, padded_line, "}"])
        if indent < len(head):  # no room before it (never in a mapping): columns shift
            source = "\n".join([*prefix, head + written.lstrip(" ") + tail, "}"])
    else:
        prefix = [""] * (first - 2) + [OPEN_EFFECTS]
        source = "\n".join([*prefix, *body, "} }"])
    parsed, problems = parse(source, shown)
    if problems or not parsed.cards:
        return None, problems
    statement = parsed.cards[0].block.body[0] if parsed.cards[0].block.body else None
    if isinstance(statement, n.HeaderBlock):
        return statement.block, []
    if isinstance(statement, n.If):
        return statement.branches[0].condition, []
    return None, []


def _one_line(raw: str, column: int, written: str) -> str:
    """A plain or quoted scalar's text at its own columns: the value as read, after its
    opening quote if it has one (a value inside a flow mapping ends where the mapping says)."""
    quoted = raw[column - 1 : column] in ("'", '"')
    return " " * (column if quoted else column - 1) + written


def _error(code: str, message: str, span: Span, help: str | None = None) -> Diagnostic:
    return Diagnostic(code, "error", message, span, help)


def _structure_problems(
    ruleset: Ruleset, section: dict[str, Any], lowered: Lowered
) -> Iterator[Diagnostic]:
    """What keeps the section from making a game: procedures the module lacks, a turn no seat
    takes, actions no one can pay for, a free action taken forever, no way to end."""

    def span(*path: str, key: bool = False) -> Span:
        documents = lowered.documents
        found = _written_in(documents, (SECTION, *path))
        if found is None:
            found = _written_in(documents, (SECTION,))
        document = found[1] if found is not None else documents[0][1]
        return document.span((SECTION, *path), key=key)

    seats = section.get("seats") or {}
    fewest, most = int(seats.get("fewest", 1)), int(seats.get("most", 1))
    if fewest > most:
        yield _error(
            "E0481",
            f"the seats run from {fewest} to {most}: the fewest is more than the most",
            span("seats"),
        )
    yield from _worth_problems(section, span)
    module = game_module(ruleset.runtime)
    for part, entry in (section.get("parts") or {}).items():
        yield from _part_problems(module, part, entry or {}, span)
    yield from _unknown_procedure(module, section.get("notes"), span, "notes")
    setup_procedure = (section.get("setup") or {}).get("procedure")
    yield from _unknown_procedure(module, setup_procedure, span, "setup", "procedure")
    if not section.get("actions") and not section.get("parts"):
        yield _error(
            "E0482",
            "the game has neither `actions:` for its seats to take nor `parts:` to play",
            span(),
            "give the seats `actions:` (docs/adding-a-game.md, section 2)",
        )
        return
    yield from _turn_problems(module, section, span)
    if section.get("parts"):
        # The module's procedures play the parts, and end the game: only what the seats'
        # actions name is read here.
        for name, action in (section.get("actions") or {}).items():
            yield from _action_problems(module, name, action or {}, span)
        return
    seated = next((a.name for a in ruleset.world.actors.values() if a.seated), "character")
    phases = [p for p in ruleset.world.turns.phases if p.actors == seated]
    if not phases:
        yield _error(
            "E0482",
            "no phase of `turns:` gives the seats a turn, so no action can be taken",
            span(),
            f"add a phase with `each: {seated}` to `turns:`",
        )
    paid_from = [p.actions for p in phases if p.actions is not None]
    for name, action in (section.get("actions") or {}).items():
        action = action or {}
        yield from _action_problems(module, name, action, span)
        cost = int(action.get("cost", 0))
        if cost and not paid_from and phases and not section.get("turn"):
            yield _error(
                "E0482",
                f"the action {name!r} costs {cost}, but the seats' phase has no `actions:` "
                "stat to pay it from",
                span("actions", name, "cost"),
                "give the phase `actions: STAT` (action points), or make the action free",
            )
    for kind in section.get("turns") or {}:
        actor = ruleset.world.actors.get(kind)
        if actor is None or actor.seated:
            others = [a.name for a in ruleset.world.actors.values() if not a.seated]
            yield _error(
                "E0487",
                f"{kind!r} is no kind of actor that no seat plays: the seats' turn is their "
                "`actions:`",
                span("turns", kind, key=True),
                f"the actors no seat plays: {', '.join(others) or 'none (see `actors:`)'}",
            )
    end = section.get("end") or {}
    has_end = any(isinstance(end.get(r), str) for r in ("won", "lost"))
    if not has_end and (ruleset.world.turns.last_round is None or "after_last_round" not in end):
        yield _error(
            "E0486",
            "the game has no way to end: no `end: won:` or `lost:` condition, and no last "
            "round that decides it",
            span("end") if end else span(),
            "add `end: {won: CONDITION}`, or `turns: last_round: N` with "
            "`end: {after_last_round: won}`",
        )


def _part_problems(
    module: Any, part: str, entry: dict[str, Any], span: Callable[..., Span]
) -> Iterator[Diagnostic]:
    """What keeps a part from being played: neither a procedure nor rounds until a check (or
    both), or a name the module lacks."""
    rounds = "until" in entry
    if ("procedure" in entry) == rounds or (
        not rounds and ("then" in entry or "round_limit" in entry)
    ):
        yield _error(
            "E0490",
            f"the part {part!r} needs one of `procedure:` (the module plays it) or `until:` "
            "(rounds of the seats' turns until the module's check holds)",
            span("parts", part, key=True),
            "`then:` and `round_limit:` go with `until:`",
        )
    yield from _unknown_procedure(module, entry.get("procedure"), span, "parts", part, "procedure")
    yield from _unknown_procedure(module, entry.get("then"), span, "parts", part, "then")
    until = entry.get("until")
    if until is not None and until not in module.can:
        known = ", ".join(sorted(module.can)) or "none"
        yield _error(
            "E0484",
            f"the game module '{module.name}' has no check {until!r} (its `can` table)",
            span("parts", part, "until"),
            f"its checks: {known}",
        )


def _action_problems(
    module: Any, name: str, action: dict[str, Any], span: Callable[..., Span]
) -> Iterator[Diagnostic]:
    """What keeps one action from being taken: nothing to do, a procedure the module lacks, a
    free action that could be taken forever."""
    procedure = action.get("procedure")
    if ("effect" in action) == (procedure is not None):
        yield _error(
            "E0483",
            f"the action {name!r} needs one of `effect:` (card language) or `procedure:`",
            span("actions", name, key=True),
        )
    if procedure is not None and procedure not in module.procedures:
        known = ", ".join(sorted(module.procedures)) or "none"
        yield _error(
            "E0484",
            f"the game module '{module.name}' has no procedure {procedure!r}",
            span("actions", name, "procedure"),
            f"its procedures: {known}",
        )
    bounded = any(action.get(key, False) for key in ("once", "main", "self_paid"))
    if not int(action.get("cost", 0)) and not bounded:
        yield _error(
            "E0485",
            f"the free action {name!r} could be taken forever: a free action is taken at "
            "most once a turn",
            span("actions", name, key=True),
            "add `once: true` (or `main: true`: the turn's one main action; `self_paid: "
            "true`: its effect pays what it costs), or give it a cost",
        )


def _turn_problems(
    module: Any, section: dict[str, Any], span: Callable[..., Span]
) -> Iterator[Diagnostic]:
    """What keeps a turn of free actions then one main action from holding together: a name
    the module lacks, an action followed by no action of the game, a turn with no main action."""
    actions: dict[str, Any] = section.get("actions") or {}
    turn = section.get("turn") or {}
    for name, action in actions.items():
        action = action or {}
        for key, table in (("targets", module.targets), ("prefer", module.can)):
            named = action.get(key)
            if named is not None and named not in table:
                known = ", ".join(sorted(table)) or "none"
                yield _error(
                    "E0484",
                    f"the game module '{module.name}' has no {key} procedure {named!r}",
                    span("actions", name, key),
                    f"its {key} procedures: {known}",
                )
        follow = action.get("then")
        if follow is not None and (follow not in actions or follow == name):
            yield _error(
                "E0491",
                f"the action {name!r} is followed by {follow!r}, which is no other action of "
                "the game",
                span("actions", name, "then"),
                f"the actions: {', '.join(a for a in actions if a != name) or 'none'}",
            )
        if turn and int(action.get("cost", 0)):
            yield _error(
                "E0491",
                f"the action {name!r} costs {action['cost']}, but a turn of free actions then "
                "one main action pays no costs",
                span("actions", name, "cost"),
                "make it free (`once: true`) or the turn's main action (`main: true`)",
            )
        if turn and action.get("targets") is not None and not action.get("main", False):
            yield _error(
                "E0491",
                f"the free action {name!r} has `targets:`: only a main action is offered "
                "once for each target",
                span("actions", name, "targets"),
                "make it `main: true`, or let its procedure ask whom it is taken on",
            )
    if not turn:
        for name, action in actions.items():
            for key in ("then", "targets", "prefer"):
                if key in (action or {}):
                    yield _error(
                        "E0491",
                        f"the action {name!r} has `{key}:`, which only a turn of free actions "
                        "then one main action reads",
                        span("actions", name, key, key=True),
                        "add `turn: {free: {ask: ..., on: ...}, main: {ask: ...}}` to `game:`",
                    )
        return
    yield from _unknown_procedure(
        module, (turn.get("main") or {}).get("fallback"), span, "turn", "main", "fallback"
    )
    if not any((a or {}).get("main", False) for a in actions.values()):
        yield _error(
            "E0491",
            "the turn ends with one main action, but no action is `main: true`",
            span("turn", key=True),
            "mark the turn's main actions `main: true`",
        )


def whole_game_problems(ruleset: Ruleset, sources: dict[str, str]) -> list[Diagnostic]:
    """What is wrong with the ruleset's `game:` section, at its lines; the texts of the files
    they are in go into `sources`, for the diagnostics to show their lines."""
    lowered = lowered_whole(ruleset)
    if lowered is None or not lowered.diagnostics:
        return []
    for shown, text, _card in lowered.cards.values():
        sources.setdefault(shown, text)
    return list(lowered.diagnostics)


def _unknown_procedure(
    module: Any, name: object, span: Callable[..., Span], *path: str
) -> Iterator[Diagnostic]:
    """E0484 at `path` when `name` is no procedure of the module."""
    if name is not None and name not in module.procedures:
        known = ", ".join(sorted(module.procedures)) or "none"
        yield _error(
            "E0484",
            f"the game module '{module.name}' has no procedure {name!r}",
            span(*path),
            f"its procedures: {known}",
        )


def _worth_problems(section: dict[str, Any], span: Callable[..., Span]) -> Iterator[Diagnostic]:
    """E0489 at a `worth:` term that can never earn anything: a value read between two equal
    ends, or a term with neither a value nor a condition."""
    for name, term in (section.get("worth") or {}).items():
        if not isinstance(term, dict):
            continue
        if "value" not in term and "when" not in term:
            yield _error(
                "E0489",
                f"the worth term {name!r} reads nothing: it needs a `value:` or a `when:`",
                span("worth", name, key=True),
                "add a `value:` (with `to:`, where it earns its whole weight) or a `when:` "
                "condition (its whole weight while it holds)",
            )
        elif "value" in term and float(term.get("from", 0)) == float(term.get("to", 1)):
            yield _error(
                "E0489",
                f"the worth term {name!r} runs from {term.get('from', 0)} to "
                f"{term.get('to', 1)}: a value between two equal ends never earns anything",
                span("worth", name, "to" if "to" in term else "value"),
                "give `from:` (nothing earned) and `to:` (its whole weight) different numbers",
            )
