"""The panels' decisions as CSV under $LEGAL_AI_HOME/audit/ (07 §0.6: reversible, backed up):
`style-panel.csv` (each style lesson the system's panel voted on: outcome, each model's vote,
the model calls) and `principle-panel.csv` (each principle it voted on: outcome, votes, score,
models, the calls), each row with every model's reason for its vote (`vote_reasons`, last: a
column added later goes at the end). A row is appended when the panel decides — to a file whose
header is this release's, else the file is written again whole first; `rebuild` writes both
files again from the database (`legal-ai learning panel-audit`), which is the record: the files
are a copy an office can read and back up without the database.
"""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ...store import panel_audit as store

if TYPE_CHECKING:
    from ...context import Context

STYLE_FIELDS = (
    "at",
    "lesson_id",
    "case_number",
    "category",
    "outcome",
    "votes",
    "model_calls",
    "text",
    "vote_reasons",
)
PRINCIPLE_FIELDS = (
    "at",
    "principle_id",
    "doc_id",
    "case_number",
    "source_kind",
    "outcome",
    "votes",
    "score",
    "models",
    "model_calls",
    "reason",
    "rule_text",
    "vote_reasons",
)
FILES = {
    "style": ("style-panel.csv", STYLE_FIELDS),
    "principle": ("principle-panel.csv", PRINCIPLE_FIELDS),
}


def folder(app: Context) -> Path:
    return app.settings.home / "audit"


def _row(fields: tuple[str, ...], row: dict) -> dict:
    out = {k: row.get(k) for k in fields}
    if row.get("at") is not None:
        out["at"] = row["at"].isoformat()
    return out


def _header(path: Path) -> list[str] | None:
    """The CSV file's header (None: no file, or an empty one)."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return next(csv.reader(handle), None)
    except FileNotFoundError:
        return None


def _append(app: Context, kind: str, rows: list[dict]) -> None:
    if not rows:
        return
    name, fields = FILES[kind]
    path = folder(app) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    header = _header(path)
    if header is not None and header != list(fields):  # an older release's columns
        rebuild(app)  # the whole file again, this one's columns (the rows are the database's)
        return
    new = header is None
    with path.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        if new:
            writer.writeheader()
        writer.writerows(_row(fields, r) for r in rows)


def style_decision(app: Context, lesson_id: int) -> None:
    """Append the style panel's decision on one lesson."""
    with app.store.connection() as conn:
        _append(app, "style", store.style_decisions(conn, lesson_id))


def principle_decision(app: Context, principle_id: int) -> None:
    """Append the principle panel's decision on one principle it just voted on."""
    with app.store.connection() as conn:
        _append(app, "principle", store.principle_decisions(conn, principle_id))


def rebuild(app: Context) -> dict:
    """Write both files again from the database (each replaced whole, atomically): {"style":
    n, "principle": n, "folder"}."""
    with app.store.connection() as conn:
        found = {"style": store.style_decisions(conn), "principle": store.principle_decisions(conn)}
    target = folder(app)
    target.mkdir(parents=True, exist_ok=True)
    for kind, rows in found.items():
        name, fields = FILES[kind]
        handle = tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", newline="", dir=target, prefix=f".{name}.", delete=False
        )
        with handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(_row(fields, r) for r in rows)
        os.replace(handle.name, target / name)
    return {
        "style": len(found["style"]),
        "principle": len(found["principle"]),
        "folder": str(target),
    }
