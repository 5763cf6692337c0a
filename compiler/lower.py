"""Lower the AST of a card to plain-JSON IR, matching every phrase against the ruleset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar, get_args

from compiler.ir import (
    Answer,
    BlockEntry,
    Branch,
    Card,
    CardFacts,
    Compare,
    Condition,
    Effect,
    ModifierEntry,
    Operand,
    Option,
    Outcome,
    Step,
    Test,
)
from compiler.patterns import (
    MAX_TEXT,
    Miss,
    PatternTable,
    Problem,
    closest,
    did_you_mean,
    did_you_mean_or_list,
    out_of_range,
    text_too_long,
)
from compiler.ruleset import Kind, Ruleset
from dsl import nodes as n
from dsl.parser import STATEMENT_KEYWORDS
from dsl.spans import Diagnostic, Span

MAX_REPEAT = 20
MAX_REPEAT_NESTING = 4
"""Repeats inside repeats: 20 ** 4 passes is already more than any card needs."""
MAX_TITLE = 200
MAX_DIE_SIDES = 100
MAX_DICE = 30
MAX_OUTCOMES = 100

_CATEGORY_NOUN = {
    "verbs": "verb",
    "modifiers": "modifier",
    "conditions": "condition",
    "properties": "property",
    "values": "value",
    "blocks": "block header",
    "checks": "check",
}


def at(span: Span) -> list[int]:
    """The IR's compact form of a span."""
    return span.as_list()


GIVES = {
    "successes": "counts successes",
    "total": "gives a total",
    "face": "gives a face",
    "damage": "counts damage",
}
"""How an E0220 message says what a counted check gives."""


_COMPARE: dict[str, Compare] = {op: op for op in get_args(Compare)}
"""The grammar's comparison operators, as the IR writes them."""

IRT = TypeVar("IRT", Card, CardFacts)


@dataclass
class LoweredCard(Generic[IRT]):
    """A card's IR together with what the checker needs to know about it: the whole `Card`
    as lowered, or only its `CardFacts` where a check kept no more (`FileResult.facts`)."""

    ir: IRT
    effect_lines: int = 0
    rule_lines: int = 0
    has_errors: bool = False


@dataclass
class Lowerer:
    """Lowers the cards of one file; owns the diagnostics it finds."""

    ruleset: Ruleset
    file: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _effect_lines: int = 0
    _rule_lines: int = 0

    # ------------------------------------------------------------ reporting

    def error(self, code: str, message: str, span: Span, help: str | None = None) -> None:
        """Record an error at a span."""
        self.diagnostics.append(Diagnostic(code, "error", message, span, help))

    def report(self, problem: Problem) -> None:
        """Record a matching problem as an error."""
        self.error(problem.code, problem.message, problem.span, problem.help)

    def report_miss(
        self, table: PatternTable, phrase: n.Phrase, misses: list[Miss], noun: str | None = None
    ) -> None:
        """Explain why no pattern of a table fits a phrase, picking the likeliest story."""
        noun = noun or _CATEGORY_NOUN[table.category]
        if misses:
            best = max(misses, key=lambda m: m.reached)
            self.report(best.problem)
            return
        first = phrase.atoms[0]
        written = n.atom_source(first)
        self.error(
            "E0200",
            f"unknown {noun} '{written}'",
            first.span,
            did_you_mean(written, table.head_words) or table.listing(noun),
        )

    # ------------------------------------------------------------ cards

    def lower_card(self, card: n.Card) -> LoweredCard[Card] | None:
        """Lower one card, or return None when its kind is unknown."""
        before = len(self.diagnostics)
        self._effect_lines = self._rule_lines = 0
        self._repeats = 0  # repeats around the statement being lowered
        kind = self.ruleset.kinds.get(card.kind.text)
        if kind is None:
            self.error(
                "E0210",
                f"unknown card kind '{card.kind.text}'",
                card.kind.span,
                did_you_mean(card.kind.text, self.ruleset.kinds)
                or f"the kinds of {self.ruleset.name} are: {', '.join(self.ruleset.kinds)}",
            )
            return None
        ir: Card = {
            "kind": kind.name,
            "title": card.title.value,
            "variant": card.variant.value if card.variant is not None else None,
            "file": self.file,
            "at": at(card.span),
            "properties": {},
            "property_at": {},
            "blocks": [],
            "rules": [],
            "tests": [],
        }
        if kind.options:
            ir["options"] = []
        self._title(card.title, "a card")
        if card.variant is not None and not 1 <= card.variant.value <= 99:
            self.report(out_of_range(card.variant.value, 1, 99, "variant", card.variant.span))
        property_spans: dict[str, Span] = {}
        for statement in card.block.body:
            self._card_statement(kind, statement, ir, property_spans)
        for name, required in kind.properties.items():
            if required and name not in property_spans:
                pattern = self.ruleset.properties.by_name[name]
                self.error(
                    "E0213",
                    f"{kind.name} card \"{card.title.value}\" is missing its '{name}' property",
                    card.header_span,
                    f"add a line like: {pattern.example()}",
                )
        return LoweredCard(
            ir,
            self._effect_lines,
            self._rule_lines,
            has_errors=any(d.is_error for d in self.diagnostics[before:]),
        )

    def _card_statement(
        self, kind: Kind, statement: n.Statement, ir: Card, property_spans: dict[str, Span]
    ) -> None:
        if isinstance(statement, n.PhraseLine):
            self._property(kind, statement.phrase, ir, property_spans)
        elif isinstance(statement, n.HeaderBlock):
            self._header_block(kind, statement, ir)
        elif isinstance(statement, n.Option):
            if not kind.options:
                self.error(
                    "E0214",
                    f"{kind.name} cards have no options",
                    statement.span,
                    "elsewhere, offer choices with `choose { option ... }` inside a block",
                )
                return
            ir["options"].append(self._option(statement))
        elif isinstance(statement, n.Rule):
            self._rule_lines += 1
            self._effect_lines += 1
            ir["rules"].append({"text": self._text(statement.text), "at": at(statement.span)})
        elif isinstance(statement, n.Say):
            ir.setdefault("flavour", []).append(
                {"text": self._text(statement.text), "at": at(statement.span)}
            )
        elif isinstance(statement, n.Test):
            ir["tests"].append(self._test(statement))
        else:
            self.error(
                "E0215",
                "effects must be written inside a block, such as an option or a trigger",
                statement.span,
                f"{kind.name} cards take: {self._block_headers(kind)}"
                + (", and options" if kind.options else ""),
            )

    def _property(
        self, kind: Kind, phrase: n.Phrase, ir: Card, property_spans: dict[str, Span]
    ) -> None:
        found, misses = self.ruleset.properties.lookup(phrase)
        if found is None:
            verb, _ = self.ruleset.verbs.lookup(phrase)
            if verb is not None:
                self.error(
                    "E0215",
                    f"'{phrase.words}' is an effect; effects must be inside a block",
                    phrase.span,
                    f"put it inside one of: {self._block_headers(kind)}"
                    + (", or an option" if kind.options else ""),
                )
                return
            allowed = self._property_heads(kind)
            if not misses:
                written = n.atom_source(phrase.atoms[0])
                meant = closest(written, allowed)
                for name in kind.properties:
                    if meant == self._head(name):
                        property_spans.setdefault(name, phrase.span)  # misspelt, not missing
                suggestion = f"did you mean '{meant}'?" if meant else None
                self.error(
                    "E0211",
                    f"'{written}' is not a property of {kind.name} cards",
                    phrase.atoms[0].span,
                    suggestion
                    or f"{kind.name} cards take: {', '.join(allowed) or 'no properties'}",
                )
                return
            best = max(misses, key=lambda m: m.reached)
            # The property was written, only wrongly: do not also call it missing.
            property_spans.setdefault(best.pattern.name, phrase.span)
            self.report_miss(self.ruleset.properties, phrase, misses)
            return
        name = found.pattern.name
        if name not in kind.properties:
            self.error(
                "E0211",
                f"'{found.pattern.head}' is not a property of {kind.name} cards",
                phrase.span,
                f"{kind.name} cards take: {', '.join(self._property_heads(kind)) or 'none'}",
            )
            return
        if name in property_spans:
            first = property_spans[name]
            self.error(
                "E0212",
                f"property '{name}' is given twice",
                phrase.span,
                f"it was first given on line {first.line}",
            )
            return
        property_spans[name] = phrase.span
        ir["property_at"][name] = at(phrase.span)
        for problem in found.problems:
            self.report(problem)
        args = found.args
        ir["properties"][name] = next(iter(args.values())) if len(args) == 1 else (args or True)

    def _head(self, property_name: str) -> str:
        return self.ruleset.properties.by_name[property_name].head

    def _property_heads(self, kind: Kind) -> list[str]:
        return [self._head(p) for p in kind.properties]

    def _block_headers(self, kind: Kind) -> str:
        headers = [self.ruleset.blocks.by_name[b].source for b in kind.blocks]
        return ", ".join(f"`{h} {{ }}`" for h in headers) or "no blocks"

    def _header_block(self, kind: Kind, statement: n.HeaderBlock, ir: Card) -> None:
        if self._stray_else(statement):
            return
        found, misses = self.ruleset.blocks.lookup(statement.header)
        if found is None:
            allowed = [self.ruleset.blocks.by_name[b].source for b in kind.blocks]
            written = statement.header.words
            # A near miss of one of this kind's headers is the likeliest story; then a
            # misspelt keyword (`optoin "A" {`); then whatever pattern got furthest.
            first = statement.header.atoms[0]
            keyword = did_you_mean(n.atom_source(first), sorted(STATEMENT_KEYWORDS))
            suggestion = did_you_mean(written, allowed)
            if suggestion is None and misses and keyword is None:
                self.report_miss(self.ruleset.blocks, statement.header, misses)
                return
            self.error(
                "E0216",
                f"unknown block '{written}'",
                statement.header.span,
                suggestion or keyword or f"{kind.name} cards take: {self._block_headers(kind)}",
            )
            return
        name = found.pattern.name
        if name not in kind.blocks:
            self.error(
                "E0216",
                f"{kind.name} cards have no '{found.pattern.source}' block",
                statement.header.span,
                f"{kind.name} cards take: {self._block_headers(kind)}",
            )
            return
        entry: BlockEntry = {"block": name, "at": at(statement.span)}
        for problem in found.problems:
            self.report(problem)
        if found.args:
            entry["args"] = found.args
        if self.ruleset.block_bodies.get(name) == "modifiers":
            entry["modifiers"] = self._modifiers(statement.block)
        else:
            entry["effects"] = self._effects(statement.block)
        ir["blocks"].append(entry)

    def _stray_else(self, statement: n.HeaderBlock) -> bool:
        """`else` on a line of its own parses as a block header; say what was meant."""
        first = statement.header.atoms[0]
        if not (isinstance(first, n.Word) and first.text == "else"):
            return False
        self.error(
            "E0105",
            "`else` must follow the `}` of an `if` block on the same line",
            first.span,
            "write `} else {` (or `} else if ... {`)",
        )
        return True

    def _title(self, title: n.Text, whose: str) -> None:
        """Titles are what players see and tests name: not empty, not a page long."""
        if not title.value.strip():
            self.error("E0221", f"{whose} title cannot be empty", title.span)
        elif len(title.value) > MAX_TITLE:
            self.error(
                "E0221",
                f"{whose} title is {len(title.value)} characters long; at most {MAX_TITLE} fit",
                title.span,
            )

    def _text(self, text: n.Text) -> str:
        """Narration and rule text, within the length a card can show."""
        if len(text.value) > MAX_TEXT:
            self.report(text_too_long(text))
        return text.value

    def _option(self, option: n.Option) -> Option:
        self._title(option.title, "an option")
        return {
            "title": option.title.value,
            "at": at(option.span),
            "effects": self._effects(option.block),
        }

    # ------------------------------------------------------------ effects

    def _modifiers(self, block: n.Block) -> list[ModifierEntry]:
        lowered: list[ModifierEntry] = []
        examples = self.ruleset.modifiers.patterns
        for statement in block.body:
            if isinstance(statement, n.Rule):
                self._rule_lines += 1
                self._effect_lines += 1
                lowered.append({"rule": self._text(statement.text), "at": at(statement.span)})
                continue
            if not isinstance(statement, n.PhraseLine):
                self.error(
                    "E0217",
                    "this block holds modifiers"
                    + (f" such as `{examples[0].example()}`" if examples else "")
                    + ", not effects",
                    statement.span,
                )
                continue
            self._effect_lines += 1
            found, misses = self.ruleset.modifiers.lookup(statement.phrase)
            if found is None:
                self.report_miss(self.ruleset.modifiers, statement.phrase, misses)
                continue
            for problem in found.problems:
                self.report(problem)
            lowered.append(
                {"modifier": found.pattern.name, "args": found.args, "at": at(statement.span)}
            )
        return lowered

    def block_effects(self, block: n.Block) -> list[Effect]:
        """Lower a block of effects written outside a card (a ruleset's whole-game effects)."""
        self._repeats = 0
        return self._effects(block)

    def _effects(self, block: n.Block) -> list[Effect]:
        lowered: list[Effect] = []
        for statement in block.body:
            effect = self._effect(statement)
            if effect is not None:
                lowered.append(effect)
        return lowered

    def _effect(self, statement: n.Statement) -> Effect | None:
        where = at(statement.span)
        if isinstance(statement, n.Say):
            return {"say": self._text(statement.text), "at": where}
        self._effect_lines += 1
        if isinstance(statement, n.PhraseLine):
            return self._verb(statement.phrase, where)
        if isinstance(statement, n.Rule):
            self._rule_lines += 1
            return {"rule": self._text(statement.text), "at": where}
        if isinstance(statement, n.May):
            if statement.block is not None:
                effects = self._effects(statement.block)
            else:
                assert statement.phrase is not None
                verb = self._verb(statement.phrase, where)
                effects = [verb] if verb is not None else []
            return {"may": {"effects": effects}, "at": where}
        if isinstance(statement, n.Choose):
            return self._choose(statement, where)
        if isinstance(statement, n.If):
            branches: list[Branch] = [
                {
                    "when": self.condition(b.condition),
                    "effects": self._effects(b.block),
                    "at": at(b.span),
                }
                for b in statement.branches
            ]
            otherwise = self._effects(statement.otherwise) if statement.otherwise else None
            return {"if": {"branches": branches, "otherwise": otherwise}, "at": where}
        if isinstance(statement, n.Check):
            return self._check(statement, where)
        if isinstance(statement, n.Roll):
            return self._roll(statement, where)
        if isinstance(statement, n.Repeat):
            times = statement.times.value
            if not 1 <= times <= MAX_REPEAT:
                self.report(
                    out_of_range(times, 1, MAX_REPEAT, "repeat count", statement.times.span)
                )
            if self._repeats >= MAX_REPEAT_NESTING:
                self.error(
                    "E0224",
                    f"a repeat may hold at most {MAX_REPEAT_NESTING - 1} more repeats inside it",
                    statement.span,
                    "multiply the counts into one repeat, or write the steps out",
                )
            self._repeats += 1
            try:
                effects = self._effects(statement.block)
            finally:
                self._repeats -= 1
            return {"repeat": {"times": times, "effects": effects}, "at": where}
        self._effect_lines -= 1
        if isinstance(statement, n.HeaderBlock) and self._stray_else(statement):
            return None
        self.error(
            "E0218",
            f"{_statement_noun(statement)} cannot appear among effects",
            statement.span,
            "blocks, options and tests belong at the top level of a card",
        )
        return None

    def _verb(self, phrase: n.Phrase, where: list[int]) -> Effect | None:
        found, misses = self.ruleset.verbs.lookup(phrase)
        if found is None:
            self.report_miss(self.ruleset.verbs, phrase, misses)
            return None
        for problem in found.problems:
            self.report(problem)
        return {"verb": found.pattern.name, "args": found.args, "at": where}

    def _choose(self, statement: n.Choose, where: list[int]) -> Effect:
        options: list[Option] = []
        for inner in statement.block.body:
            if isinstance(inner, n.Option):
                options.append(self._option(inner))
            else:
                self.error("E0219", "a `choose` block holds only options", inner.span)
        if len(options) < 2:
            self.error("E0219", "a `choose` block needs at least two options", statement.span)
        return {"choose": {"options": options}, "at": where}

    def _too_many_outcomes(self, statement: n.Check | n.Roll) -> list[Outcome]:
        """More outcomes than any card can print: say so, and keep coverage from trying."""
        if len(statement.outcomes) <= MAX_OUTCOMES:
            return []
        self.error(
            "E0223",
            f"this has {len(statement.outcomes)} outcomes; at most {MAX_OUTCOMES} fit on a card",
            statement.keyword_span,
        )
        where = at(statement.keyword_span)
        return [_invalid(where, where)]

    def _check(self, statement: n.Check, where: list[int]) -> Effect:
        found, misses = self.ruleset.checks.lookup(statement.phrase)
        outcomes = self._too_many_outcomes(statement)
        if found is None:
            self.report_miss(self.ruleset.checks, statement.phrase, misses, noun="check")
            return {"check": {"procedure": None, "args": {}, "outcomes": outcomes}, "at": where}
        for problem in found.problems:
            self.report(problem)
        procedure = self.ruleset.procedures[found.pattern.name]
        for outcome in statement.outcomes:
            label = outcome.label
            where_outcome, where_label = at(outcome.span), at(label.span)
            if procedure.counted:
                if isinstance(label, n.Word):
                    self.error(
                        "E0220",
                        f"check {statement.phrase.words} {GIVES[procedure.result]}; "
                        f"'{label.text}' is not a count",
                        label.span,
                        "label outcomes with counts like 0..1, 2 or 3+",
                    )
                    outcomes.append(_invalid(where_outcome, where_label))
                    continue
                low, high = _bounds(label)
                outcomes.append(
                    {
                        "at": where_outcome,
                        "label_at": where_label,
                        "min": low,
                        "max": high,
                        "effects": self._effects(outcome.block),
                    }
                )
            else:
                if not isinstance(label, n.Word) or label.text not in procedure.names:
                    self.error(
                        "E0220",
                        f"check {statement.phrase.words} has outcomes "
                        f"{', '.join(procedure.names)}; not '{n.atom_source(label)}'",
                        label.span,
                        did_you_mean(n.atom_source(label), procedure.names),
                    )
                    outcomes.append(_invalid(where_outcome, where_label))
                    continue
                outcomes.append(
                    {
                        "at": where_outcome,
                        "label_at": where_label,
                        "name": label.text,
                        "effects": self._effects(outcome.block),
                    }
                )
        return {
            "check": {"procedure": found.pattern.name, "args": found.args, "outcomes": outcomes},
            "at": where,
            "keyword_at": at(statement.keyword_span),
        }

    def _roll(self, statement: n.Roll, where: list[int]) -> Effect:
        dice = statement.dice
        if not 1 <= dice.count <= MAX_DICE:
            self.report(out_of_range(dice.count, 1, MAX_DICE, "number of dice", dice.span))
        if not 2 <= dice.sides <= MAX_DIE_SIDES:
            self.report(out_of_range(dice.sides, 2, MAX_DIE_SIDES, "number of sides", dice.span))
        outcomes = self._too_many_outcomes(statement)
        for outcome in statement.outcomes:
            label = outcome.label
            if isinstance(label, n.Word):
                self.error(
                    "E0220",
                    f"a roll's outcomes are faces like 1..2 or 5+, not '{label.text}'",
                    label.span,
                )
                outcomes.append(_invalid(at(outcome.span), at(label.span)))
                continue
            low, high = _bounds(label)
            outcomes.append(
                {
                    "at": at(outcome.span),
                    "label_at": at(label.span),
                    "min": low,
                    "max": high,
                    "effects": self._effects(outcome.block),
                }
            )
        return {
            "roll": {"dice": {"count": dice.count, "sides": dice.sides}, "outcomes": outcomes},
            "at": where,
            "keyword_at": at(statement.keyword_span),
        }

    # ------------------------------------------------------------ conditions

    def condition(self, condition: n.Condition) -> Condition:
        """Lower a condition: `any` of `all` of comparisons, simplified when single."""
        groups: list[Condition] = []
        for group in condition.any_of:
            parts = [self._comparison(c) for c in group]
            groups.append(parts[0] if len(parts) == 1 else {"all": parts})
        return groups[0] if len(groups) == 1 else {"any": groups}

    def _comparison(self, comparison: n.Comparison) -> Condition:
        where = at(comparison.span)
        if comparison.op is None:
            lowered = self._flag(comparison.left, where)
        else:
            assert comparison.right is not None
            left, left_type = self.value(comparison.left)
            right, right_type = self._operand(comparison.right, left_type)
            if left_type and right_type and left_type != right_type:
                self.error(
                    "E0231",
                    f"cannot compare a {left_type} with a {right_type}",
                    comparison.span,
                )
            if left_type == "place" and comparison.op not in ("==", "!="):
                self.error("E0231", "places can only be compared with == or !=", comparison.span)
            lowered = {
                "compare": _COMPARE[comparison.op],
                "left": left,
                "right": right,
                "at": where,
            }
        return {"not": lowered} if comparison.negated else lowered

    def _flag(self, phrase: n.Phrase, where: list[int]) -> Condition:
        found, misses = self.ruleset.conditions.lookup(phrase)
        if found is not None:
            return {"flag": found.pattern.name, "args": found.args, "at": where}
        value, _ = self.ruleset.values.lookup(phrase)
        if value is not None:
            self.error(
                "E0230",
                f"'{phrase.words}' is a value, not a condition; compare it with something",
                phrase.span,
                f"for example: {phrase.words} >= 1",
            )
        else:
            self.report_miss(self.ruleset.conditions, phrase, misses)
        return {"flag": None, "args": {}, "at": where}

    def value(self, phrase: n.Phrase) -> tuple[Operand, str | None]:
        """Lower a value phrase (`health`, `items carried`); return it with its type."""
        found, misses = self.ruleset.values.lookup(phrase)
        if found is None:
            if not misses:
                written = n.atom_source(phrase.atoms[0])
                self.error(
                    "E0232",
                    f"'{written}' is not a stat or a value this ruleset knows",
                    phrase.atoms[0].span,
                    did_you_mean(
                        written,
                        [*self.ruleset.stat_names, *self.ruleset.values.head_words],
                    ),
                )
            else:
                best = max(misses, key=lambda m: m.reached)
                problem = best.problem
                if best.pattern.first_word is None and best.reached < 1:
                    written = n.atom_source(phrase.atoms[0])
                    problem = Problem(
                        f"'{written}' is not a stat or a value this ruleset knows",
                        phrase.atoms[0].span,
                        did_you_mean(
                            written,
                            [*self.ruleset.stat_names, *self.ruleset.values.head_words],
                        ),
                        code="E0232",
                    )
                self.report(problem)
            return {"value": None, "args": {}}, None
        for problem in found.problems:
            self.report(problem)
        name = found.pattern.name
        return {"value": name, "args": found.args}, self.ruleset.value_types.get(name)

    def _operand(self, phrase: n.Phrase, expected: str | None) -> tuple[Operand, str | None]:
        atoms = phrase.atoms
        if len(atoms) == 1 and isinstance(atoms[0], n.Integer | n.Signed):
            return {"const": atoms[0].value}, "number"  # `== -1`: a bonus, a change
        if expected == "place" and len(atoms) == 1 and isinstance(atoms[0], n.Word):
            word = atoms[0].text
            if word in self.ruleset.places:
                return {"place": word}, "place"
            found, _ = self.ruleset.values.lookup(phrase)
            if found is None:
                self.error(
                    "E0201",
                    f"'{word}' is not a place this ruleset knows",
                    atoms[0].span,
                    did_you_mean_or_list(word, self.ruleset.places, "place"),
                )
                return {"place": None}, "place"
        return self.value(phrase)

    # ------------------------------------------------------------ tests

    def _test(self, test: n.Test) -> Test:
        steps: list[Step] = []
        for step in test.steps:
            where = at(step.span)
            if isinstance(step, n.Given):
                for setting in step.settings:
                    lowered = self._setting(setting)
                    if lowered is not None:
                        steps.append(lowered)
            elif isinstance(step, n.Answer):
                answer = step.answer
                if isinstance(answer, n.Word) and answer.text not in ("yes", "no"):
                    self.error(
                        "E0240",
                        f"a test answers with an option title in quotes, or yes or no; "
                        f"not '{answer.text}'",
                        answer.span,
                        did_you_mean(answer.text, ["yes", "no"]),
                    )
                    continue
                chosen: Answer = (
                    {"option": answer.value}
                    if isinstance(answer, n.Text)
                    else {"answer": "yes" if answer.text == "yes" else "no"}
                )
                # a step that names an option or a card is at that name: a wrong one is pointed
                # at, not the word before it
                steps.append({"choose": chosen, "at": at(answer.span)})
            elif isinstance(step, n.Use):
                steps.append(_use(step.action, step.card.value, at(step.card.span)))
            elif isinstance(step, n.NextTurn):
                steps.append({"next_turn": True, "at": where})
            elif isinstance(step, n.ForceDice):
                faces: list[int] = []
                for face in step.faces:
                    if not 1 <= face.value <= MAX_DIE_SIDES:
                        self.report(
                            out_of_range(face.value, 1, MAX_DIE_SIDES, "die face", face.span)
                        )
                    faces.append(min(face.value, MAX_DIE_SIDES))
                steps.append({"dice": faces, "at": where})
            else:
                steps.append({"expect": self.condition(step.condition), "at": where})
        return {"name": test.name.value, "at": at(test.span), "steps": steps}

    def _settable_example(self) -> str:
        settable = [self.ruleset.values.by_name[v] for v in sorted(self.ruleset.settable_values)]
        return f"{settable[0].example()} 1" if settable else "<value> 1"

    def _setting(self, phrase: n.Phrase) -> Step | None:
        if len(phrase.atoms) < 2:
            self.error(
                "E0241",
                f"`given` sets a value, like `{self._settable_example()}`; "
                f"'{phrase.words}' has no value",
                phrase.span,
            )
            return None
        target = n.Phrase(phrase.atoms[:-1], phrase.atoms[0].span.to(phrase.atoms[-2].span))
        value, value_type = self.value(target)
        name = value.get("value")
        if name is None:
            return None
        if name not in self.ruleset.settable_values:
            self.error("E0241", f"a test cannot set '{target.words}'", target.span)
            return None
        last = phrase.atoms[-1]
        where = at(phrase.span)
        if value_type == "place":
            if not isinstance(last, n.Word) or last.text not in self.ruleset.places:
                self.error(
                    "E0201",
                    f"'{n.atom_source(last)}' is not a place this ruleset knows",
                    last.span,
                    did_you_mean_or_list(n.atom_source(last), self.ruleset.places, "place"),
                )
                return None
            return {"set": {"target": value, "to": last.text}, "at": where}
        stats = [s for s in value["args"].values() if s in self.ruleset.stat_names]
        bounds = self.ruleset.stat_range(stats[0]) if stats else None
        if isinstance(last, n.Signed) and last.value < 0 and bounds is not None:
            last = n.Integer(last.value, last.span)  # a stat's range says whether it can be
        if not isinstance(last, n.Integer):
            self.error("E0241", _not_a_setting(target.words, last, bounds), last.span)
            return None
        if bounds is not None and not bounds[0] <= last.value <= bounds[1]:
            self.report(out_of_range(last.value, *bounds, stats[0], last.span))
        return {"set": {"target": value, "to": last.value}, "at": where}


def _not_a_setting(target: str, last: n.Atom, bounds: tuple[int, int] | None) -> str:
    """What a `given` line's value should have been, said against what was written: `-3` and
    `+3` are numbers, only not ones a test sets this value to."""
    written = n.atom_source(last)
    if isinstance(last, n.Signed) and last.value > 0:
        return (
            f"`given` sets {target} to a value, it does not add to it: "
            f"write {last.value}, not {written}"
        )
    takes = f"a number from {bounds[0]} to {bounds[1]}" if bounds else "a number of 0 or more"
    if isinstance(last, n.Signed):
        takes += ", written without a sign"
    return f"`given {target}` takes {takes}; found {written!r}"


def _bounds(label: n.Integer | n.Range | n.OpenRange) -> tuple[int, int | None]:
    """An outcome label's `min` and `max` (None: open, as in `5+`)."""
    if isinstance(label, n.Integer):
        return label.value, label.value
    if isinstance(label, n.Range):
        return label.low, label.high
    return label.low, None


def _invalid(where: list[int], label_at: list[int]) -> Outcome:
    """An outcome whose label was wrong: reported already, and kept out of coverage."""
    return {"at": where, "label_at": label_at, "invalid": True, "effects": []}


def _use(action: Literal["use", "carry", "play"], title: str, where: list[int]) -> Step:
    """A test's `use`, `carry` or `play` step."""
    if action == "use":
        return {"use": title, "at": where}
    if action == "carry":
        return {"carry": title, "at": where}
    return {"play": title, "at": where}


def _statement_noun(statement: n.Statement) -> str:
    names = {
        n.Option: "an option",
        n.Test: "a test",
        n.HeaderBlock: "a block",
    }
    return names.get(type(statement), "this")


def lower_file(
    ruleset: Ruleset, file: n.File, display_path: str
) -> tuple[list[LoweredCard[Card]], list[Diagnostic]]:
    """Lower every card of a parsed file."""
    lowerer = Lowerer(ruleset, display_path)
    cards = [c for c in (lowerer.lower_card(card) for card in file.cards) if c is not None]
    return cards, lowerer.diagnostics
