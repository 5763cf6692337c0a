"""`pillbox serve PACK [--port N]`: the pack as a local page that follows every saved change.

The pack is checked and its pages made in the main thread (where a template's deadline can
interrupt it); the server answers from an event loop in a thread of its own, and `watchfiles`
waits for changes to the pack's folder in another, from before the first check, so no save is
missed. Each batch of changes makes a new snapshot, published at once with the faces that
changed in frames (as the report shows them), then again once they are laid out as print lays
them out: the page's script hears of each through `/events` and swaps the new page in. A card
file with errors is left out of the snapshot, its errors printed on the terminal as on the
page. Ctrl-C stops it all and removes the face pictures.
"""

from __future__ import annotations

import queue
import tempfile
import threading
import time
from pathlib import Path

from compiler.errors import UsageError
from compiler.kept import keep_in_this_process
from compiler.opening import resolve_targets
from compiler.playing import Emit
from compiler.render import Style, counted, plain, render_text
from compiler.serve.app import PreviewServer, Published
from compiler.serve.pages import Snapshot, build_snapshot
from compiler.serve.pictures import Pictures

DEBOUNCE_MS = 50
"""How long watchfiles gathers changes into one batch: an editor's save writes a few times."""

POLL_SECONDS = 0.5
"""How often the main thread looks up from waiting for changes (Ctrl-C is heard then)."""


def serve_pack(path: Path, ruleset: str | None, port: int, emit: Emit, style: Style = plain) -> int:
    """Serve the pack's pages on 127.0.0.1 until Ctrl-C (KeyboardInterrupt, raised on)."""
    keep_in_this_process()  # every save loads and compiles the pack again
    folder = pack_folder(path, ruleset)
    changes: queue.Queue[int] = queue.Queue()
    stop = threading.Event()
    watcher = threading.Thread(target=watch_folder, args=(folder, changes, stop), daemon=True)
    watcher.start()
    try:
        with tempfile.TemporaryDirectory(prefix="pillbox-serve-") as pictures_folder:
            pictures = Pictures(Path(pictures_folder))
            published = Published(Snapshot(0, {}), pictures.folder)
            try:  # before any work: a port in use is a usage error at once
                server = PreviewServer(port, published)
            except OSError as error:
                raise UsageError(f"--port {port}: cannot listen: {error.strerror}") from None
            generation = 1
            snapshot = _rebuild(path, ruleset, pictures, generation, emit, style)
            published.publish(snapshot)
            server.start()
            emit(f"serving {folder} at {server.url} (Ctrl-C stops)")
            try:
                while True:
                    while snapshot.pending is not None:
                        generation += 1
                        snapshot = _complete(snapshot, generation, emit)
                        published.publish(snapshot)
                    wait_for_changes(changes)
                    generation += 1
                    snapshot = _rebuild(path, ruleset, pictures, generation, emit, style)
                    published.publish(snapshot)
            finally:
                server.stop()
    finally:
        stop.set()


def pack_folder(path: Path, ruleset: str | None) -> Path:
    """The folder to watch: the pack's (UsageError if the path names none, or several)."""
    targets = resolve_targets([path], ruleset)
    if len(targets) != 1:
        raise UsageError(f"{path} holds more than one pack; name one")
    manifest = targets[0].manifest
    return (manifest.parent if manifest else path).resolve()


def watch_folder(folder: Path, changes: queue.Queue[int], stop: threading.Event) -> None:
    """Put a count of changed files on the queue after each batch of saved changes."""
    import watchfiles

    for batch in watchfiles.watch(
        folder, debounce=DEBOUNCE_MS, step=20, stop_event=stop, raise_interrupt=False
    ):
        changes.put(len(batch))


def wait_for_changes(changes: queue.Queue[int]) -> None:
    """Wait for the next batch of changes, and take every batch that came meanwhile."""
    while True:
        try:
            changes.get(timeout=POLL_SECONDS)
            break
        except queue.Empty:
            continue
    while not changes.empty():
        changes.get_nowait()


def _rebuild(
    path: Path, ruleset: str | None, pictures: Pictures, generation: int, emit: Emit, style: Style
) -> Snapshot:
    """A snapshot of the pack now; one line (and any errors) on the terminal."""
    started = time.perf_counter()
    snapshot = build_snapshot(path, ruleset, pictures, generation)
    took = (time.perf_counter() - started) * 1000
    errors = [d for d in snapshot.diagnostics if d.severity == "error"]
    if snapshot.broken:
        for diagnostic in errors:
            emit(render_text(diagnostic, {}, style))
        emit(f"[{generation}] the pack does not check: {counted(len(errors), 'error')}")
    else:
        left_out = snapshot.left_out
        for diagnostic in errors:
            if diagnostic.span.file in left_out:
                emit(render_text(diagnostic, {}, style))
        line = (
            f"[{generation}] {counted(snapshot.cards, 'card')} checked in {took:.0f} ms, "
            f"{counted(len(snapshot.diagnostics), 'diagnostic')}"
        )
        if left_out:
            which = "has errors" if len(left_out) == 1 else "have errors"
            line += f"; left out {', '.join(left_out)}, which {which}"
        emit(line)
    return snapshot


def _complete(snapshot: Snapshot, generation: int, emit: Emit) -> Snapshot:
    """The snapshot with the faces it lacks laid out; one line on the terminal."""
    assert snapshot.pending is not None
    started = time.perf_counter()
    done = snapshot.pending(generation)
    took = (time.perf_counter() - started) * 1000
    emit(f"[{generation}] {counted(done.redrawn, 'face')} laid out in {took:.0f} ms")
    return done
