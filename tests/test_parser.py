"""The grammar and the AST: spans, recovery after errors, limits."""

from __future__ import annotations

from dsl import nodes as n
from dsl.parser import MAX_NESTING, parse, split_cards


def test_spans_point_at_the_exact_words() -> None:
    text = 'item "Knife" {\n    type weapon\n    use { gain terror 1 }\n}\n'
    parsed, problems = parse(text, "k.card")
    assert problems == []
    card = parsed.cards[0]
    assert (card.kind.span.line, card.kind.span.column) == (1, 1)
    assert (card.title.span.column, card.title.span.end_column) == (6, 13)
    assert card.span.end_line == 4
    header = card.block.body[1]
    assert isinstance(header, n.HeaderBlock)
    verb = header.block.body[0]
    assert isinstance(verb, n.PhraseLine)
    terror = verb.phrase.atoms[1]
    assert isinstance(terror, n.Word) and terror.text == "terror"
    assert (terror.span.line, terror.span.column, terror.span.end_column) == (3, 16, 22)


def test_atoms_are_typed() -> None:
    text = 'x "t" { a 3 +1 -2 0..1 4+ 2d6 d8 "s\\"q" }'
    parsed, problems = parse(text)
    assert problems == []
    line = parsed.cards[0].block.body[0]
    assert isinstance(line, n.PhraseLine)
    kinds = [type(a) for a in line.phrase.atoms]
    assert kinds == [
        n.Word,
        n.Integer,
        n.Signed,
        n.Signed,
        n.Range,
        n.OpenRange,
        n.Dice,
        n.Dice,
        n.Text,
    ]
    assert line.phrase.atoms[-1] == n.Text('s"q', line.phrase.atoms[-1].span)


def test_every_broken_card_gets_one_error_and_good_cards_survive() -> None:
    text = (
        'a "One" {\n  option "x" { end turn }\n}\n'
        'a "Two" {\n  option { }\n}\n'
        'a "Three" {\n  say "fine"\n}\n'
        'a "Four" {\n  if { }\n}\n'
    )
    parsed, problems = parse(text, "f.card")
    assert [c.title.value for c in parsed.cards] == ["One", "Three"]
    assert [p.span.line for p in problems] == [5, 11]


def test_missing_brace_does_not_swallow_the_next_card() -> None:
    text = 'a "Open" {\n  option "x" {\n    end turn\n\nb "Next" {\n  say "ok"\n}\n'
    parsed, problems = parse(text, "f.card")
    assert [c.title.value for c in parsed.cards] == ["Next"]
    assert len(problems) == 1 and "not closed" in problems[0].message
    # Both the card and its option are open: the option is the one to close first.
    assert (problems[0].span.line, problems[0].span.column) == (2, 3)
    assert problems[0].help.endswith("and one at the end of the card")


def test_nesting_past_the_limit_is_one_error_not_a_recursion_error() -> None:
    depth = 5000
    text = 'a "Deep" {\n  use {\n' + "may { " * depth + "end turn" + " }" * depth + "\n  }\n}\n"
    parsed, problems = parse(text, "d.card")
    assert len(problems) == 1
    assert "nest" in problems[0].message and str(MAX_NESTING) in problems[0].message
    assert problems[0].span.line == 3
    assert tree_depth(parsed.cards[0].block) <= MAX_NESTING + 1


def tree_depth(block: n.Block) -> int:
    """How deep blocks nest under this one, counting it."""
    deepest, stack = 0, [(block, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        for statement in current.body:
            inner = [getattr(statement, "block", None), getattr(statement, "otherwise", None)]
            inner += [b.block for b in getattr(statement, "branches", ())]
            inner += [o.block for o in getattr(statement, "outcomes", ())]
            stack.extend((b, depth + 1) for b in inner if isinstance(b, n.Block))
    return deepest


def test_nesting_error_points_at_the_first_brace_past_the_limit() -> None:
    inner = MAX_NESTING - 1  # the card's block and `use` make 65 levels
    text = 'item "Deep" {\n  type medicine\n  use {\n' + "may { " * inner + "end turn"
    text += " }" * inner + "\n  }\n}\n"
    _, problems = parse(text, "d.card")
    assert len(problems) == 1
    assert (problems[0].span.line, problems[0].span.column) == (4, 6 * (inner - 1) + 5)


def test_nesting_at_the_limit_is_fine() -> None:
    inner = MAX_NESTING - 2  # the card's own block and `use` count too
    text = 'a "Deep" {\n  use {\n' + "may { " * inner + "end turn" + " }" * inner + "\n  }\n}\n"
    _, problems = parse(text, "d.card")
    assert problems == []


def test_comments_blank_lines_semicolons_and_crlf() -> None:
    text = '# c\r\n\r\na "X" { # c\r\n  say "a"; say "b" # c\r\n\r\n  # only a comment\r\n}\r\n'
    parsed, problems = parse(text, "c.card")
    assert problems == []
    assert len(parsed.cards[0].block.body) == 2


def test_huge_numbers_stay_huge() -> None:
    parsed, problems = parse('a "X" { gain terror ' + "9" * 5000 + " }")
    assert problems == []
    line = parsed.cards[0].block.body[0]
    assert isinstance(line, n.PhraseLine)
    number = line.phrase.atoms[-1]
    assert isinstance(number, n.Integer) and number.value > 10**50


def test_split_cards_honours_strings_and_comments() -> None:
    text = 'a "x}" { say "{" } # }\nb "y" { }\n'
    pieces = [text[p.start : p.end] for p in split_cards(text)]
    assert len(pieces) == 2
    assert pieces[0] == 'a "x}" { say "{" }'
    assert pieces[1].strip().endswith('b "y" { }')


def test_shipped_parser_matches_the_grammar() -> None:
    import hashlib
    from pathlib import Path

    dsl_dir = Path(__file__).parent.parent / "dsl"
    digest = hashlib.sha256((dsl_dir / "grammar.lark").read_bytes()).hexdigest()
    first = (dsl_dir / "_lark_parser.py").read_text(encoding="utf-8").split("\n", 1)[0]
    assert digest in first, "dsl/grammar.lark changed: run `make grammar`"


def test_recovery_with_unindented_bodies() -> None:
    text = (
        'a "One" {\nsituation "s"\noption "x" { gian }\n}\n'
        'b "Two" {\nsay "ok"\n}\nc "Three" {\nsay {\n}\n'
    )
    parsed, problems = parse(text, "f.card")
    assert [c.title.value for c in parsed.cards] == ["One", "Two"]
    assert [p.span.line for p in problems] == [9]


def test_a_flood_of_broken_cards_stops_after_fifty_errors() -> None:
    text = "".join(f'a "Card {i}" {{\n  say {{\n}}\n' for i in range(200))
    _, problems = parse(text, "f.card")
    assert len(problems) == 51 and problems[-1].code == "E0106"


def test_stray_closing_braces_are_one_error() -> None:
    _, problems = parse("}\n" * 5000, "f.card")
    assert len(problems) == 1


def test_a_single_equals_sign_suggests_the_comparison() -> None:
    text = 'item "Cup" {\n    test "t" {\n        expect terror = 3\n    }\n}\n'
    _, problems = parse(text, "f.card")
    assert [(p.span.line, p.span.column) for p in problems] == [(3, 23)]
    assert problems[0].help is not None and "did you mean `==`" in problems[0].help


def test_an_inner_block_left_open_is_pointed_at_not_the_card() -> None:
    # The card's own `}` closes the `when used` block: the `{` that lost its `}` is the
    # block whose closing brace sits at another indentation.
    text = (
        'item "Cup" {\n    when used {\n        gain terror 1\n\n'
        '    test "t" {\n        expect terror == 2\n    }\n}\n'
    )
    _, problems = parse(text, "f.card")
    assert len(problems) == 1 and problems[0].code == "E0103"
    assert (problems[0].span.line, problems[0].span.column) == (2, 5)
    assert problems[0].help is not None and "indented 4 spaces" in problems[0].help
