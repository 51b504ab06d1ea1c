"""A case's timeline in date order, in the chair's words (the case page): each
draft version and its copy check, her final and its comparison with the draft, the citations it
brought, the learning from it, each lesson proposed and decided, each promote into the
methodology, each precedent she attached. An event: {at, kind, said (Markup), anchor}."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from . import labels
from .labels import bdi, mixed, percent, plural

# A lesson's decision, by who decided and what it became.
DECIDED = {
    ("chair", "approved"): "אישרת את הלקח",
    ("chair", "rejected"): "דחית את הלקח",
    ("chair", "vetoed"): "פסלת את הלקח",
    ("panel", "approved"): "הפאנל אישר את הלקח בעצמו",
    ("panel", "rejected"): "הפאנל דחה את הלקח",
}
JOB_ENDED = {
    "done": "הלמידה מההחלטה הסתיימה",
    "failed": "הלמידה מההחלטה נכשלה",
}


def _copy_line(report: dict | None) -> Markup:
    if not report:
        return Markup("")
    passages = report.get("passages", [])
    if not passages:
        return Markup(" · בדיקת ההעתקה: לא נמצאו קטעים מהחלטות אחרות")
    kinds = [k for k in labels.COPY_KIND if any(p["kind"] == k for p in passages)]
    counts = Markup(", ").join(
        Markup("{} {}").format(
            bdi(sum(1 for p in passages if p["kind"] == k)), labels.COPY_KIND[k].split(" — ")[0]
        )
        for k in kinds
    )
    return Markup(" · בדיקת ההעתקה: {}").format(counts)


def _drafts(drafts: list[dict]) -> list[dict]:
    out = []
    for d in drafts:
        missing = d["missing_blocks"] or []
        said = Markup("טיוטה — גרסה {}").format(bdi(d["version"]))
        if missing:
            said += Markup(" · פרקים חסרים: {}").format(
                ", ".join(labels.label(b, "block") for b in missing)
            )
        said += _copy_line(d["copy_report"])
        out.append({"at": d["created_at"], "kind": "draft", "said": said, "anchor": "copy"})
    return out


def _finals(read: dict, cited: dict) -> list[dict]:
    out = []
    for h in read["history"]:
        draft = (h["metrics"] or {}).get("draft_version")
        said = Markup("ההחלטה החתומה (גרסה {}) הושוותה לטיוטה{}: שינית כ-{} מהנוסח").format(
            bdi(h["final_version"]),
            Markup(" (גרסה {})").format(bdi(draft)) if draft else "",
            percent(h["change_percent"]),
        )
        out.append({"at": h["captured_at"], "kind": "final", "said": said, "anchor": "figures"})
    final = read["final"]
    if final is not None and not read["history"]:
        said = Markup("ההחלטה החתומה התקבלה; לא נרשמה טיוטה בתיק, ולכן לא הושוותה לטיוטה")
        out.append({"at": final["created_at"], "kind": "final", "said": said, "anchor": "texts"})
    if final is not None:
        said = Markup("ציטוטים בהחלטה: {} מקושרים לספרייה · {} · {}").format(
            bdi(len(cited["linked"])),
            plural(len(cited["missing"]), "תקדים אחד חסר", "תקדימים חסרים"),
            plural(len(cited["ambiguous"]), "ציטוט אחד לבחירה", "ציטוטים לבחירה"),
        )
        out.append(
            {"at": final["updated_at"], "kind": "citations", "said": said, "anchor": "citations"}
        )
    return out


def _learning(jobs: list[dict]) -> list[dict]:
    out = []
    for job in jobs:
        said = Markup("הלמידה מההחלטה נכנסה לתור")
        out.append(
            {"at": job["created_at"], "kind": "learning", "said": said, "anchor": "learning"}
        )
        if job["finished_at"] and job["status"] in JOB_ENDED:
            said = Markup(JOB_ENDED[job["status"]])
            out.append(
                {"at": job["finished_at"], "kind": "learning", "said": said, "anchor": "learning"}
            )
    return out


def _lessons(lessons: list[dict]) -> list[dict]:
    out = []
    for r in lessons:
        text = mixed(r["text"])
        said = Markup("לקח הוצע ({}, {}): {}").format(
            labels.label(r["source"], "source"), labels.label(r["category"], "category"), text
        )
        out.append({"at": r["created_at"], "kind": "lesson", "said": said, "anchor": "learning"})
        who = "chair" if r["reviewed_by"] == "chair" else "panel"
        decided = DECIDED.get((who, r["review_status"]))
        if r["reviewed_at"] and decided:
            said = Markup("{}: {}").format(decided, text)
            out.append({"at": r["reviewed_at"], "kind": "decision", "said": said, "anchor": None})
    return out


def _promotions(rows: list[dict]) -> list[dict]:
    out = []
    for p in rows:
        d = p["details"] or {}
        said = Markup("קידמת למתודולוגיה ({}) {} ו-{}; נשמרה גרסה {}").format(
            labels.label(d.get("appeal_type"), "appeal_type"),
            plural(len(d.get("lessons") or []), "לקח אחד", "לקחים"),
            plural(len(d.get("phrases") or []), "ביטוי אחד", "ביטויים"),
            bdi(d.get("version")),
        )
        out.append({"at": p["at"], "kind": "promote", "said": said, "anchor": "promote"})
    return out


def _precedents(rows: list[dict]) -> list[dict]:
    out = []
    for p in rows:
        where = "מקושר לפסק הדין בספרייה" if p["case_law_id"] else "פסק הדין עדיין אינו בספרייה"
        said = Markup("צירפת תקדים: {} ({})").format(mixed(p["citation"]), where)
        out.append({"at": p["created_at"], "kind": "precedent", "said": said, "anchor": None})
    return out


def timeline(read: dict[str, Any], cited: dict) -> list[dict]:
    """Every event of the case, oldest first (events of one moment in the order they happen)."""
    events = [
        *_drafts(read["drafts"]),
        *_finals(read, cited),
        *_learning(read["jobs"]),
        *_lessons(read["lessons"]),
        *_promotions(read["promotions"]),
        *_precedents(read["precedents"]),
    ]
    return sorted(events, key=lambda e: e["at"])
