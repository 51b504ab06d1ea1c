"""One file's reading in a child process of its own, bounded in time and memory.

The bounds of text/bounds.py stop what a file asks for before it is done; this stops what they
did not foresee. The child sets its own limits before it reads (RLIMIT_AS: its address space,
LEGAL_AI_READ_MEMORY_MB; RLIMIT_CPU: its processor seconds) and leads a process group of its own
(pdftotext runs inside it); the parent waits at most LEGAL_AI_READ_SECONDS of wall clock, then
kills the whole group. A child that is killed, or dies, leaves a one-line refusal
(`OverBound`, "reading time" or "reading memory"); nothing of it outlives the call.

Children are forked from multiprocessing's fork server, started once per process with the
readers already imported (measured in docs/benchmarks.md: a few milliseconds a file against
the ~0.3 s of a fresh interpreter, and never a fork of the multi-threaded server itself).
The fork server also imports what the process's main script imported at its top
(`main_imports`): every child runs that script again before its target (multiprocessing's
"fixup" of `__main__`), and before Python 3.13 the fork server never does it first, whatever
its preload says (CPython gh-126631). For `legal-ai`'s own console script that is `from
legal_ai.cli import main`: the whole application, 0.7 s a file, where the children of a fork
server that imported it find it imported.
The fork server lives as long as the process that started it. It listens on a socket in a
folder of its own, made under LEGAL_AI_HOME/run/<its process id> (or /dev/shm/legal-ai-<uid>/
<its process id> when the home's path is too long for a socket) rather than the system's
temporary folder: multiprocessing removes its socket's folder when the process ends, but a
process killed with -9 cannot; the next start sweeps the folders of processes that are gone.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.forkserver
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput, OverBound, UnsupportedFile
from .bounds import LIMITS, Limits
from .extract import Extracted, extract

# How a reading's child starts (bench/isolation.py measures the three): "forkserver" (the
# default), "spawn" (a fresh interpreter a file), "fork" (a copy of the caller: unsafe in a
# multi-threaded server, and its address-space limit would count the caller's memory).
START_METHOD = "forkserver"
PRELOAD = ("__main__", "legal_ai.text.isolated")  # __main__: multiprocessing's own default


@dataclass(frozen=True)
class Outcome:
    """What a child said: the text, or the refusal; and what the reading cost the child (its
    resident memory when it started and at its peak, in bytes; None: it did not say)."""

    extracted: Extracted | None
    error: Exception | None
    seconds: float
    start_rss: int | None = None
    peak_rss: int | None = None


def _rss_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kilobytes


def _child(conn, path: str, limits: Limits) -> None:
    """The child's whole life: limits, read, say what happened, exit."""
    os.setpgrp()  # its own group: the parent kills pdftotext with it
    start = _rss_peak()
    memory = limits.read_memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = max(1, math.ceil(limits.read_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        said: tuple = ("ok", extract(Path(path), limits))
    except OverBound as exc:  # each with its code and field (errors.py), for the catalog
        said = ("bound", str(exc), exc.code, exc.field, exc.what)
    except UnsupportedFile as exc:
        said = ("unsupported", str(exc), exc.code, exc.field)
    except InvalidInput as exc:
        said = ("invalid", str(exc), exc.code, exc.field)
    except MemoryError:
        said = ("memory",)
    except Exception as exc:  # a reader's failure on this file, said in one line
        said = ("unsupported", f"{path}: could not be read ({type(exc).__name__})")
    try:
        conn.send((*said, start, _rss_peak()))
    except MemoryError:
        conn.send(("memory", start, None))
    conn.close()


def _too_long(path: Path, limits: Limits) -> OverBound:
    return OverBound(
        f"{path}: the file took too long to read (over {limits.read_seconds:g} s) and was "
        "stopped; split it or export it again (LEGAL_AI_READ_SECONDS)",
        "reading time",
        code="file.read_time",
        field="file",
    )


def _too_much(path: Path, limits: Limits) -> OverBound:
    return OverBound(
        f"{path}: the file took too much memory to read (over "
        f"{limits.read_memory_bytes / 2**20:,.0f} MB) and was stopped; split it or export it "
        "again (LEGAL_AI_READ_MEMORY_MB)",
        "reading memory",
        code="file.read_memory",
        field="file",
    )


def _error(said: tuple, path: Path, limits: Limits) -> Exception:
    kind = said[0]
    if kind == "bound":
        return OverBound(said[1], said[4], code=said[2], field=said[3])
    if kind == "unsupported":
        return UnsupportedFile(said[1], code=said[2], field=said[3])
    if kind == "invalid":
        return InvalidInput(said[1], code=said[2], field=said[3])
    return _too_much(path, limits)


def _kill(process) -> None:
    """The child and everything in its group (a pdftotext it started), then reaped."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already
    process.kill()
    process.join()


_SERVER = threading.Lock()
_STARTED: list[str] = []  # the folder the fork server was started in (at most one)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _sweep(run_dir: Path) -> None:
    """The folders of processes that are gone (killed before they could remove theirs). A
    folder is a process's own, named by its id: nothing is asked of a live fork server."""
    for folder in run_dir.iterdir():
        if folder.is_dir() and folder.name.isdigit() and not _alive(int(folder.name)):
            shutil.rmtree(folder, ignore_errors=True)


# A Unix socket's path holds at most 107 bytes; multiprocessing adds
# "/pymp-XXXXXXXX/listener-XXXXXXXX" (32) to the folder it is given.
SOCKET_PATH_MAX = 107 - 32


def _socket_base(run_dir: str) -> Path | None:
    """Where this process's socket folder goes: LEGAL_AI_HOME/run, or, when that path is too
    long for a socket, a folder of this user's in /dev/shm (memory, never the temp folder);
    None when neither can be used (then the system's temporary folder, as multiprocessing does)."""
    for base in (Path(run_dir), Path("/dev/shm") / f"legal-ai-{os.getuid()}"):
        if len(os.fsencode(base / str(os.getpid()))) > SOCKET_PATH_MAX:
            continue
        try:
            base.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            continue
        return base
    return None


def main_imports(main: types.ModuleType | None) -> list[str]:
    """The modules a child runs `main` again to import, where it runs it again (a script by its
    path: a console script, `python bench/x.py`; a module by its name: `python -m bench.x`):
    those its top level imported, or imported a name from, that this process holds. Nothing
    for a main a child leaves alone: `-c` (the test workers) or a package's `__main__`. A
    module the fork server would find elsewhere is left to the child (`_found_alike`)."""
    spec = getattr(main, "__spec__", None)
    if main is None or not getattr(main, "__file__", None):
        return []
    if spec is not None and spec.name.endswith("__main__"):
        return []
    names = set()
    for key, value in vars(main).items():
        if key.startswith("__"):
            continue
        module = isinstance(value, types.ModuleType)
        name = value.__name__ if module else getattr(value, "__module__", None)
        if isinstance(name, str) and name in sys.modules and not name.endswith("__main__"):
            names.add(name)
    return sorted(name for name in names if _found_alike(name))


def _found_alike(name: str) -> bool:
    """Whether the fork server, a fresh `python -c` whose search path starts at the working
    folder (older Pythons do not give it this process's path: CPython gh-117378), finds
    the top package of `name` where this process found it: not a file of that name in the
    working folder that is not the one imported here (a script's sibling module, say)."""
    top = name.partition(".")[0]
    loaded = getattr(sys.modules.get(top), "__file__", None)
    try:
        work = Path.cwd()
    except OSError:  # the working folder is gone: nothing there shadows anything
        return True
    for there in (work / f"{top}.py", work / top / "__init__.py"):
        if there.is_file():
            return loaded is not None and Path(loaded).resolve() == there.resolve()
    return True


def _start_server(run_dir: str | None) -> None:
    """multiprocessing's fork server, started once with the readers and the main script's
    imports preloaded, its socket's folder under <base>/<pid> (multiprocessing makes it where
    `tempfile` says: its `tempdir`, for the start only; with no `run_dir`, where it says)."""
    with _SERVER:
        if _STARTED:
            return
        preload = [*PRELOAD, *main_imports(sys.modules.get("__main__"))]
        multiprocessing.get_context("forkserver").set_forkserver_preload(preload)
        if run_dir is None:
            _STARTED.append("")
            return
        base = _socket_base(run_dir)
        if base is None:
            _STARTED.append("")
            return
        _sweep(base)
        folder = base / str(os.getpid())
        folder.mkdir(exist_ok=True)
        saved, tempfile.tempdir = tempfile.tempdir, str(folder)
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            tempfile.tempdir = saved
        _STARTED.append(str(folder))


def run(path: Path, limits: Limits = LIMITS, method: str = START_METHOD) -> Outcome:
    """Read `path` in a child process under `limits`: what it said, or why it was stopped."""
    began = time.monotonic()
    if method == "forkserver":
        _start_server(limits.run_dir)
    context = multiprocessing.get_context(method)
    receiver, sender = context.Pipe(duplex=False)
    # Every concrete context has Process; typeshed's BaseContext does not say so.
    process = context.Process(  # type: ignore[attr-defined]
        target=_child, args=(sender, str(path), limits), name="legal-ai-read", daemon=True
    )
    process.start()
    sender.close()
    said, timed_out = None, False
    try:
        if receiver.poll(limits.read_seconds):
            said = receiver.recv()
        else:
            timed_out = True
    except EOFError:  # the child died without a word: killed by a limit, or crashed
        said = None
    finally:
        receiver.close()
        _kill(process)
    seconds = time.monotonic() - began
    if said is None:
        cpu = process.exitcode == -signal.SIGXCPU
        error = _too_long(path, limits) if timed_out or cpu else _too_much(path, limits)
        return Outcome(None, error, seconds)
    *body, start, peak = said
    if body[0] == "ok":
        return Outcome(body[1], None, seconds, start, peak)
    return Outcome(None, _error(tuple(body), path, limits), seconds, start, peak)


def read(path: Path, limits: Limits = LIMITS) -> Extracted:
    """`extract(path, limits)` in a child process bounded in time and memory; its refusal
    raised here (OverBound, UnsupportedFile)."""
    outcome = run(path, limits)
    if outcome.error is not None:
        raise outcome.error
    if outcome.extracted is None:  # an outcome holds what was read or why not, never neither
        raise ValueError(f"the reader of {path.name} said nothing")
    return outcome.extracted
