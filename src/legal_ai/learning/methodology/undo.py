"""Multi-level undo of a methodology profile: every change is a version (methodology.py), and
the chair steps back one change at a time, as far back as the first version.

A step back is a restore (a NEW version equal to an earlier one; history is never rewritten)
marked `undo` in its audit row. Which version a step goes back to: each version stands for a
place in the chain of changes (`place`) — a change's own number; a version an undo wrote, the
place of the version it restored. A step back from the current version restores the version
just before its place, so pressing it again goes on back (never forth to the change it undid),
and a change made after an undo is undone first. `steps` lists the newest versions, each with
its profile and the one before it (what changed, for the desk to say in words)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...auth import require_chair
from ...errors import InvalidInput, NotFound
from ...store import methodology_versions as versions_store
from . import profiles as methodology

if TYPE_CHECKING:
    from ...context import Context

MAX_STEPS = 50  # the versions listed with what changed in each (older ones: by number)


def places(current: int, sources: dict[int, int]) -> dict[int, int]:
    """version -> its place in the chain of changes (versions 1..current)."""
    out: dict[int, int] = {}
    for version in range(1, current + 1):
        source = sources.get(version)
        out[version] = out.get(source, source) if source is not None else version
    return out


def undo_target(current: int, sources: dict[int, int]) -> int | None:
    """The version a step back from `current` restores; None at the first change."""
    target = places(current, sources)[current] - 1
    return target if target >= 1 else None


def steps(app: Context, appeal_type: str, limit: int = MAX_STEPS) -> dict:
    """The newest `limit` versions (newest first), each with its profile, the profile before it
    (None for the first), whether an undo wrote it (`undid_to`: the version it went back to),
    and the version a step back would now restore (`undo_to`, None when there is none)."""
    appeal_type = methodology._profile_key(appeal_type)
    with app.store.connection() as conn:
        rows = versions_store.recent_versions(conn, appeal_type, limit + 1)
        sources = versions_store.undo_sources(conn, appeal_type)
    if not rows:
        raise NotFound(f"no methodology profile for {appeal_type!r}")
    current = rows[0]["version"]
    out = []
    for index, row in enumerate(rows[:limit]):
        before = rows[index + 1] if index + 1 < len(rows) else None
        out.append(
            {
                "version": row["version"],
                "updated_by": row["updated_by"],
                "reason": row["reason"],
                "created_at": row["created_at"],
                "profile": row["profile"],
                "before": before["profile"]
                if before and before["version"] == row["version"] - 1
                else None,
                "undid_to": sources.get(row["version"]),
            }
        )
    return {
        "appeal_type": appeal_type,
        "current": current,
        "undo_to": undo_target(current, sources),
        "steps": out,
    }


def undo(app: Context, appeal_type: str, seen_version: int) -> dict:
    """One step back from the version the chair saw (`seen_version`): InvalidInput when the
    profile was saved since (another tab: the restore checks it under the row lock, so a save
    between this read and the write is caught too) or there is nothing before it."""
    require_chair(app.principal, "undoing a methodology change")
    appeal_type = methodology._profile_key(appeal_type)
    with app.store.connection() as conn:
        latest = versions_store.recent_versions(conn, appeal_type, 1)
        sources = versions_store.undo_sources(conn, appeal_type)
    if not latest:
        raise NotFound(f"no methodology profile for {appeal_type!r}")
    current = latest[0]["version"]
    target = undo_target(current, sources)
    if target is None:
        raise InvalidInput(
            f"version {current} is the first change of the {appeal_type} methodology"
        )
    return methodology.restore(
        app,
        appeal_type,
        target,
        f"undo: back to version {target}",
        undo=True,
        expected_version=seen_version,  # checked under the profile's row lock
    )
