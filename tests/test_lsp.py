"""`pillbox lsp`: each feature driven over stdio by a small JSON-RPC client, as an editor would."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from compiler.check import check_paths
from tests.conftest import ROOT

PACK_YAML = "pack: desk\ntitle: Desk\nversion: 0.1.0\nruleset: coma-ward\n"
ITEM = """item "Iron Pole" {
    type clothing
    use { gain health 1 }
    test "using it raises health" {
        given health 4
        use "Iron Pole"
        expect health == 5
    }
}
"""
HALLUCINATION = """hallucination "The Bell" {
    situation "It rings."
    option "Answer it" { gain health 1 }
    option "Let it ring" { lose health 1 }
}
"""
WAIT = 30.0


class Client:
    """A language client over a server's pipes: Content-Length framed JSON-RPC."""

    def __init__(self, into: IO[bytes], out: IO[bytes]) -> None:
        self.into, self.out = into, out
        self.next_id = 0
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notes: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.out
        while True:
            length = 0
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line:
                return
            self.inbox.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        """Write one framed message to the server."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.into.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.into.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification (no answer comes)."""
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and wait for its result; what comes before it is kept in notes."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.inbox.get(timeout=WAIT)
            if message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message
                return message["result"]
            self.notes.append(message)

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        """The next diagnostics the server publishes for a document (kept ones first)."""
        while True:
            message = self.notes.pop(0) if self.notes else self.inbox.get(timeout=WAIT)
            if (
                message.get("method") == "textDocument/publishDiagnostics"
                and message["params"]["uri"] == uri
            ):
                found: list[dict[str, Any]] = message["params"]["diagnostics"]
                return found

    def open(self, path: Path, text: str | None = None) -> str:
        """Open a document in the server, as saved unless a text is given; its URI."""
        uri = path.as_uri()
        document = {"uri": uri, "languageId": "card", "version": 1}
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {**document, "text": path.read_text() if text is None else text}},
        )
        return uri


def a_pack(folder: Path) -> Path:
    """The two-card pack the tests edit, written in a folder."""
    (folder / "pack.yaml").write_text(PACK_YAML)
    (folder / "cards").mkdir()
    (folder / "cards" / "item.card").write_text(ITEM)
    (folder / "cards" / "hallucination.card").write_text(HALLUCINATION)
    return folder


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    # each test's own pack, so its documents' URIs are its own on the shared server
    return a_pack(tmp_path)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    # starting a server costs one to two seconds of imports: the module shares one, run in a
    # pack's folder as an editor starts it, and each test opens files of its own pack
    yield from serving(a_pack(tmp_path_factory.mktemp("desk")))


@pytest.fixture
def client(server: Client) -> Client:
    # what a test before this one left unread is about its own documents, never this test's
    server.notes.clear()
    return server


def serving(pack: Path) -> Iterator[Client]:
    """A server started in a pack's folder and initialized, shut down when resumed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "compiler", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=pack,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's code, not an install's
    )
    talk = Client(process.stdin, process.stdout)  # type: ignore[arg-type]
    talk.request("initialize", {"processId": None, "rootUri": pack.as_uri(), "capabilities": {}})
    talk.notify("initialized", {})
    yield talk
    try:
        talk.request("shutdown", {})
        talk.notify("exit", {})
        process.wait(timeout=WAIT)
    finally:
        process.kill()
        process.wait()


def serving_here(pack: Path) -> Iterator[Client]:
    """A server on a thread of this process, over pipes, initialized in a pack; shut down when
    resumed. For the modules that check what the features answer: `serving` starts the
    command, as an editor does, and pays a second or two of imports for it."""
    from compiler.lsp.server import make_server

    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    with (
        open(to_server, "rb") as server_in,
        open(from_server, "wb") as server_out,
        open(to_client, "rb") as client_in,
        open(from_client, "wb") as client_out,
    ):
        thread = threading.Thread(
            target=make_server().start_io, args=(server_in, server_out), daemon=True
        )
        thread.start()
        talk = Client(client_out, client_in)
        init = {"processId": None, "rootUri": pack.as_uri(), "capabilities": {}}
        talk.request("initialize", init)
        talk.notify("initialized", {})
        yield talk
        try:
            talk.request("shutdown", {})
            talk.notify("exit", {})
        finally:
            client_out.close()  # the end of the server's input: it stops, if it has not
            thread.join(timeout=WAIT)


def test_a_typed_mistake_is_reported_with_checks_code_and_span(pack: Path, client: Client) -> None:
    path = pack / "cards" / "item.card"
    uri = client.open(path)
    assert client.diagnostics(uri) == []
    typed = ITEM.replace("gain health 1", "gain helth 1")
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": typed}]},
    )
    (found,) = client.diagnostics(uri)
    assert found["code"] == "E0201" and found["source"] == "pillbox" and found["severity"] == 1
    # `helth` is on line 3 from column 16, 1-based and end exclusive: 0-based, 2:15 to 2:20
    assert found["range"] == {
        "start": {"line": 2, "character": 15},
        "end": {"line": 2, "character": 20},
    }
    path.write_text(typed)  # saved, `check` says the same
    (checked,) = check_paths([path], use_cache=False).diagnostics
    assert (checked.code, checked.span[1:]) == ("E0201", (3, 16, 3, 21))


def test_the_packs_other_files_are_the_context(pack: Path, client: Client) -> None:
    # another file of the pack, as saved, holds the item too: a pack pass finds the title twice
    (pack / "cards" / "hallucination.card").write_text(ITEM)
    edited = pack / "cards" / "item.card"
    (found,) = client.diagnostics(uri := client.open(edited))
    (checked,) = check_paths([edited], use_cache=False).diagnostics
    assert found["code"] == checked.code == "E0310"
    assert "hallucination.card:1:1" in found["message"]
    renamed = ITEM.replace("Iron Pole", "Copper Pole")
    change = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": renamed}]}
    client.notify("textDocument/didChange", change)
    assert client.diagnostics(uri) == []


def test_formatting_lays_the_document_out_as_fmt_does(pack: Path, client: Client) -> None:
    messy = ITEM.replace("    type clothing", "type   clothing")
    uri = client.open(pack / "cards" / "item.card", messy)
    document = {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}
    (edit,) = client.request("textDocument/formatting", document)
    assert edit["newText"] == ITEM and edit["range"]["start"] == {"line": 0, "character": 0}
    broken = client.open(pack / "cards" / "hallucination.card", "room {")
    assert not client.request(
        "textDocument/formatting", {**document, "textDocument": {"uri": broken}}
    )


def test_symbols_are_the_cards_with_their_options_and_tests(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "hallucination.card")
    (card,) = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert (card["name"], card["detail"]) == ("The Bell", "hallucination")
    assert [c["name"] for c in card["children"]] == ["Answer it", "Let it ring"]
    assert card["selectionRange"]["start"] == {"line": 0, "character": 14}
    item = client.open(pack / "cards" / "item.card")
    (card,) = client.request("textDocument/documentSymbol", {"textDocument": {"uri": item}})
    assert [(c["name"], c["detail"]) for c in card["children"]] == [
        ("using it raises health", "test")
    ]


def _complete(client: Client, uri: str, line: int, character: int) -> dict[str, dict[str, Any]]:
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    return {item["label"]: item for item in client.request("textDocument/completion", position)}


def test_completion_offers_the_words_that_may_stand_there(pack: Path, client: Client) -> None:
    text = ITEM.replace("    type clothing\n", "    type clothing\n    \n") + "ro"
    uri = client.open(pack / "cards" / "item.card", text)
    kinds = _complete(client, uri, 11, 2)  # a top-level line: card kinds
    assert {"item", "room", "hallucination"} <= kinds.keys() and "gain" not in kinds
    inside = _complete(client, uri, 2, 4)  # a card's line: its kind's properties and blocks
    assert {"type", "charges", "while carried", "use", "test"} <= inside.keys()
    assert inside["charges"]["detail"] == "charges {charges}" and "option" not in inside
    assert "number" not in inside  # a room's property, not an item's
    effect = _complete(client, uri, 3, 10)  # in `use { ... }`: verbs and control forms
    assert {"gain", "lose", "draw", "if", "check"} <= effect.keys() and "type" not in effect
    steps = _complete(client, uri, 6, 8)  # a test's step
    assert {"given", "use", "expect"} <= steps.keys() and "gain" not in steps
    after = _complete(client, uri, 1, 9)  # after `type `: no first word, the item types
    assert "type" not in after and {"clothing", "weapon"} <= after.keys()


def test_completion_offers_the_packs_titles_in_a_use(pack: Path, client: Client) -> None:
    text = ITEM.replace('use "Iron Pole"', 'use "Ir')
    uri = client.open(pack / "cards" / "item.card", text)
    titles = _complete(client, uri, 5, 15)
    assert titles.keys() == {"Iron Pole", "The Bell"}
    assert titles["Iron Pole"]["textEdit"]["range"]["start"] == {"line": 5, "character": 13}


def _hover(client: Client, uri: str, line: int, character: int) -> str | None:
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    found = client.request("textDocument/hover", position)
    return None if found is None else str(found["contents"]["value"])


def test_hover_tells_what_a_word_means(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "item.card")
    client.diagnostics(uri)
    assert "`charges {charges}`" not in (_hover(client, uri, 1, 6) or "")
    assert "`type {item_type}`" in (_hover(client, uri, 1, 6) or "")  # on `type`
    gain = _hover(client, uri, 2, 12) or ""  # on `gain`
    assert gain.startswith("verb `gain {stat") and ": raise a stat" in gain
    assert "stat **health**, from 0 to 5" in (_hover(client, uri, 2, 18) or "")
    assert "card kind **item**" in (_hover(client, uri, 0, 1) or "")
    assert _hover(client, uri, 0, 8) is None  # in the title: no word of the ruleset


def test_hover_on_a_diagnostic_explains_its_code(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "item.card", ITEM.replace("gain health 1", "gain helth 1"))
    (found,) = client.diagnostics(uri)
    shown = _hover(client, uri, 2, 17) or ""
    assert shown.startswith(f"**E0201**: {found['message'].splitlines()[0]}")
    assert "Fires when a phrase starts like a known pattern" in shown  # docs/diagnostics.md


def test_a_file_in_no_pack_gets_nothing_and_breaks_nothing(tmp_path: Path, client: Client) -> None:
    loose = tmp_path.parent / f"{tmp_path.name}-loose.card"
    uri = client.open(loose, "room {")
    assert client.diagnostics(uri) == []
    assert _complete(client, uri, 0, 2) == {}
    assert _hover(client, uri, 0, 1) is None


def test_completion_offers_the_cards_options_in_a_tests_choose(pack: Path, client: Client) -> None:
    text = HALLUCINATION[:-2] + '    test "t" {\n        choose "Le\n    }\n}\n' + ITEM
    uri = client.open(pack / "cards" / "hallucination.card", text)
    options = _complete(client, uri, 5, 18)
    assert options.keys() == {"Answer it", "Let it ring"}  # the card's, not the next card's
    assert options["Let it ring"]["textEdit"]["range"]["start"] == {"line": 5, "character": 16}
    assert "option" in _complete(client, uri, 1, 4)  # a hallucination has options


def test_an_unsaved_document_is_no_file_of_the_pack_it_was_opened_in(client: Client) -> None:
    # the server runs in the pack's folder; `untitled:` is no path in it
    uri = "untitled:Untitled-1"
    document = {"uri": uri, "languageId": "card", "version": 1, "text": "room {"}
    client.notify("textDocument/didOpen", {"textDocument": document})
    assert client.diagnostics(uri) == []
    assert _complete(client, uri, 0, 2) == {}


def test_definition_of_a_title_in_a_test_is_its_card(pack: Path, client: Client) -> None:
    (pack / "cards" / "hallucination.card").write_text(
        HALLUCINATION[:-2] + '    test "t" {\n        use "Iron Pole"\n    }\n}\n'
    )
    uri = client.open(pack / "cards" / "hallucination.card")
    position = {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 15}}
    (found,) = client.request("textDocument/definition", position)
    assert found["uri"] == (pack / "cards" / "item.card").resolve().as_uri()
    assert found["range"]["start"] == {"line": 0, "character": 0}
    assert found["range"]["end"] == {"line": 8, "character": 1}
    position["position"] = {"line": 5, "character": 6}  # on `use`, before the title
    assert client.request("textDocument/definition", position) == []


def test_a_did_you_mean_is_a_quick_fix(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "item.card", ITEM.replace("gain health 1", "gain helth 1"))
    (found,) = client.diagnostics(uri)
    asked = {"textDocument": {"uri": uri}, "range": found["range"], "context": {"diagnostics": []}}
    (fix,) = client.request("textDocument/codeAction", asked)
    assert fix["kind"] == "quickfix" and fix["title"] == "Change 'helth' to 'health'"
    assert fix["edit"]["changes"][uri] == [{"range": found["range"], "newText": "health"}]
    elsewhere = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
    assert client.request("textDocument/codeAction", {**asked, "range": elsewhere}) == []
