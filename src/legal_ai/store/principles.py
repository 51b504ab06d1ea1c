"""SQL of the principles of rulings (case_law_principles, their panel votes and canonical
principles) and of the rulings they are extracted from. Every function takes the caller's
connection."""

from __future__ import annotations

from ..corpora import Corpus
from .rows import Conn, one
from .units import ChunkRow


def insert_principle(
    conn: Conn,
    corpus: Corpus,
    case_law_id: int,
    unit: ChunkRow,
    supporting_quote: str,
    review_status: str,
    reviewed_by: str | None = None,
    *,
    votes: int | None = None,
    score: float | None = None,
    models: str | None = None,
    canonical_id: int | None = None,
    job_id: int | None = None,
) -> int:
    """A principle of a ruling, grounded in a quote at `unit.char_start:char_end` (with the
    panel's votes, mean score and models when the panel extracted it, and its canonical)."""
    return one(
        conn.execute(
            "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text, supporting_quote,"
            " page, char_start, char_end, review_status, reviewed_by, text_hash, analyzed, analyzer,"
            " embedding, embedder, embedded_hash, votes, score, models, canonical_id, job_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " RETURNING id",
            (
                corpus.scope_value,
                case_law_id,
                unit.text,
                supporting_quote,
                unit.page,
                unit.char_start,
                unit.char_end,
                review_status,
                reviewed_by,
                unit.text_hash,
                unit.analyzed,
                unit.analyzer,
                unit.embedding,
                unit.embedder,
                unit.text_hash,
                votes,
                score,
                models,
                canonical_id,
                job_id,
            ),
        )
    )["id"]


def extractable_items(conn: Conn, source_kind: str | None, doc_id: str | None = None) -> list[dict]:
    """The rulings and decisions of one case-law corpus (or the one named `doc_id`) with text."""
    return conn.execute(
        "SELECT id, doc_id, case_number, court, is_binding, content, page_starts, content_hash,"
        " source_kind FROM case_law WHERE source_kind = %(kind)s AND doc_type IN ('ruling', 'decision') AND content <> ''"
        " AND (%(doc_id)s::text IS NULL OR doc_id = %(doc_id)s) ORDER BY id",
        {"kind": source_kind, "doc_id": doc_id},
    ).fetchall()


def extractable_item(conn: Conn, item_id: int) -> dict | None:
    """One ruling or decision (of either case-law corpus) by id, with its text and its hash."""
    return conn.execute(
        "SELECT id, doc_id, case_number, court, is_binding, content, page_starts, content_hash,"
        " source_kind FROM case_law WHERE id = %s AND doc_type IN ('ruling', 'decision')"
        " AND content <> ''",
        (item_id,),
    ).fetchone()


def panel_principles(conn: Conn) -> list[dict]:
    """The principles the panel decided or left to the chair (never those she decided), with
    whether each is its canonical's first occurrence (a new principle, not a link)."""
    return conn.execute(
        "SELECT p.id, p.case_law_id, p.canonical_id, p.review_status, p.votes, p.score,"
        " p.rule_text, c.doc_id, (p.canonical_id IS NULL OR p.id = (SELECT min(o.id) FROM"
        " case_law_principles o WHERE o.canonical_id = p.canonical_id)) AS first"
        " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE p.votes IS NOT NULL AND p.review_status IN ('approved', 'proposed')"
        " AND (p.reviewed_by IS NULL OR p.reviewed_by = 'panel') ORDER BY p.id"
    ).fetchall()


def corpus_principles(conn: Conn, source_kind: str) -> list[dict]:
    """Every principle of one corpus (any status) with its embedding: what a new candidate is
    matched against (never another corpus's)."""
    return conn.execute(
        "SELECT id, case_law_id, rule_text, supporting_quote, canonical_id, review_status,"
        " embedding, embedder FROM case_law_principles WHERE source_kind = %s ORDER BY id",
        (source_kind,),
    ).fetchall()


def insert_canonical(conn: Conn, source_kind: str, rule_text: str) -> int:
    return one(
        conn.execute(
            "INSERT INTO canonical_principles (source_kind, rule_text) VALUES (%s, %s) RETURNING id",
            (source_kind, rule_text),
        )
    )["id"]


def set_principle_canonical(conn: Conn, principle_id: int, canonical_id: int) -> None:
    conn.execute(
        "UPDATE case_law_principles SET canonical_id = %s WHERE id = %s",
        (canonical_id, principle_id),
    )


def list_principles(
    conn: Conn,
    status: str | None = None,
    *,
    limit: int | None = None,
    offset: int = 0,
    unconfirmed: bool = False,
    returned: bool | None = None,
) -> list[dict]:
    """Principles with their source (for the term), the panel's record and how many
    occurrences their canonical has; by id, `limit` rows after `offset` (None: all).
    `returned`: only those returned to the chair (True), none of them (False), or both."""
    return conn.execute(
        "SELECT p.id, p.source_kind, p.rule_text, p.supporting_quote, p.page, p.votes, p.score,"
        " p.models, p.review_status, p.reviewed_by, p.confirmed_by, p.review_reason,"
        " p.returned_reason, p.returned_at, p.canonical_id, c.doc_id, c.case_number,"
        " c.court, c.is_binding, CASE WHEN p.canonical_id IS NULL THEN 1 ELSE"
        " (SELECT count(*) FROM case_law_principles o WHERE o.canonical_id = p.canonical_id)"
        " END AS occurrences, ruling_corroboration(p.case_law_id) AS corroboration"
        " FROM case_law_principles p JOIN case_law c ON c.id = p.case_law_id"
        " WHERE (%(status)s::text IS NULL OR p.review_status = %(status)s)"
        " AND (NOT %(unconfirmed)s OR (p.review_status = 'approved' AND p.reviewed_by = 'panel'"
        " AND p.confirmed_by IS NULL))"
        " AND (%(returned)s::boolean IS NULL OR (p.returned_at IS NOT NULL) = %(returned)s)"
        " ORDER BY p.id LIMIT %(limit)s OFFSET %(offset)s",
        {
            "status": status,
            "limit": limit,
            "offset": offset,
            "unconfirmed": unconfirmed,
            "returned": returned,
        },
    ).fetchall()


def get_principle(conn: Conn, principle_id: int, *, lock: bool = False) -> dict | None:
    query = _PRINCIPLE_LOCKED if lock else _PRINCIPLE
    return conn.execute(query, (principle_id,)).fetchone()


_PRINCIPLE = "SELECT * FROM case_law_principles WHERE id = %s"
_PRINCIPLE_LOCKED = _PRINCIPLE + " FOR UPDATE"


def insert_principle_votes(
    conn: Conn, principle_id: int, source_kind: str, votes: list[dict]
) -> None:
    """The panel's votes on one principle: each model of the panel, whether it proposed it,
    its score, its reason (None when it gave none), and the extraction call it rests on (the
    database checks the call)."""
    for vote in votes:
        conn.execute(
            "INSERT INTO principle_votes (principle_id, source_kind, model, model_call_id, voted,"
            " score, reason) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (
                principle_id,
                source_kind,
                vote["model"],
                vote["model_call_id"],
                vote["voted"],
                vote["score"],
                vote.get("reason"),
            ),
        )


def tally_principle(conn: Conn, principle_id: int) -> dict:
    """Have the database count a principle's votes (its gate computes votes, score and models
    from principle_votes on every update): the row as counted."""
    return one(
        conn.execute(
            "UPDATE case_law_principles SET votes = NULL WHERE id = %s"
            " RETURNING id, votes, score, models, review_status",
            (principle_id,),
        )
    )


def set_principle_reason(conn: Conn, principle_id: int, reason: str) -> None:
    """Why a proposed principle waits for the chair (an ungrounded rule, say)."""
    conn.execute(
        "UPDATE case_law_principles SET review_reason = %s WHERE id = %s AND"
        " review_status = 'proposed'",
        (reason, principle_id),
    )


def confirm_principle(conn: Conn, principle_id: int) -> dict:
    """The chair's confirmation of what the panel approved (the gate: her role, once; the
    audit trigger records it)."""
    return one(
        conn.execute(
            "UPDATE case_law_principles SET confirmed_by = 'chair' WHERE id = %s RETURNING id,"
            " source_kind, case_law_id, rule_text, supporting_quote, page, review_status,"
            " reviewed_by, reviewed_at, review_reason, confirmed_by, confirmed_at",
            (principle_id,),
        )
    )


def set_principle_review(
    conn: Conn, principle_id: int, status: str, actor: str, reason: str | None
) -> dict:
    return one(
        conn.execute(
            "UPDATE case_law_principles SET review_status = %s, reviewed_by = %s, review_reason = %s"
            " WHERE id = %s RETURNING id, source_kind, case_law_id, rule_text, supporting_quote, page,"
            " review_status, reviewed_by, reviewed_at, review_reason",
            (status, actor, reason, principle_id),
        )
    )


def principle_cap_taken(conn: Conn, case_law_id: int) -> tuple[int, int]:
    """The cap of new principles per decision as the deployment recorded it (migration 0040,
    `principle_cap_value`), and how many of them the decision already has over all its text
    versions (counted, neither rejected nor vetoed)."""
    row = one(
        conn.execute(
            "SELECT principle_cap_value() AS cap, (SELECT count(*) FROM case_law_principles p"
            " WHERE p.case_law_id = %s AND p.cap_counted"
            " AND p.review_status NOT IN ('rejected', 'vetoed')) AS taken",
            (case_law_id,),
        )
    )
    return int(row["cap"]), int(row["taken"])


def record_principle_cap(conn: Conn, value: int, *, replace: bool = False) -> int:
    """Record the deployment's HALACHA_PANEL_MAX_NEW (the login's own role: no request role
    writes deployment_settings). Recorded once: an existing value is kept unless `replace`
    (`legal-ai db migrate`). Returns the value in force."""
    cap = "SELECT principle_cap_value() AS cap"
    recorded = one(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM deployment_settings WHERE name = 'halacha_panel_max_new')"
            " AS recorded, has_table_privilege(current_user, 'deployment_settings', 'INSERT')"
            " AS may_write"
        )
    )
    if not recorded["may_write"] or (recorded["recorded"] and not replace):
        # a login that may not record (an agent's own) reads what the deployment recorded
        return int(one(conn.execute(cap))["cap"])
    insert = "INSERT INTO deployment_settings (name, value) VALUES ('halacha_panel_max_new', %s)"
    if replace:
        conn.execute(
            insert + " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value,"
            " recorded_at = now(), recorded_by = current_user"
            " WHERE deployment_settings.value <> EXCLUDED.value",
            (int(value),),
        )
    else:
        conn.execute(insert + " ON CONFLICT (name) DO NOTHING", (int(value),))
    return int(one(conn.execute(cap))["cap"])
