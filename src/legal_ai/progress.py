"""What long work (ingest, reindex, eval, `db backup`) tells whoever watches it: a phase with its
total and unit, then how much of it is done, what it is working on and the last thing it wrote.

The work calls a `Progress`; the default, `QUIET`, watches nothing. The command line's watcher
(cli/progress.py) draws a bar on a terminal, writes a JSON line every few seconds without one,
and on Ctrl-C says where the work stopped."""

from __future__ import annotations


class Progress:
    """A watcher of long work. This one ignores everything (the library's and the worker's
    callers); the command line passes its own."""

    def start(self, label: str, total: int | None, unit: str) -> None:
        """A phase begins: `label` (e.g. `ingest`, `reindex external chunks`), its `total` in
        `unit`s (None when not known)."""

    def update(self, done: int, *, current: str | None = None, last: str | None = None) -> None:
        """`done` of the phase's total are finished; `current` is what is worked on now (a
        file's name under the folder named, a table), `last` the last thing written (an item's
        doc_id)."""


QUIET = Progress()
