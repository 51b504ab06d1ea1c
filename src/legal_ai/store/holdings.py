"""What the library holds, by kind and by year (the desk's /system/corpus):
rulings, statutes and other external sources (case_law, external_upload, by doc_type), the
committee's decisions (case_law, internal_committee), her signed finals (documents of the style
corpus) and digests — counted in one read. A year is the item's own date (decided_on; a digest's
published_on); an item without one is counted under no year. Statutes are ingested a section a
row: `laws` counts the distinct laws (law_title, else the doc_id) beside the sections."""

from __future__ import annotations

from .rows import Conn

_HOLDINGS = (
    "SELECT kind, year, GROUPING(year) = 1 AS total, count(*) AS items,"
    " count(DISTINCT law) AS laws, count(*) FILTER (WHERE NOT searchable) AS not_searchable"
    " FROM ("
    " SELECT CASE WHEN source_kind = 'internal_committee' THEN 'decision' ELSE doc_type END"
    " AS kind, extract(year FROM decided_on)::int AS year,"
    " CASE WHEN doc_type = 'legislation' THEN coalesce(nullif(btrim(law_title), ''), doc_id)"
    " END AS law, searchable FROM case_law"
    " UNION ALL SELECT 'final', extract(year FROM decided_on)::int, NULL, searchable"
    " FROM documents WHERE corpus = 'style'"
    " UNION ALL SELECT 'digest', extract(year FROM published_on)::int, NULL, searchable"
    " FROM digests"
    ") held GROUP BY GROUPING SETS ((kind, year), (kind))"
    " ORDER BY kind, GROUPING(year) DESC, year DESC NULLS LAST"
)


def holdings(conn: Conn) -> list[dict]:
    """Per kind (ruling, legislation, reference, decision, final, digest): one row with
    `total` true (all its items), then one per year, latest first, an undated row (`year`
    None) last; each with `items`, `laws` (statutes only) and `not_searchable` (items the search
    does not reach yet). A kind with no item has no row."""
    return conn.execute(_HOLDINGS).fetchall()
