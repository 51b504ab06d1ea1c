"""Existing data re-keyed by one identity per ruling (migration 0029; again after 0056, when the
citation parser and a ruling's identity read more of what decisions write).

Before 0029 a ruling was looked up by its number/year alone, and a district's spellings were
different keys: a citation of `עע"מ 1234/05` could be linked to `בג"ץ 1234/05`, one of `ערר (מרכז)
1042/23` to `ערר (תל אביב) 1042/23`, and `ערר (ת"א) 1042/23` and `ערר (תל אביב) 1042/23` were two
authorities. The migration marks a re-key pending; `run_pending` (run by the application right
after migrating, `legal-ai db migrate` and every start of the CLI, server or worker) does it with
the one normalizer, in one transaction:

1. every case key spelled as the normalizer spells it now (`ערר (ת"א) 5/24` → `ערר (תל אביב)
   5/24`; the tables referencing `cases` follow, history tables keep what they recorded; two
   keys that now spell one case are both kept and reported, to be merged by hand), and every
   library item's identity columns from its case number;
2. every stored citation read again from its text: one moved to the authority its text now
   names (folded spellings merge; a citation merged under another court's or district's key is
   split off), emptied authorities dropped;
3. every link but the chair's own picks decided again by the whole identity (ambiguous ones keep
   their candidates), missing precedents reopened or resolved, corroboration recounted;
4. every digest's pointer keyed and linked again.

What changed is reported once (`db migrate` prints it) and kept in `legal-ai health`
(`library_rekey`) until marked seen (`legal-ai citations rekey-report --seen`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import arrival as arrival_store
from ...store import citations as citation_store
from ...store import jsonable
from ...store import rekeys as store
from ...store.rows import Conn
from ...text import citations as text_citations
from ...text.case_numbers import identity_columns, normalize_case_number
from ..library import links as library_links
from . import upkeep as arrival

if TYPE_CHECKING:
    from ...context import Context
    from ...store import Store

GRAPH_KINDS = ("ruling", "reporter", "statute")
SHOWN = 50  # changed links listed in a report (the counts are whole)


# The migrations that leave a re-key pending: 0029_ruling_identity, and 0056 (the citations
# and identities as the parser and case_id read them since).
AFTER_MIGRATIONS = frozenset({29, 56})
STEP = (
    "the library re-keyed by one identity per ruling (after migration 0029 or 0056): case keys "
    "spelled as the normalizer spells them, each ruling's identity and each stored citation read "
    "again, links decided again, digests linked again; what changed is printed and kept in "
    "`legal-ai health` until marked seen"
)


def planned(url: str, versions: list[int]) -> str | None:
    """What the re-key will do when the database at `url` is migrated by `versions` (the
    migrations pending), or None when it will not run: read only (`db migrate --dry-run`)."""
    return STEP if AFTER_MIGRATIONS & set(versions) or store.waiting(url) else None


def run_pending(db: Store) -> dict | None:
    """Run the re-key the migration left pending (with the application's login: `db`); its
    report, or None when none is pending."""
    with db.transaction() as conn:
        row = store.pending(conn)
        if row is None:
            return None
        citation_store.lock_citations(conn)
        report = rekey(conn)
        store.finish(conn, row["id"], report)
    return report


def rekey(conn: Conn) -> dict:
    renamed, clashes = _case_keys(conn)
    keyed = _identities(conn)
    before = store.links(conn)
    moved, emptied = _citations(conn)
    dropped = store.drop_emptied(conn, emptied) if emptied else 0
    store.unlink_all(conn)
    library_links.link_library(conn)
    arrival_store.reopen_precedents(conn)
    digests = _digests(conn)
    after = store.links(conn)
    changed = _changed(before, after)
    report = {
        "case_keys_respelled": renamed,
        "case_keys_clashing": clashes,
        "rulings_keyed": keyed,
        "citations_moved": moved,
        "authorities_dropped": dropped,
        "links_changed": len(changed),
        "links": changed[:SHOWN],
        "ambiguous": sum(1 for a in after.values() if a["candidates"] and not a["case_law_id"]),
        "digests_changed": digests,
    }
    report["changed"] = bool(renamed or clashes or moved or dropped or changed or digests)
    return report


def _case_keys(conn: Conn) -> tuple[int, list[dict]]:
    """Every case number respelled as `normalize_case_number` spells it now: (values respelled,
    the case keys left because another case already has their new spelling)."""
    renamed, clashes = 0, []
    for old in store.case_keys(conn):
        new = normalize_case_number(old)
        if new == old:
            continue
        if store.rename_case(conn, old, new):
            renamed += 1
        else:
            clashes.append({"case_number": old, "same_as": new})
    kept = {c["case_number"] for c in clashes}
    for table in store.loose_case_columns(conn):
        for old in store.case_numbers_in(conn, table):
            new = normalize_case_number(old)
            if new != old and old not in kept:
                renamed += bool(store.respell(conn, table, old, new))
    return renamed, clashes


def _identities(conn: Conn) -> int:
    count = 0
    for row in store.rulings(conn):
        columns = identity_columns(row["case_number"])
        if any(row[k] != v for k, v in columns.items()):
            store.set_identity(conn, row["id"], columns)
            count += 1
    return count


def _citations(conn: Conn) -> tuple[int, list[int]]:
    """Each stored citation under the authority its text names today: (moved, emptied ids)."""
    moved, emptied = 0, set()
    for row in store.citation_rows(conn):
        cited = [c for c in text_citations.extract(row["text"]) if c.kind in GRAPH_KINDS]
        if not cited or cited[0].ref == row["ref"]:
            continue
        store.move_citation(conn, row["id"], cited[0].ref, cited[0].kind)
        emptied.add(row["authority_id"])
        moved += 1
    return moved, sorted(emptied)


def _digests(conn: Conn) -> int:
    changed = 0
    for row in arrival_store.digest_pointers(conn):
        was = (row["points_to_key"], row["case_law_id"])
        arrival.link_digest(conn, row["id"], row["points_to"])
        now = arrival_store.digest_pointer(conn, row["id"])
        changed += (now["points_to_key"], now["case_law_id"]) != was
    return changed


def _changed(before: dict[int, dict], after: dict[int, dict]) -> list[dict]:
    """Authorities whose link is not what it was: {ref, before, after, ambiguous}."""
    out = []
    for authority_id, now in after.items():
        was = before.get(authority_id)
        if was is not None and was["case_law_id"] == now["case_law_id"]:
            continue
        if was is None and now["case_law_id"] is None:
            continue
        out.append(
            {
                "ref": now["ref"],
                "before": was["linked_case_number"] if was else None,
                "after": now["linked_case_number"],
                "candidates": len(now["candidates"]) if not now["case_law_id"] else 0,
            }
        )
    return out


def unseen(app: Context) -> list[dict]:
    """Re-keys that changed something and nobody has marked seen (for `legal-ai health`)."""
    with app.store.connection() as conn:
        return [jsonable(r) for r in store.unseen(conn)]


def mark_seen(app: Context) -> int:
    with app.store.transaction() as conn:
        return store.mark_seen(conn, app.principal.actor)


def describe(report: dict) -> str:
    """A re-key report in lines: counts, then each link that changed."""
    lines = [
        f"library re-keyed by one identity per ruling: {report.get('case_keys_respelled', 0)}"
        f" case number(s) respelled, {report['rulings_keyed']} ruling(s) keyed,"
        f" {report['citations_moved']} citation(s) moved to their own authority,"
        f" {report['authorities_dropped']} authority(ies) merged away,"
        f" {report['links_changed']} link(s) changed, {report['ambiguous']} ambiguous,"
        f" {report['digests_changed']} digest(s) re-keyed"
    ]
    for clash in report.get("case_keys_clashing", []):
        lines.append(
            f"  two cases now spell one: {clash['case_number']} and {clash['same_as']} (both kept;"
            " merge them by hand)"
        )
    for link in report.get("links", []):
        now = link["after"] or (
            f"ambiguous ({link['candidates']} candidates)" if link["candidates"] else "not linked"
        )
        lines.append(f"  {link['ref']}: {link['before'] or 'not linked'} -> {now}")
    return "\n".join(lines)
