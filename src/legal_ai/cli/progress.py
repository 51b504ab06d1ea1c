"""How a long command (ingest, reindex, eval, `db backup`) shows its progress on stderr.

On a terminal: a bar (rich) with the phase, done of total, the rate, the time left and what it
works on. Without one (a service, a pipe, a log): a JSON line every `LEGAL_AI_PROGRESS_INTERVAL_S`
seconds (10) — `{"progress": label, "done", "total", "unit", "rate" (per second), "eta_s",
"elapsed_s", "current", "last"}` — and one more when the work ends, if any was written. On
Ctrl-C: one line saying where the work stopped (done of total, the last item written) and what
a re-run does; the command then exits 130 (cli/__init__.py main)."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as Bar
from rich.text import Text

from ..config import Settings
from ..progress import Progress

# What running the command again does, said when Ctrl-C stopped it.
RESUME_INGEST = (
    "Run the same command again to resume: the items written are kept and skipped as unchanged."
)
RESUME_REINDEX = "Run `legal-ai reindex` again to resume: what was re-embedded is kept."
RESUME_EVAL = (
    "Run the same command again: its evaluation database is made afresh, and the embeddings "
    "already made are taken from the cache."
)
RESUME_BACKUP = "Nothing was kept (the partial file is removed); run the same command again."


class _Rate(ProgressColumn):
    """Items per second (rich's estimate over the last half minute)."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", "")
        if not task.speed:
            return Text(f"– {unit}/s", style="progress.data.speed")
        return Text(f"{task.speed:.2f} {unit}/s", style="progress.data.speed")


def _short(text: str, width: int = 48) -> str:
    """The end of a long name (its distinguishing part), cut at the front."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


class Watch(Progress):
    """The command line's watcher of long work; a context manager around the work. `resume`
    says what running the command again does (in the line printed on Ctrl-C)."""

    def __init__(self, interval_s: float, resume: str, *, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.interval_s = interval_s
        self.resume = resume
        self.on_terminal = self.stream.isatty()
        self.label, self.unit = "", "items"
        self.total: int | None = None
        self.done = 0
        self.current: str | None = None
        self.last: str | None = None
        self.started = self.phase_started = time.monotonic()
        self._bar: Bar | None = None
        self._task: TaskID | None = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._lines = 0
        self._lock = threading.Lock()

    # -- the work's calls -------------------------------------------------------------------------
    def start(self, label: str, total: int | None, unit: str) -> None:
        with self._lock:
            self.label, self.total, self.unit = label, total, unit
            self.done, self.current = 0, None
            self.phase_started = time.monotonic()
        if self._bar is not None:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._task = self._bar.add_task(label, total=total, unit=unit, current="")

    def update(self, done: int, *, current: str | None = None, last: str | None = None) -> None:
        with self._lock:
            self.done = done
            self.current = current if current is not None else self.current
            self.last = last if last is not None else self.last
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done, current=_short(self.current or ""))

    # -- what is shown ----------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """The JSON line's fields: done of total, the rate since the phase began, the time left
        at that rate, what is worked on and the last item written."""
        with self._lock:
            elapsed = time.monotonic() - self.phase_started
            rate = self.done / elapsed if elapsed > 0 else 0.0
            left = None
            if self.total is not None and rate > 0:
                left = round(max(self.total - self.done, 0) / rate, 1)
            return {
                "progress": self.label,
                "done": self.done,
                "total": self.total,
                "unit": self.unit,
                "rate": round(rate, 3),
                "eta_s": left,
                "elapsed_s": round(elapsed, 1),
                "current": self.current,
                "last": self.last,
            }

    def _line(self) -> None:
        self.stream.write(json.dumps(self.snapshot(), ensure_ascii=False) + "\n")
        self.stream.flush()
        self._lines += 1

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            if self.label:  # nothing to say before the work has begun a phase
                self._line()

    def stopped_line(self) -> str:
        """Where the work stopped, in one line."""
        where = f"{self.done} of {self.total}" if self.total is not None else f"{self.done}"
        what = f"{self.label}: {where} {self.unit} done" if self.label else "before any work"
        last = f", the last written: {self.last}" if self.last else ""
        return f"interrupted: {what}{last}. {self.resume}"

    # -- around the work --------------------------------------------------------------------------
    def __enter__(self) -> Watch:
        if self.on_terminal:
            self._bar = Bar(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                _Rate(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[current]}"),
                console=Console(file=self.stream),
                transient=True,
            )
            self._bar.__enter__()
        else:
            self._ticker = threading.Thread(
                target=self._tick, name="legal-ai-progress", daemon=True
            )
            self._ticker.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: object, trace: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            if self._lines and kind is None:  # a log that had lines ends with the last one
                self._line()
        if self._bar is not None:
            self._bar.__exit__(kind, error, trace)  # type: ignore[arg-type]
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            self.stream.write(self.stopped_line() + "\n")
            self.stream.flush()


def watch(settings: Settings, resume: str) -> Watch:
    """The watcher of a long command, at the settings' interval."""
    return Watch(settings.progress_interval_s, resume)
