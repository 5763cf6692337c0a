"""`pillbox serve` without a browser: the pages of a snapshot, only changed faces laid out
again, the errors of a pack that stops checking, and what the server answers (and refuses)."""

from __future__ import annotations

import http.client
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.build import load_checked
from compiler.printing.layout import Face
from compiler.render import plain
from compiler.serve import server as local_server
from compiler.serve.app import PreviewServer, Published
from compiler.serve.pages import LIVE_POLICY, SCRIPT, Snapshot, build_snapshot
from compiler.serve.pictures import Pictures
from compiler.serve.watch import _rebuild
from tests.helpers import make_pack, run

HALLUCINATION = """\
hallucination "The Figure <b>at</b> the Hall" {
    situation "A figure waits & watches."

    option "Back away" {
        check dexterity {
            0..1 {
                gain terror 1
                move to hallway
            }
            2+ {
                say "You throw yourself aside."
            }
        }
    }

    test "a clumsy retreat ends in the hallway" {
        given dexterity 3
        choose "Back away"
        dice 1 2 3
        expect terror == 2
        expect location == hallway
    }
}
"""

ROOM = """\
room "Chapel" {
    number 2
    when you end your move here {
        if terror >= 3 {
            lose terror 1
        }
    }
}
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Pictures, Snapshot]]:
    """A small pack, its first snapshot and the one with every picture (laid out once)."""
    folder = make_pack(
        tmp_path_factory.mktemp("pack") / "pack", hallucinations=HALLUCINATION, rooms=ROOM
    )
    pictures = Pictures(tmp_path_factory.mktemp("pictures"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        first = build_snapshot(folder, None, pictures, 1)
        assert first.pending is not None
        yield folder, pictures, first


def test_the_first_snapshot_shows_the_pack_at_once_and_its_faces_in_frames(
    served: tuple[Path, Pictures, Snapshot],
) -> None:
    _, _, first = served
    page = first.pages["/"]
    assert not first.broken
    assert f'content="{LIVE_POLICY}"' in page and f'<script src="{SCRIPT}" defer>' in page
    assert '<meta name="pillbox-generation" content="1">' in page
    assert page.count("<iframe") == 2 and "/faces/" not in page  # no picture drawn yet
    # Pack text is data: escaped on the page and in the frames' documents alike.
    assert "<b>at</b>" not in page and "The Figure &lt;b&gt;at&lt;/b&gt; the Hall" in page
    assert "PASSED" in page and "a clumsy retreat ends in the hallway" in page


def test_a_card_page_holds_its_face_rules_text_odds_and_tests(
    served: tuple[Path, Pictures, Snapshot],
) -> None:
    _, _, first = served
    assert sorted(first.paths) == ["/", "/card/chapel", "/card/the-figure-b-at-b-the-hall"]
    page = first.page("/card/the-figure-b-at-b-the-hall")
    assert page is not None
    assert 'href="/">all cards</a>' in page
    assert "Rules text" in page and "A figure waits &amp; watches." in page
    assert 'class="r-chart"' in page  # the odds of its option, charted
    assert "1 of 1 pass" in page
    assert "Chapel" not in page
    assert first.page("/card/../../etc/passwd") is None


class StandIn:
    """print's layout (`LaidOut`) without WeasyPrint: what it is asked to lay out, and which
    faces it says the page cut off (the browser test lays faces out for real)."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[int] | None]] = []
        self.cut_off = False

    def __call__(self, *args: object, **settings: object) -> StandIn:
        self.refused: list[object] = []
        self.data: list[bytes] = []
        self.where: list[tuple[int, int]] = []
        return self

    def add(self, faces: list[Face], progress: object, replace: list[int] | None = None) -> None:
        """Lay these faces out (as print's does: `replace` names the pages laid out again)."""
        self.calls.append(([face.html for face in faces], replace))

    def clipped(self, cards: list[int]) -> set[int]:
        """The cards whose text the page cut off."""
        return set(cards) if self.cut_off else set()

    def save_cache(self) -> None:
        """Keep nothing."""


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandIn:
    """The stand-in layout, and a PNG file written for each face it was given."""

    def draw(chunks: object, where: object, paths: list[tuple[Path, Path]], *_: object) -> None:
        for path, _shown in paths:
            path.write_bytes(b"png")

    laid = StandIn()
    monkeypatch.setattr("compiler.serve.pictures.LaidOut", laid)
    monkeypatch.setattr("compiler.serve.pictures.pdf_to_pngs", draw)
    return laid


def test_pictures_are_laid_out_once_and_again_only_for_a_changed_face(
    served: tuple[Path, Pictures, Snapshot], stand_in: StandIn
) -> None:
    folder, pictures, first = served
    assert first.pending is not None
    drawn = first.pending(2)
    assert drawn.redrawn == 2 and drawn.pending is None and len(stand_in.calls) == 1
    page = drawn.pages["/"]
    assert "<iframe" not in page and page.count('src="/faces/') == 2
    assert len(list(pictures.folder.glob("*.png"))) == 2
    again = build_snapshot(folder, None, pictures, 3)
    assert again.pending is None  # nothing changed: every picture is there already
    (folder / "rooms.card").write_text(ROOM.replace("number 2", "number 7"))
    changed = build_snapshot(folder, None, pictures, 4)
    # Only the changed face waits for a layout, framed meanwhile.
    assert changed.pages["/"].count("<iframe") == 1 and changed.pending is not None
    assert changed.pending(5).redrawn == 1
    (laid_out, _), (redone, _) = stand_in.calls
    assert len(laid_out) == 2 and len(redone) == 1 and "No. 7" in redone[0]
    assert len(list(pictures.folder.glob("*.png"))) == 3
    # A file a face may fetch (a template's font or image) changed: every face is drawn again.
    (folder / "templates").mkdir(exist_ok=True)
    (folder / "templates" / "grain.png").write_bytes(b"an image a stylesheet names")
    fetched = build_snapshot(folder, None, pictures, 6)
    assert fetched.pending is not None and fetched.pending(7).redrawn == 2


def test_a_face_the_layout_cut_off_is_laid_out_again_at_the_smallest_text(
    served: tuple[Path, Pictures, Snapshot], stand_in: StandIn, tmp_path: Path
) -> None:
    """As print does."""
    folder, _, _ = served
    stand_in.cut_off = True
    snapshot = build_snapshot(folder, None, Pictures(tmp_path), 1)
    assert snapshot.pending is not None
    snapshot.pending(2)
    (first, no_pages), (again, pages) = stand_in.calls
    assert no_pages is None and len(first) == 2 and pages == [0, 1]
    assert again != first  # the faces at the smallest text, in place of the cut-off ones


def test_a_pack_that_stops_checking_shows_its_errors_and_comes_back(
    served: tuple[Path, Pictures, Snapshot], stand_in: StandIn, tmp_path: Path
) -> None:
    """One file's error leaves that file out: every other card keeps its face, rules text
    and tests, the broken file's cards are marked with their diagnostics, and both follow
    each save (the faces laid out once, as ever)."""
    folder, _, _ = served
    pictures = Pictures(tmp_path)
    rooms = folder / "rooms.card"
    text = rooms.read_text()
    rooms.write_text(text.replace("    number", "    numbr"))
    partial = build_snapshot(folder, None, pictures, 1)
    assert not partial.broken and partial.cards == 1
    assert [Path(file).name for file in partial.left_out] == ["rooms.card"]
    page = partial.pages["/"]
    assert f'<script src="{SCRIPT}" defer>' in page
    assert "The Figure &lt;b&gt;at&lt;/b&gt; the Hall" in page and "1 of 1 pass" in page
    assert page.count("<iframe") == 1  # the face that checks, framed until it is laid out
    # Above the cards, the file left out: its card, its error with the source line.
    left = page[page.index('id="left-out"') : page.index('id="flags"')]
    assert "Chapel" in left and 'href="/card/chapel"' in left
    assert "error[E0211]" in left and "rooms.card:2:5" in left and "did you mean" in left
    assert "error[E0211]" in page[page.index('id="diagnostics"') :]
    # The card left out keeps its page, which says why; the other card's page says what is out.
    chapel = partial.page("/card/chapel")
    assert chapel is not None and "Chapel is left out" in chapel and 'href="/">all cards' in chapel
    assert "error[E0211]" in chapel and "rooms.card does not check (1 error)" in chapel
    figure = partial.page("/card/the-figure-b-at-b-the-hall")
    assert figure is not None and 'href="/#left-out"' in figure and "Chapel" not in figure
    # The face that checks is laid out; the page keeps the file left out.
    assert partial.pending is not None
    drawn = partial.pending(2)
    assert drawn.redrawn == 1 and drawn.pending is None and drawn.left_out == partial.left_out
    assert 'src="/faces/' in drawn.pages["/"] and "error[E0211]" in drawn.pages["/"]
    # The terminal says so too: the errors, then what is shown and what is left out.
    lines: list[str] = []
    _rebuild(folder, None, pictures, 3, lines.append, plain)
    assert "error[E0211]" in lines[0] and "rooms.card:2:5" in lines[0]
    assert lines[-1].startswith("[3] 1 card checked in ")
    assert lines[-1].endswith(
        "1 diagnostic; left out " + partial.left_out[0] + ", which has errors"
    )
    # A file of no card that can be read is marked as a whole.
    rooms.write_text(text.replace("{", "", 1))
    unread = build_snapshot(folder, None, pictures, 3)
    assert unread.cards == 1 and "/card/chapel" not in unread.paths
    assert "No card of this file can be read" in unread.pages["/"]
    assert "error[E0101]" in unread.pages["/"] and unread.pending is None  # the face is kept
    # Fixed: the card comes back, and only its face is laid out.
    rooms.write_text(text)
    fixed = build_snapshot(folder, None, pictures, 4)
    assert not fixed.left_out and fixed.cards == 2 and 'id="left-out"' not in fixed.pages["/"]
    assert fixed.pending is not None and fixed.pending(5).redrawn == 1
    assert [len(faces) for faces, _ in stand_in.calls] == [1, 1]


def test_only_errors_that_stop_every_card_make_the_page_the_packs_errors(
    served: tuple[Path, Pictures, Snapshot],
) -> None:
    folder, pictures, _ = served
    manifest = folder / "pack.yaml"
    text = manifest.read_text()
    manifest.write_text(text.replace("ruleset: coma-ward", "ruleset: coma-wards"))
    try:
        broken = build_snapshot(folder, None, pictures, 6)
    finally:
        manifest.write_text(text)
    assert broken.broken and broken.pending is None and not broken.left_out
    page = broken.page("/card/chapel")
    assert page == broken.pages["/"] and "The pack does not check" in page
    assert "error[" in page and "coma-wards" in page
    assert f'<script src="{SCRIPT}" defer>' in page
    assert not build_snapshot(folder, None, pictures, 7).broken
    manifest.rename(folder / "pack.yml")
    try:
        gone = build_snapshot(folder, None, pictures, 8)
    finally:
        (folder / "pack.yml").rename(manifest)
    assert gone.broken and "error[E0470]" in gone.pages["/"]


def test_a_file_that_cannot_be_read_or_that_names_a_card_left_out_is_left_out_too(
    tmp_path: Path, stand_in: StandIn
) -> None:
    """Leaving a file out may break another: a card naming one of its cards is left out in
    turn, with the error that says so; a card file that is no text is left out as a file."""
    folder = make_pack(
        tmp_path / "pack",
        "pack: chars\ntitle: Chars\nversion: 0.1.0\nruleset: lobotomy\n",
        people='character "Lone Patient" {\n    health 6\n    insanity up to 7\n    ap 3\n'
        "    ar 4\n    defense 1\n    imagination 7\n    disorders ocd\n"
        '    starts with "Rusty Nail"\n}\n',
        weapons='weapon "Rusty Nail" {\n    use { gain app 1 }\n}\n',
        drugs='drug "Tonic" {\n    use { gain ap 1 }\n}\n',
    )
    (folder / "worn.card").write_bytes(b"\xff\xfe not text")
    loaded = load_checked(folder, rest=True)
    assert loaded.pack is not None and [c["title"] for c in loaded.pack.cards] == ["Tonic"]
    assert [Path(f).name for f in loaded.left_out] == ["people.card", "weapons.card", "worn.card"]
    codes = {(Path(d.span.file).name, d.code) for d in loaded.diagnostics}
    assert ("people.card", "E0420") in codes and ("worn.card", "E0407") in codes
    snapshot = build_snapshot(folder, None, Pictures(tmp_path / "pictures"), 1)
    page = snapshot.pages["/"]
    assert snapshot.cards == 1 and "error[E0420]" in page and "Lone Patient" in page
    # A command about one card leaves out no more than before.
    assert load_checked(folder, only="Tonic").pack is None


def _get(port: int, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.putrequest("GET", path, skip_host=True)
    connection.putheader("Host", host or f"127.0.0.1:{port}")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[PreviewServer, Published]]:
    """A server of a made-up snapshot, on a free port of 127.0.0.1."""
    (tmp_path / ("a" * 64 + ".png")).write_bytes(b"\x89PNG made up")
    (tmp_path / "secret.txt").write_text("not to be served")
    published = Published(Snapshot(1, {"/": "<p>the pack</p>", "/card/x": "<p>x</p>"}), tmp_path)
    preview = PreviewServer(0, published)
    preview.start()
    yield preview, published
    preview.stop()


def test_the_server_answers_its_pages_and_pictures_and_nothing_else(
    server: tuple[PreviewServer, Published],
) -> None:
    preview, _ = server
    port = preview.port
    assert preview.host == "127.0.0.1" and preview.url.startswith("http://127.0.0.1:")
    assert _get(port, "/")[2] == b"<p>the pack</p>"
    status, headers, body = _get(port, SCRIPT)
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert b"EventSource" in body
    assert _get(port, "/faces/" + "a" * 64 + ".png")[2] == b"\x89PNG made up"
    for path in (
        "/card/../../etc/passwd",
        "/card/..%2F..%2Fetc%2Fpasswd",
        "/faces/secret.txt",
        "/faces/..%2Fsecret.txt",
        "/faces/" + "b" * 64 + ".png",
        "/etc/passwd",
    ):
        assert _get(port, path)[0] == 404, path
    # Another name for this address is a page elsewhere reaching it through the browser.
    assert _get(port, "/", host=f"evil.example:{port}")[0] == 421
    assert _get(port, "/", host=f"localhost:{port}")[0] == 200


def test_the_event_stream_tells_each_new_generation(
    server: tuple[PreviewServer, Published],
) -> None:
    preview, published = server
    port = preview.port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    assert response.readline() == b"event: update\n" and response.readline() == b"data: 1\n"
    assert response.readline() == b"\n"
    published.publish(Snapshot(2, {"/": "<p>changed</p>"}))
    assert response.readline() == b"event: update\n" and response.readline() == b"data: 2\n"
    connection.close()
    assert _get(port, "/")[2] == b"<p>changed</p>"


def test_serve_refuses_a_path_that_is_no_pack_and_a_port_in_use(tmp_path: Path) -> None:
    code, output = run("serve", str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or folder" in output
    code, output = run("serve", str(tmp_path))
    assert code == 2 and "has no pack.yaml" in output
    pack = make_pack(tmp_path / "pack", rooms=ROOM)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = run("serve", str(pack), "--port", str(port))
    assert code == 2 and f"--port {port}: cannot listen" in output


def test_a_browser_that_hangs_up_is_no_error_and_an_idle_one_is_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A page reloaded while it loaded printed ConnectionResetError and BrokenPipeError
    # tracebacks (379 in an hour); a connection that sent nothing held a thread for ever.
    monkeypatch.setattr(local_server, "REQUEST_SECONDS", 0.5)
    big = "<p>" + "x" * 8_000_000 + "</p>"
    published = Published(Snapshot(1, {"/": big}), tmp_path)
    preview = PreviewServer(0, published)
    preview.start()
    port = preview.port
    try:
        for _ in range(5):  # ask for the page and reset the connection before reading it
            hanging = socket.create_connection(("127.0.0.1", port))
            hanging.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            hanging.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            hanging.close()
        idle = socket.create_connection(("127.0.0.1", port))
        idle.settimeout(5)
        assert idle.recv(1) == b""  # closed by the server once its timeout passed
        idle.close()
        assert _get(port, "/")[0] == 200
    finally:
        preview.stop()
    assert "Traceback" not in capsys.readouterr().err


def test_answers_say_not_to_sniff_frame_or_refer_and_pages_carry_their_policy(
    server: tuple[PreviewServer, Published],
) -> None:
    preview, _ = server
    status, headers, _ = _get(preview.port, "/")
    assert status == 200 and headers["content-security-policy"] == LIVE_POLICY
    for answered in (headers, _get(preview.port, "/nowhere")[1]):
        assert answered["x-content-type-options"] == "nosniff"
        assert answered["x-frame-options"] == "DENY"
        assert answered["referrer-policy"] == "no-referrer"
    assert _get(preview.port, "/", host="evil.example")[1]["x-frame-options"] == "DENY"


def test_a_request_trickled_a_byte_at_a_time_is_cut_off_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # uvicorn's keep-alive clock restarts at every byte, so a request sent a byte at a time
    # held its connection for ever; the deadline runs from when the connection opened.
    monkeypatch.setattr(local_server, "REQUEST_SECONDS", 0.6)
    preview = PreviewServer(0, Published(Snapshot(1, {"/": "<p>x</p>"}), tmp_path))
    preview.start()
    try:
        slow = socket.create_connection(("127.0.0.1", preview.port))
        slow.settimeout(0.2)
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 5 and not closed:
            try:
                slow.sendall(b"G")
                closed = slow.recv(1) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
        slow.close()
        assert closed and time.monotonic() - started < 2
    finally:
        preview.stop()


def test_connections_past_the_cap_are_closed_as_they_come_and_the_page_stays_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_server, "MAX_CONNECTIONS", 4)
    preview = PreviewServer(0, Published(Snapshot(1, {"/": "<p>x</p>"}), tmp_path))
    preview.start()
    crowd = [socket.create_connection(("127.0.0.1", preview.port)) for _ in range(4)]
    try:
        extra = socket.create_connection(("127.0.0.1", preview.port))
        extra.settimeout(5)
        try:
            got = extra.recv(1)
        except ConnectionResetError:  # aborted: closed with a reset, not a goodbye
            got = b""
        assert got == b""
        extra.close()
        crowd.pop().close()
        time.sleep(0.1)
        assert _get(preview.port, "/")[0] == 200
    finally:
        for connection in crowd:
            connection.close()
        preview.stop()
