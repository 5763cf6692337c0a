"""The language server: which LSP request each feature module answers."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from compiler import __version__
from compiler.lsp.diagnostics import lsp_diagnostics
from compiler.lsp.packs import PackChecker
from dsl.spans import Diagnostic


class CardServer(LanguageServer):
    """pygls's server, with the pack checker and each open document's last diagnostics."""

    def __init__(self) -> None:
        super().__init__("pillbox", __version__)
        self.checker = PackChecker()
        self.found: dict[str, list[Diagnostic]] = {}


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

    return server


def _publish(ls: CardServer, uri: str) -> None:
    document = ls.workspace.get_text_document(uri)
    found, shown = lsp_diagnostics(ls.checker, document)
    ls.found[uri] = found
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=shown, version=document.version)
    )


def serve() -> int:
    """Answer an editor on stdin and stdout until it shuts the server down."""
    make_server().start_io()
    return 0
