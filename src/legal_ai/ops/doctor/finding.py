"""One line of the doctor's report: which check, its status, what it found, what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

# ok: as it should be; info: worth knowing, nothing to do; skip: not checked (--offline, or what
# it needs failed: that line says why); warn: works, but fix it; error: broken (exit code 1).
STATUSES = ("ok", "info", "skip", "warn", "error")


class FindingLine(TypedDict):
    """A finding in `legal-ai doctor --json`: a list of these, in the checks' order."""

    check: str
    status: str  # one of STATUSES
    message: str
    fix: str | None  # None where there is nothing to do (ok, info, skip)


@dataclass(frozen=True)
class Finding:
    check: str
    status: str
    message: str
    fix: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    def as_dict(self) -> FindingLine:
        return {
            "check": self.check,
            "status": self.status,
            "message": self.message,
            "fix": self.fix,
        }


def ok(check: str, message: str) -> Finding:
    return Finding(check, "ok", message)


def info(check: str, message: str) -> Finding:
    return Finding(check, "info", message)


def skip(check: str, message: str) -> Finding:
    return Finding(check, "skip", message)


def warn(check: str, message: str, fix: str) -> Finding:
    return Finding(check, "warn", message, fix)


def error(check: str, message: str, fix: str) -> Finding:
    return Finding(check, "error", message, fix)
