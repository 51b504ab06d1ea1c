"""Her signed final, uploaded on the desk, answers at once (docs/desk.md, "The final's upload"):
the request only receives the file, checks the form's token and hands the work to a thread of
this process; its answer is a page of the upload's stages (reading, indexing, checking the
citations, aligning with our draft, writing, queued for learning — learning/pairs/finals.STAGES) as
they happen, which desk.js polls. Done, the page goes on to the case's page; refused, to the
form again with the reason in Hebrew beside its field (as a refusal in the request would have);
a Word file with open tracked changes or comments stops at a confirm step (how many changes,
the comments' texts) until she confirms or cancels; a scan (a PDF without a text layer) is kept
and queued for OCR (learning/pairs/scanned_decisions.py) and the page says it waits for it.

The file is moved out of the request's folder into one of its own (uploads.private_folder,
locked while the work runs, removed when it ends). An upload is known by an unguessable token,
in this process's memory only: a server restarted meanwhile forgets it, and its page says so in
Hebrew (the file must be sent again) — never silent. A cancel is taken at the next stage's
start, before anything is written."""

from __future__ import annotations

import contextvars
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import upload_names
from ...errors import AppError
from ...learning.methodology import ScannedDecision
from ...learning.pairs import finals, scanned_decisions
from ..uploads import Upload, private_folder

logger = logging.getLogger(__name__)

WORKERS = 2  # finals read at once (the machine's other work goes on beside them)
KEEP_S = 3600.0  # an ended upload's page is kept this long


class Cancelled(AppError):
    """She cancelled the upload before it was written: nothing was stored."""

    code = "upload.cancelled"


@dataclass
class Task:
    """One final on its way: the form as she filled it, the stages begun, how it ended."""

    token: str
    case: str
    given: dict
    filled: dict
    path: Path
    name: str
    view: Any
    stack: ExitStack
    status: str = "running"  # running | confirm | done | failed | cancelled | ocr (a scan queued)
    stages: list[str] = field(default_factory=list)
    result: Mapping[str, Any] | None = None
    error: AppError | None = None
    revisions: finals.OpenRevisions | None = None
    completed: bool = False  # the case number she typed was completed (case_completion)
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None

    @property
    def over(self) -> bool:
        return self.status in ("done", "failed", "cancelled", "ocr")


class FinalUploads:
    """The finals on their way in this process, by token."""

    def __init__(self, root: Path, workers: int = WORKERS) -> None:
        self.root = root
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="final-upload")
        self.tasks: dict[str, Task] = {}
        self.lock = threading.Lock()

    def begin(
        self,
        view: Any,
        received: Upload,
        case: str,
        given: dict,
        filled: dict,
        completed: bool = False,
    ) -> Task:
        """Take the received file (called in the request, before its folder goes) and start
        the work; the task at once."""
        self._prune()
        stack = ExitStack()
        try:
            folder = stack.enter_context(private_folder(self.root))
            path = folder / received.name
            os.replace(received.path, path)  # the same file system (HOME/uploads)
        except BaseException:
            stack.close()
            raise
        task = Task(
            secrets.token_urlsafe(18), case, given, filled, path, received.name, view, stack
        )
        task.completed = completed
        with self.lock:
            self.tasks[task.token] = task
        self._start(task, accept_open=False)
        return task

    def get(self, token: str) -> Task | None:
        with self.lock:
            return self.tasks.get(token)

    def confirm(self, task: Task) -> bool:
        """She confirmed a Word final with open changes: read again, taken as signed."""
        with self.lock:
            if task.status != "confirm":
                return False
            task.status, task.revisions = "running", None
        self._start(task, accept_open=True)
        return True

    def cancel(self, task: Task) -> None:
        """Stop it: at once when it waits for her confirmation, else at the next stage."""
        task.cancel.set()
        with self.lock:
            waiting = task.status == "confirm"
            if waiting:
                task.status, task.ended = "cancelled", time.monotonic()
                task.error = self._said(
                    task, Cancelled("the upload was cancelled; nothing was stored")
                )
        if waiting:
            task.stack.close()

    def cancel_scan(self, task: Task) -> None:
        """Her scanned final cancelled while it waits for OCR: the upload deleted with its
        queued OCR job and kept scan (scanned_decisions.cancel), nothing stored; a Conflict
        (`scan.not_waiting`) once the worker has taken it. Called off the event loop."""
        scan_id = (task.result or {}).get("scan_id")
        if task.status != "ocr" or scan_id is None:
            return
        scanned_decisions.cancel(task.view, int(scan_id))
        with self.lock:
            task.status, task.ended = "cancelled", time.monotonic()
            task.error = self._said(task, Cancelled("the upload was cancelled; nothing was stored"))

    def _start(self, task: Task, *, accept_open: bool) -> None:
        context = contextvars.copy_context()
        self.pool.submit(context.run, self._work, task, accept_open)

    def _stage(self, task: Task, name: str) -> None:
        if task.cancel.is_set() and name != "learning":  # "learning": already written
            raise Cancelled("the upload was cancelled; nothing was stored", code="upload.cancelled")
        task.stages.append(name)

    def _work(self, task: Task, accept_open: bool) -> None:
        status, keep = "failed", False
        try:
            task.result = finals.upload_final(
                task.view,
                task.case,
                task.path,
                source_name=upload_names.source(task.name),
                accept_open_changes=accept_open,
                on_stage=lambda name: self._stage(task, name),
                **task.given,
            )
            status = "done"
        except finals.OpenRevisions as exc:
            task.revisions, status, keep = exc, "confirm", True
        except ScannedDecision:  # a scan: kept and queued for OCR, stored once it is read
            status = self._queue_scan(task)
        except Cancelled as exc:
            task.error, status = self._said(task, exc), "cancelled"
        except AppError as exc:
            task.error = self._said(task, exc)
        except Exception as exc:  # never silent: said on her page, the trace in the log
            logger.exception("final upload of %s failed", task.case)
            task.error = AppError(f"internal error while storing the final ({type(exc).__name__})")
        finally:
            with self.lock:
                task.status = status
                if status != "confirm":
                    task.ended = time.monotonic()
            if not keep:
                task.stack.close()

    def _queue_scan(self, task: Task) -> str:
        """Her final is a scan: kept and queued for OCR ("ocr"), or refused ("failed")."""
        try:
            task.result = scanned_decisions.queue(
                task.view, "final", task.case, task.path, task.given, upload_names.source(task.name)
            )
            return "ocr"
        except AppError as exc:
            task.error = self._said(task, exc)
        except Exception as exc:  # never silent: said on her page, the trace in the log
            logger.exception("queueing the scanned final of %s failed", task.case)
            why = f"internal error while keeping the scan ({type(exc).__name__})"
            task.error = AppError(why, code="internal")
        return "failed"

    def _said(self, task: Task, exc: AppError) -> AppError:
        """The refusal as the form shows it: the file by its own name, the form as filled."""
        message = str(exc).replace(str(task.path), task.name).replace(str(task.path.parent), "")
        refused = type(exc).__new__(type(exc))
        refused.__dict__.update(exc.__dict__)
        refused.args = (message,)
        refused.fields = dict(task.filled)
        return refused

    def _prune(self) -> None:
        now = time.monotonic()
        with self.lock:
            for token in [t for t, v in self.tasks.items() if v.ended and now - v.ended > KEEP_S]:
                del self.tasks[token]


def stages_of(task: Task) -> list[dict]:
    """The stages as her page lists them: each {name, state: done | now | next | skipped}."""
    begun = task.stages
    out = [{"name": "received", "state": "done"}]
    if task.status == "ocr":  # a scan: it waits for OCR; the stages run once it is read
        out.append({"name": "ocr", "state": "now"})
        return out + [{"name": n, "state": "next"} for n in finals.STAGES]
    for name in finals.STAGES:
        if name in begun:
            state = "now" if name == begun[-1] and task.status == "running" else "done"
        elif name == "aligning" and begun and finals.STAGES.index(begun[-1]) > 3:
            state = "skipped"  # no draft of ours to align with
        else:
            state = "next"
        out.append({"name": name, "state": state})
    return out
