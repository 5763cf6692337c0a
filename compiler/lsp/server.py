"""The language server: which LSP request each feature module answers."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from compiler import __version__
from compiler.kept import keep_in_this_process
from compiler.lsp.actions import quick_fixes
from compiler.lsp.completion import completions
from compiler.lsp.definition import definitions
from compiler.lsp.diagnostics import lsp_diagnostics, setup_diagnostics
from compiler.lsp.formatting import format_edits
from compiler.lsp.hover import hover
from compiler.lsp.packs import PackChecker
from compiler.lsp.symbols import document_symbols
from dsl.spans import Diagnostic


class CardServer(LanguageServer):
    """pygls's server, with the pack checker and each open document's last diagnostics."""

    def __init__(self) -> None:
        super().__init__("pillbox", __version__)
        self.checker = PackChecker()
        self.found: dict[str, list[Diagnostic]] = {}
        self.setup_shown: dict[Path, set[str]] = {}  # each pack's files shown with problems


def make_server() -> CardServer:
    """A server with every feature registered."""
    server = CardServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CardServer, params: types.DidOpenTextDocumentParams) -> None:
        _publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CardServer, params: types.DidChangeTextDocumentParams) -> None:
        _publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CardServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.found.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: CardServer, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
        return format_edits(ls.workspace.get_text_document(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: CardServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        return document_symbols(ls.workspace.get_text_document(params.text_document.uri))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"'])
    )
    def complete(ls: CardServer, params: types.CompletionParams) -> list[types.CompletionItem]:
        document = ls.workspace.get_text_document(params.text_document.uri)
        return completions(ls.checker, document, params.position)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: CardServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        document = ls.workspace.get_text_document(uri)
        return hover(ls.checker, document, params.position, ls.found.get(uri, []))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: CardServer, params: types.DefinitionParams) -> list[types.Location]:
        document = ls.workspace.get_text_document(params.text_document.uri)
        return definitions(ls.checker, document, params.position, ls.workspace.get_text_document)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_actions(ls: CardServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        document = ls.workspace.get_text_document(uri)
        return quick_fixes(document, ls.found.get(uri, []), params.range)

    return server


def _publish(ls: CardServer, uri: str) -> None:
    document = ls.workspace.get_text_document(uri)
    found, shown = lsp_diagnostics(ls.checker, document)
    ls.found[uri] = found
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=shown, version=document.version)
    )
    manifest, setup = setup_diagnostics(ls.checker, document, ls.workspace.get_text_document)
    # a file fixed since is cleared; the problems are sent each time, whatever changed on disk
    for cleared in ls.setup_shown.get(manifest, set()) - setup.keys():
        setup[cleared] = ([], [])
    for file_uri, (ours, problems) in setup.items():
        ls.found[file_uri] = ours  # their quick fixes and explanations, as a card file's
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=file_uri, diagnostics=problems)
        )
    ls.setup_shown[manifest] = {file_uri for file_uri, (ours, _) in setup.items() if ours}


def serve() -> int:
    """Answer an editor on stdin and stdout until it shuts the server down."""
    keep_in_this_process()  # hover compiles the pack at each request
    make_server().start_io()
    return 0
