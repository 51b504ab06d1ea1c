"""The desk's menu and what waits for the chair ("מה מחכה לי").

NAV is the menu: six items, each standing for a group of pages (the current page's item is
marked) and, for "תיקים" and "לבדיקתי", a badge counting what waits there. CARDS are the things
that need her, one card each with its count and the page where she does it; `counts(view)` reads
every card's count once, in one connection (the desk reads it once per page load: core.signed_in,
for the pages a browser asks for). Each count comes from the list its page shows — the service
where it keeps a count (metadata.awaiting, the reminders' idle cases), else learning/waiting.counts
(store/review_queue.WAITING), the same filter counted in SQL — so a card never says 3 where its page shows 2. What she reads
is Hebrew only: what waits and where; never a setting or a command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...learning import waiting
from ...learning.arrival import metadata
from ...ops.tasks import reminders


@dataclass(frozen=True)
class Item:
    href: str
    label: str
    badge: str | None  # the group of CARDS its badge counts, or None
    paths: tuple[str, ...]  # the pages it stands for: the path itself or what starts with it/


NAV = (
    Item("/", "היום", None, ("/",)),
    Item("/search", "חיפוש", None, ("/search", "/source")),
    Item("/cases", "תיקים", "cases", ("/cases", "/uploads")),
    Item("/review", "לבדיקתי", "review", ("/review", "/training", "/audit", "/learning")),
    Item("/methodology", "מתודולוגיה", None, ("/methodology",)),
    Item("/system", "מערכת", None, ("/system", "/health", "/reminders")),
)


def current(path: str) -> str | None:
    """The href of the menu item standing for `path` (/training/voice -> /review)."""
    for item in NAV:
        for root in item.paths:
            if path == root or (root != "/" and path.startswith(root + "/")):
                return item.href
    return None


@dataclass(frozen=True)
class Card:
    key: str
    label: str  # what waits, in her words
    said: str  # what to do there
    href: str
    group: str  # the menu item's badge that counts it: review | cases
    # (the chair's App, a connection) -> how many; None: counted with the others of
    # learning/waiting.counts (store/review_queue.WAITING, one statement for them all)
    read: Callable[[Any, Any], int] | None = None


def _metadata(view: Any, conn: Any) -> int:
    return metadata.awaiting(conn, 0)["count"]  # health's and /training/metadata's list


def _stale(view: Any, conn: Any) -> int:
    return reminders(view)["count"]  # /reminders' list (ops.tasks.reminders)


CARDS = (
    Card(
        "lessons",
        "לקחים מוצעים",
        "לאשר, לדחות או לערוך",
        "/review?lane=proposed",
        "review",
    ),
    Card(
        "escalations",
        "לקחים שהפאנל העביר להכרעתך",
        "הפאנל לא הסכים או שמדובר במהות",
        "/review?lane=escalations",
        "review",
    ),
    Card(
        "curator",
        "הערות כתיבה מקריאת ההחלטות שלך",
        "לאשר או לדחות כל הערה",
        "/review?lane=curator",
        "review",
    ),
    Card(
        "panel_approved",
        "לקחים שהפאנל אישר בעצמו",
        "לעיון; אפשר לפסול (וטו)",
        "/review?lane=panel_approved",
        "review",
    ),
    Card(
        "principles",
        "עקרונות משפטיים לאישור",
        "לאשר או לדחות",
        "/review?lane=principles",
        "review",
    ),
    Card(
        "principles_to_confirm",
        "עקרונות שהפאנל אישר וממתינים לאישורך",
        "לאשר או למשוך מהחיפוש",
        "/review?lane=to_confirm",
        "review",
    ),
    Card(
        "principles_returned",
        "עקרונות שהמקור שלהם השתנה",
        "אינם בחיפוש עד שתכריעי: למשוך או לדחות",
        "/review?lane=returned",
        "review",
    ),
    Card(
        "voice",
        "מסמכי קול לבדיקה",
        "כל טענה לצד המילים שלך בהחלטה",
        "/training/voice",
        "review",
    ),
    Card(
        "enrichment",
        "הצעות תקציר, סיכום ותגיות",
        "להחלטות הוועדה: לאשר או לדחות",
        "/training/enrichment",
        "review",
    ),
    Card(
        "metadata",
        "החלטות ועדה שחסרים בהן פרטים",
        "אינן ניתנות לחיפוש עד שתשלימי אותם",
        "/training/metadata",
        "review",
        _metadata,
    ),
    Card(
        "copy_substance",
        "טיוטות שהועתקה אליהן מהות",
        "בדיקת ההעתקה מצאה קטע מתיק אחר",
        "/cases#copy",
        "cases",
    ),
    Card(
        "missing_precedents",
        "תקדימים חסרים בספרייה",
        "פסקי דין שהחלטותייך מצטטות: להעלות",
        "/cases#missing",
        "cases",
    ),
    Card(
        "ambiguous",
        "ציטוטים שכמה פסקי דין תואמים להם",
        "לבחור את פסק הדין הנכון",
        "/cases#ambiguous",
        "cases",
    ),
    Card("stale", "תיקים שלא זזו זמן רב", "לבדוק מה מעכב אותם", "/reminders", "cases", _stale),
)
GROUPS = {"review": "לבדיקתי", "cases": "תיקים"}


def counts(view: Any, conn: Any = None) -> dict[str, int]:
    """Every card's count, read once, in one connection (`conn`, else one of its own): the cards
    without a `read` together in one statement (learning/waiting.counts), the others by their
    service (the decisions awaiting metadata,
    the stale cases)."""
    if conn is None:
        with view.store.connection() as own:
            return counts(view, own)
    counted = waiting.counts(conn)
    return {card.key: card.read(view, conn) if card.read else counted[card.key] for card in CARDS}


def badges(counts: dict[str, int]) -> dict[str, int]:
    """What the menu's badges say: per group, the sum of its cards' counts."""
    return {g: sum(counts.get(c.key, 0) for c in CARDS if c.group == g) for g in GROUPS}


def waiting_words(n: int) -> str:
    """The badge read aloud: "ממתין אחד", "3 ממתינים"."""
    return "ממתין אחד" if n == 1 else f"{n} ממתינים"
