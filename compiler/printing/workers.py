"""Forked worker processes that can always be stopped: WeasyPrint, pikepdf and pdfium run there.

A layout can hang where no signal reaches it (WeasyPrint's SVG drawing catches BaseException,
so an alarm or Ctrl-C raised inside it is swallowed), or fill the memory in C (a shading of a
million stops, a bitmap of many megapixels). So that work runs in forked children, which the
parent kills at its deadline whatever they are doing. Each child:

- dies with the parent (`PR_SET_PDEATHSIG` on Linux, else a watchdog of the parent's pid), so a
  print killed by SIGKILL leaves no worker running;
- may grow its address space by a fixed number of megabytes at most: past it an allocation
  fails, as a MemoryError, an error of a C library that could not allocate, or the child's
  death, and each is reported as "needs more memory" (room the parent had freed before the
  fork comes on top: pillbox's own, a few hundred MB); any other error is the bug it is;
- sends back replies of a fixed size at most, so what it returns cannot fill the parent;
- makes its temporary files in a folder of the run's, which the parent removes: a killed child
  cleans up nothing, and WeasyPrint keeps a folder of fonts per document until the document is
  collected (a few MB, left in /tmp by every print before this).

A task is an index into data the child already has (it is a fork), so nothing is sent to it
but numbers; a reply is pickled, which is safe here: it comes from a fork of this process.
A system that cannot fork one more process (too many of them, too little memory) is a failure
to `start`, not an error of the print's files.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

T = TypeVar("T")

PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent dies."""

WATCHDOG_SECONDS = 0.5
"""Where there is no PR_SET_PDEATHSIG, a child looks this often whether its parent is gone."""

REPLY_SLACK = 64 * 1024
"""Bytes a reply's frame may add to what it carries."""

CAP_USED = 0.5
"""A C library's error in a child that has used this share of its memory allowance or more is
taken to be its allocation failing: qpdf, say, reads a PDF it cannot hold as a damaged one
("unable to find /Root dictionary")."""

C_LIBRARIES = ("pikepdf", "pypdfium2")
"""The packages whose errors may be a C or C++ allocation that failed, under another name."""

OUT_OF_MEMORY_WORDS = ("bad_alloc", "out of memory", "cannot allocate memory", "map segment")
"""Words of an error that ran out of memory whatever its type: a C++ `std::bad_alloc` passed on
as text, ENOMEM's `Cannot allocate memory`, a library that cannot be mapped."""


class WorkerFailed(Exception):
    """A child ran out of memory or died (`memory`), replied too much (`large`), ran past the
    deadline (`time`), or could not be made (`start`, the system's reason in `detail`); nothing
    it made is used. `memory_mb` is what it was allowed."""

    def __init__(self, reason: str, memory_mb: int = 0, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.memory_mb = memory_mb
        self.detail = detail


def can_fork() -> bool:
    """Whether this system can fork workers (every Unix; not Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()


def cap_address_space(extra_mb: int) -> tuple[int, int, int] | None:
    """Let this process grow by `extra_mb` at most: its soft address-space limit is set that far
    above what it uses. The soft and hard limits it had (to set back) and the cap; None, and
    nothing changed, where that cannot be said (not Linux) or the limit is already tighter."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    cap = used + extra_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        return None  # already as tight
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return soft, hard, cap


def run_in_workers(
    work: Callable[[int], T],
    tasks: int,
    workers: int,
    deadline: float,
    memory_mb: int,
    max_reply: int,
    done: Callable[[int, T], None] | None = None,
) -> list[T]:
    """`work(i)` for every task i, in up to `workers` forked children, results in task order.

    `deadline` is a `time.monotonic()` value; `done(i, result)` is told of each result as it
    comes in (it may raise, to stop them all).
    Raises WorkerFailed, or the exception a task raised (with the child's traceback as a note).
    Every child is killed and reaped before this returns or raises. Where the system makes
    fewer children than asked, those it made do the work.
    """
    context = multiprocessing.get_context("fork")
    parent = os.getpid()
    children: list[tuple[Any, Connection]] = []
    results: dict[int, T] = {}
    busy: dict[Connection, int] = {}
    waiting = iter(range(tasks))
    scratch = tempfile.mkdtemp(prefix="pillbox-workers-")
    try:
        for _ in range(max(min(workers, tasks), 0)):
            try:
                child, ours = _start(context, (work, parent, memory_mb, max_reply, scratch))
            except OSError as error:  # fork(2)'s EAGAIN or ENOMEM, or no file left for a pipe
                if children:
                    break
                raise WorkerFailed("start", detail=error.strerror or str(error)) from None
            children.append((child, ours))
            _give(ours, waiting, busy)
        while busy:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerFailed("time")
            for ready in wait(list(busy), timeout=left):
                assert isinstance(ready, Connection)
                task = busy.pop(ready)
                results[task] = _reply(ready, max_reply)
                if done is not None:
                    done(task, results[task])
                _give(ready, waiting, busy)
        return [results[task] for task in range(tasks)]
    except WorkerFailed as failed:
        failed.memory_mb = failed.memory_mb or memory_mb
        raise
    finally:
        for child, connection in children:
            child.kill()  # a child idle or past its deadline alike: nothing of it is needed
            connection.close()
        for child, _ in children:
            child.join()
        shutil.rmtree(scratch, ignore_errors=True)


def _start(context: Any, args: tuple[Any, ...]) -> tuple[Any, Connection]:
    """A child serving tasks (`_serve` with `args`), and this end of its pipe; OSError if the
    system cannot make one, with nothing of it left open."""
    ours, theirs = context.Pipe()
    try:
        child = context.Process(target=_serve, args=(theirs, *args), daemon=True)
        child.start()
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()  # the child has it: its death reads as the end of the pipe
    return child, ours


def _give(connection: Connection, waiting: Iterator[int], busy: dict[Connection, int]) -> None:
    """Hand the next task, if any, to an idle child."""
    task = next(waiting, None)
    if task is None:
        return
    try:
        connection.send(task)
    except OSError:  # the child is already gone
        raise WorkerFailed("memory") from None
    busy[connection] = task


def _reply(connection: Connection, max_reply: int) -> Any:
    """A child's answer to its task: its result, or the failure it reported or died of."""
    try:
        message = connection.recv_bytes(max_reply + REPLY_SLACK)
    except EOFError:
        raise WorkerFailed("memory") from None  # killed (the OOM killer) or aborted in C
    except OSError:
        raise WorkerFailed("large") from None
    kind, value = pickle.loads(message)
    if kind == "raised":
        raise value
    if kind != "done":
        raise WorkerFailed(kind)
    return value


def _serve(
    connection: Connection,
    work: Callable[[int], Any],
    parent: int,
    memory_mb: int,
    limit: int,
    scratch: str,
) -> None:
    """A child's life: tied to its parent, capped, it runs the tasks it is given until killed."""
    tempfile.tempdir = scratch
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, if it has one
    die_with(parent)
    _cap_memory(memory_mb)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        connection.send_bytes(_answer(work, task, limit))


def _answer(work: Callable[[int], Any], task: int, limit: int) -> bytes:
    """The pickled reply to one task: a result of `limit` bytes at most, or what went wrong."""
    try:
        reply = pickle.dumps(("done", work(task)), pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # the parent raises it: a bug, or an OSError to report
        if _out_of_memory(error):
            return pickle.dumps(("memory", None))
        told = traceback.format_exc()[-REPLY_SLACK // 2 :]
        error.add_note("in a print worker:\n" + told)
        return _raised(error, told)
    return reply if len(reply) <= limit else pickle.dumps(("large", None))


def _raised(error: Exception, told: str) -> bytes:
    """The reply that raises `error` in the parent, or a RuntimeError of the traceback `told`
    where the error does not pickle, does not unpickle (an `__init__` of its own arguments
    makes pickle.loads fail), or is too long."""
    try:
        reply = pickle.dumps(("raised", error))
        pickle.loads(reply)
    except Exception:  # its text still tells the bug
        return pickle.dumps(("raised", RuntimeError(told)))
    if len(reply) > REPLY_SLACK:  # the error's own text is huge
        return pickle.dumps(("raised", RuntimeError(told)))
    return reply


def _out_of_memory(error: Exception) -> bool:
    """Whether an error is this child's memory running out, rather than a bug: a MemoryError
    (pikepdf's `std::bad_alloc` among them), an error that says so, or, once the child came
    near its cap, the error of a C library or a SystemError (whose allocations fail in their
    own ways)."""
    if isinstance(error, MemoryError):
        return True
    if isinstance(error, OSError) and error.errno == errno.ENOMEM:
        return True
    if any(word in str(error).lower() for word in OUT_OF_MEMORY_WORDS):
        return True
    # CPython's "error return without exception set": a C function whose allocation failed
    # and that said nothing (WeasyPrint's C helpers, near the cap), else a bug like any other.
    c_error = isinstance(error, SystemError) or type(error).__module__.partition(".")[0] in (
        C_LIBRARIES
    )
    return c_error and _ran_out()


def die_with(parent: int) -> None:
    """Make this child die when its parent does, however the parent ends."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
                raise OSError(ctypes.get_errno(), "prctl")
        except (OSError, AttributeError):
            _watch(parent)
    else:
        _watch(parent)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _watch(parent: int) -> None:
    """A thread that ends this process once its parent is gone (it is then adopted)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCHDOG_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


_ALLOWANCE: list[int] = []
"""In a child: its address space when capped, and the cap."""


def _cap_memory(memory_mb: int) -> None:
    """Let this process grow by `memory_mb` at most (where the system can say so)."""
    limits = cap_address_space(memory_mb)
    if limits is not None:
        _ALLOWANCE[:] = [limits[2] - memory_mb * 1024 * 1024, limits[2]]


def _ran_out() -> bool:
    """Whether this child's address space came near its cap at some point."""
    if not _ALLOWANCE:
        return False
    try:
        with open("/proc/self/status") as status:
            peak = next(line for line in status if line.startswith("VmPeak:"))
    except (OSError, StopIteration):
        return False
    start, cap = _ALLOWANCE
    return int(peak.split()[1]) * 1024 - start >= CAP_USED * (cap - start)
