"""Document symbols: each card, with its options and tests inside it."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.positions import lsp_range
from dsl import nodes as n
from dsl.parser import parse


def document_symbols(document: TextDocument) -> list[types.DocumentSymbol]:
    """The cards that parse in a document (a broken card is left out until it parses)."""
    parsed, _ = parse(document.source, document.path)
    return [
        types.DocumentSymbol(
            name=card.title.value,
            detail=card.kind.text
            if card.variant is None
            else f"{card.kind.text} variant {card.variant.value}",
            kind=types.SymbolKind.Class,
            range=lsp_range(document, card.span),
            selection_range=lsp_range(document, card.title.span),
            children=_inner(document, card.block),
        )
        for card in parsed.cards
    ]


def _inner(document: TextDocument, block: n.Block) -> list[types.DocumentSymbol]:
    found: list[types.DocumentSymbol] = []
    for statement in block.body:
        if isinstance(statement, n.Option | n.Test):
            title = statement.title if isinstance(statement, n.Option) else statement.name
            found.append(
                types.DocumentSymbol(
                    name=title.value,
                    detail="option" if isinstance(statement, n.Option) else "test",
                    kind=types.SymbolKind.EnumMember
                    if isinstance(statement, n.Option)
                    else types.SymbolKind.Method,
                    range=lsp_range(document, statement.span),
                    selection_range=lsp_range(document, title.span),
                    children=_inner(document, statement.block)
                    if isinstance(statement, n.Option)
                    else None,
                )
            )
        else:
            for child in _blocks(statement):
                found.extend(_inner(document, child))
    return found


def _blocks(statement: n.Statement) -> list[n.Block]:
    """The blocks directly inside a statement, where options of a `choose` may stand."""
    if isinstance(statement, n.HeaderBlock | n.Choose | n.Repeat):
        return [statement.block]
    if isinstance(statement, n.May):
        return [] if statement.block is None else [statement.block]
    if isinstance(statement, n.If):
        arms = [branch.block for branch in statement.branches]
        return arms + ([] if statement.otherwise is None else [statement.otherwise])
    if isinstance(statement, n.Check | n.Roll):
        return [outcome.block for outcome in statement.outcomes]
    return []
