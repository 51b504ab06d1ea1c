"""The case list as she narrows it (`/cases?q=&status=&waiting=1&sort=&page=`): a search by
case number or parties (niqqud, geresh and gershayim folded, so `עע"מ` finds `עע״מ`), a status,
only the cases where something waits for her, sorted by last activity (default), by case number
or by parties, `PAGE` cases a page. Every choice is kept in the page's links; a value the form
does not offer is read as no choice (the whole list), never an error."""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlencode

from ...text.hebrew import normalize
from .case_view import STATUS

PAGE = 25
SORTS = {
    "activity": "פעילות אחרונה",
    "number": "מספר התיק",
    "parties": "הצדדים",
}


@dataclass(frozen=True)
class Choice:
    """What she asked of the list."""

    q: str = ""
    status: str = ""
    waiting: bool = False
    sort: str = "activity"
    page: int = 1

    @classmethod
    def of(cls, query: dict) -> Choice:
        page = str(query.get("page") or "1")
        sort = str(query.get("sort") or "activity")
        status = str(query.get("status") or "")
        return cls(
            q=" ".join(str(query.get("q") or "").split())[:200],
            status=status if status in STATUS else "",
            waiting=str(query.get("waiting") or "") == "1",
            sort=sort if sort in SORTS else "activity",
            page=int(page) if page.isdigit() and int(page) > 0 else 1,
        )

    def url(self, **changed) -> str:
        """The list's address with this choice, `changed` applied (a new filter: page 1)."""
        values = {
            "q": self.q,
            "status": self.status,
            "waiting": "1" if self.waiting else "",
            "sort": self.sort,
            "page": str(self.page),
        }
        values.update({k: str(v) for k, v in changed.items()})
        values["sort"] = "" if values["sort"] == "activity" else values["sort"]
        values["page"] = "" if values["page"] == "1" else values["page"]
        kept = {k: v for k, v in values.items() if v}
        return "/cases" + (f"?{urlencode(kept)}" if kept else "")


def chosen(rows: list[dict], query: dict) -> dict:
    """The rows she asked for, sorted and paged, and what the page says of them."""
    choice = Choice.of(query)
    wanted = normalize(choice.q).casefold()
    found = [
        r
        for r in rows
        if (not wanted or wanted in _searchable(r))
        and (not choice.status or r["status"] == choice.status)
        and (not choice.waiting or r["waiting"])
    ]
    if choice.sort == "number":
        found.sort(key=lambda r: normalize(r["case_number"]))
    elif choice.sort == "parties":
        found.sort(key=lambda r: (not r["parties"], normalize(r["parties"] or "")))
    pages = max(1, math.ceil(len(found) / PAGE))
    page = min(choice.page, pages)
    first = (page - 1) * PAGE
    return {
        "cases": found[first : first + PAGE],
        "known": [r["case_number"] for r in rows],  # every case: a citation links to its page
        "listing": {
            "choice": choice,
            "total": len(found),
            "all": len(rows),
            "first": first + 1 if found else 0,
            "last": min(first + PAGE, len(found)),
            "page": page,
            "pages": pages,
            "previous": choice.url(page=page - 1) if page > 1 else None,
            "next": choice.url(page=page + 1) if page < pages else None,
            "statuses": STATUS,
            "sorts": SORTS,
            "narrowed": bool(choice.q or choice.status or choice.waiting),
        },
    }


def _searchable(row: dict) -> str:
    return normalize(f"{row['case_number']} {row['parties'] or ''}").casefold()
