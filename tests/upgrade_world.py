"""A database as an earlier release left it, full (issue 24 item 1): what an office's database
held at a point of the migration history, written with SQL that fits that point's schema.

`build(conn, point, vectors)` writes one step per era (the migration that made its tables: the
library of 0001, page images of 0006, the learning loop of 0007, the engine's queue of 0012, the
desk of 0014), each branching on the point where a column or a gate differs. After it,
`empty_tables` must be empty: every table that exists at the point holds a row, so a table a
later era adds can never be skipped silently — a new point fails until its step writes one.

`snapshot` reads every row of every table as it stands, keyed by primary key, and `expected`
says what each row must read after migrating to the head: the same, but for what the upgrade
changes by design (the re-key of 0029 spells case keys as the one normalizer does; columns the
database computes are compared as computed, not as stored)."""

from __future__ import annotations

import hashlib
from collections import Counter

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from helpers import TEST_CHAIR
from legal_ai.store.rekeys import APPEND_ONLY

FIRST_RELEASE = 1  # 0001_init
BEFORE_ROLES = 9  # 0010_roles_and_history made legal_ai_agent / legal_ai_chair and their grants
BEFORE_PRINCIPLES = 14  # 0015_principles_panel made canonical_principles

CASE = "ערר (מרכז) 1001/24"
OLD_KEY = 'ערר (ת"א) 5/24'  # a case key the old normalizer kept as typed
NEW_KEY = "ערר (תל אביב) 5/24"  # how the re-key of 0029 spells it
RULING = 'עע"מ 1234/05'
UNKNOWN = 'בג"ץ 999/99'  # cited, not in the library: a missing precedent

# One text per searchable unit (embedded once per test session: the model is slow).
TEXTS = {
    "case": "בקשה להיתר בנייה לתוספת קומה בבניין מגורים ברחוב הרצל.",
    "style": "הערר נדחה. לא מצאנו פגם בהחלטת הוועדה המקומית לסרב לתוספת הקומה.",
    "ruling": "סטייה ניכרת מתכנית אינה יכולה להינתן בדרך של הקלה.",
    "ruling2": "חניה תת קרקעית נכללת בשטחי השירות לפי תקנות החישוב.",
    "decision": f"היטל השבחה חל על אישור תכנית המשביחה את המקרקעין, כאמור ב{RULING} וב{UNKNOWN}.",
    "digest": "תקציר פסק הדין: שימוש חורג בנכס מסחרי דורש פרסום לציבור.",
    "principle_ext": "סטייה ניכרת מתכנית אינה ניתנת כהקלה",
    "principle_int": "היטל השבחה חל על אישור תכנית משביחה",
    "precedent": f"{RULING} — סטייה ניכרת",
}
# What each searchable corpus is asked, and the item that answers it.
QUERIES = {
    "external": ("סטייה ניכרת בדרך של הקלה", "ruling"),
    "internal": ("היטל השבחה על אישור תכנית", "decision"),
    "digests": ("שימוש חורג בנכס מסחרי", "digest"),
    "style": ("פגם בהחלטת הוועדה המקומית", "style"),
}
# The partition of a corpus's chunks, for the search an old release ran (point's own SQL).
CHUNKS = {
    "external": ("case_law_chunks_external", "case_law", "case_law_id"),
    "internal": ("case_law_chunks_internal", "case_law", "case_law_id"),
    "digests": ("digest_chunks", "digests", "digest_id"),
    "style": ("document_chunks_style", "documents", "document_id"),
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(text: str) -> str:
    """As ingest hashed an item without pages (ingest/staging.content_hash)."""
    return sha(text + repr(None))


def vector(values) -> str:
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def insert(conn: psycopg.Connection, table: str, **values) -> int | None:
    """One row; its id when the table has one."""
    query = sql.SQL("INSERT INTO {} ({}) VALUES ({}) RETURNING *").format(
        sql.Identifier(table),
        sql.SQL(", ").join(map(sql.Identifier, values)),
        sql.SQL(", ").join(sql.Placeholder() * len(values)),
    )
    row = conn.execute(query, list(values.values())).fetchone()
    return row.get("id") if isinstance(row, dict) else None


def build(conn: psycopg.Connection, point: int, vectors: dict, analyzer) -> dict[str, int]:
    """Write the office's rows at `point` (the last migration applied); their ids by name.
    `conn`: autocommit, dict rows; `vectors`: TEXTS' embeddings; `analyzer`: the lexical one."""
    ids: dict[str, int] = {}
    _library(conn, point, ids, vectors, analyzer)
    if point >= 6:
        _page_images(conn, ids)
    if point >= 7:
        _learning(conn, point, ids)
    if point >= 12:
        _engine(conn, ids)
    if point >= 14:
        _desk(conn)
    return ids


def _unit(name: str, vectors: dict, analyzer) -> dict:
    """The searchable columns of one unit (chunk, principle, precedent) of TEXTS[name]."""
    text = TEXTS[name]
    return {
        "text_hash": sha(text),
        "analyzed": analyzer.analyze(text),
        "analyzer": analyzer.id,
        "embedding": vector(vectors[name]),
        "embedder": "e5-local",
        "embedded_hash": sha(text),
    }


def _chunk(conn, table: str, parent: str, parent_id: int, name: str, vectors, analyzer, **scope):
    text = TEXTS[name]
    insert(
        conn,
        table,
        **{parent: parent_id},
        **scope,
        ordinal=0,
        char_start=0,
        char_end=len(text),
        text=text,
        **_unit(name, vectors, analyzer),
    )


def _library(conn, point: int, ids: dict, vectors: dict, analyzer) -> None:
    """0001's tables: the embedder, its cache, cases, every corpus's items with a chunk each,
    principles in both partitions, an attached precedent."""
    insert(conn, "embedding_config", embedder="e5-local", dim=384)
    for name, text in TEXTS.items():
        insert(
            conn, "embedding_cache", embedder="e5-local", text_hash=sha(text),
            embedding=vector(vectors[name]),
        )  # fmt: skip
    for key, area in ((CASE, "building_permits"), (OLD_KEY, "betterment_levy")):
        ids[key] = insert(
            conn, "cases", case_number=key, title="ערר", practice_area=area,
            appeal_type="permit", committee="מרכז", chair_name=TEST_CHAIR,
        )  # fmt: skip
    for name, corpus, case in (("case", "case", OLD_KEY), ("style", "style", CASE)):
        ids[name] = insert(
            conn, "documents", corpus=corpus, doc_id=f"doc-{name}", case_number=case,
            practice_area="building_permits", title=name, content=TEXTS[name],
            content_hash=content_hash(TEXTS[name]), source_format="txt",
        )  # fmt: skip
        _chunk(conn, "document_chunks", "document_id", ids[name], name, vectors, analyzer,
               corpus=corpus)  # fmt: skip
    for name, number in (("ruling", RULING), ("ruling2", 'עע"מ 2222/10')):
        ids[name] = insert(
            conn, "case_law", source_kind="external_upload", doc_type="ruling",
            doc_id=f"doc-{name}", case_number=number, title=name, court="העליון",
            decided_on="2005-06-01", content=TEXTS[name], content_hash=content_hash(TEXTS[name]),
        )  # fmt: skip
    ids["decision"] = insert(
        conn, "case_law", source_kind="internal_committee", doc_type="decision",
        doc_id="doc-decision", case_number=CASE, title="החלטה", decided_on="2024-05-01",
        chair_name=TEST_CHAIR, practice_area="betterment_levy", headnote="היטל השבחה",
        summary="הערר נדחה.", tags=["היטל השבחה"], content=TEXTS["decision"],
        content_hash=content_hash(TEXTS["decision"]),
    )  # fmt: skip
    for name in ("ruling", "ruling2", "decision"):
        kind = "internal_committee" if name == "decision" else "external_upload"
        _chunk(conn, "case_law_chunks", "case_law_id", ids[name], name, vectors, analyzer,
               source_kind=kind)  # fmt: skip
    ids["digest"] = insert(
        conn, "digests", doc_id="doc-digest", title="יומון", points_to=RULING,
        case_law_id=ids["ruling"], publisher="יומון", published_on="2005-07-01",
        content=TEXTS["digest"], content_hash=content_hash(TEXTS["digest"]),
    )  # fmt: skip
    _chunk(conn, "digest_chunks", "digest_id", ids["digest"], "digest", vectors, analyzer)
    _principles(conn, point, ids, vectors, analyzer)
    precedent = {"case_number": CASE, "citation": RULING, "citation_key": 'עע"מ 1234/05',
                 "case_law_id": ids["ruling"], "note": "סטייה ניכרת"}  # fmt: skip
    if point >= 2:  # 0002: an attached precedent is searchable
        precedent |= {"search_text": TEXTS["precedent"], **_unit("precedent", vectors, analyzer)}
    ids["precedent"] = insert(conn, "case_precedents", **precedent)


def _principles(conn, point: int, ids: dict, vectors: dict, analyzer) -> None:
    """One proposed principle of a ruling, one the chair approved of a decision (from 0010 her
    decision runs as her role and names her)."""
    for name, item, kind, status in (
        ("principle_ext", "ruling", "external_upload", "proposed"),
        ("principle_int", "decision", "internal_committee", "approved"),
    ):
        row = {
            "source_kind": kind, "case_law_id": ids[item], "rule_text": TEXTS[name],
            "supporting_quote": TEXTS[item][:30], "char_start": 0, "char_end": 30,
            "review_status": status, **_unit(name, vectors, analyzer),
        }  # fmt: skip
        if point >= 10 and status == "approved":
            with conn.transaction():
                conn.execute("SET LOCAL ROLE legal_ai_chair")
                ids[name] = insert(conn, "case_law_principles", **row, reviewed_by="chair")
        else:
            ids[name] = insert(conn, "case_law_principles", **row)


def _page_images(conn, ids: dict) -> None:
    """0006: a page image of an item in each partition (the image leg's own embedder)."""
    image = vector([1.0] + [0.0] * 1023)
    for table, parent, scope in (
        ("document_page_images", "document_id", {"corpus": "case"}),
        ("document_page_images", "document_id", {"corpus": "style"}),
        ("case_law_page_images", "case_law_id", {"source_kind": "external_upload"}),
        ("case_law_page_images", "case_law_id", {"source_kind": "internal_committee"}),
    ):
        item = {"case": "case", "style": "style", "external_upload": "ruling"}.get(
            next(iter(scope.values())), "decision"
        )
        insert(
            conn, table, **{parent: ids[item]}, **scope, page=1, text_hash=sha(item),
            embedding=image, embedder="voyage-multimodal", embedded_hash=sha(item),
        )  # fmt: skip


def _learning(conn, point: int, ids: dict) -> None:
    """0007: a draft and its final analyzed, lessons (one the chair approved) with a panel's
    verdict and their audit, the held-out history, the methodology folded once, citations of
    the decision (one linked, one a missing precedent), the chair's feedback."""
    ids["draft"] = insert(
        conn, "drafts", case_number=CASE, version=1, content="טיוטה: הערר נדחה.",
        content_hash=sha("טיוטה"), blocks=Jsonb({"discussion": "הערר נדחה."}),
        appeal_type="permit", outcome="rejected", practice_area="betterment_levy",
    )  # fmt: skip
    ids["pair"] = insert(
        conn, "draft_final_pairs", case_number=CASE, status="final_received",
        draft_id=ids["draft"], style_document_id=ids["style"], case_law_id=ids["decision"],
        final_version=1,
    )  # fmt: skip
    conn.execute("UPDATE draft_final_pairs SET status = 'analyzed' WHERE id = %s", (ids["pair"],))
    lesson = {"pair_id": ids["pair"], "case_number": CASE, "block": "discussion",
              "appeal_type": "permit", "outcome": "rejected", "source": "distillation"}  # fmt: skip
    if point >= 10:
        lesson["proposed_by"] = "agent:writer"
    ids["proposed"] = insert(
        conn, "decision_lessons", **lesson, category="style", text="משפטים קצרים",
        dedupe_key="style:short",
    )  # fmt: skip
    with conn.transaction():
        if point >= 10:
            conn.execute("SET LOCAL ROLE legal_ai_chair")
        ids["approved"] = insert(
            conn, "decision_lessons", **lesson, category="phrase", text="נקדים אחרית לראשית",
            dedupe_key="phrase:opening", review_status="approved", reviewed_by="chair",
        )  # fmt: skip
    insert(conn, "panel_verdicts", lesson_id=ids["proposed"], model="openai:a", vote="approve")
    insert(
        conn, "style_distance_history", pair_id=ids["pair"], case_number=CASE, final_version=1,
        anti_pattern_total=2, final_anti_pattern_total=1, change_percent=12.5,
        word_edit_distance=10, profile_finals=1, lesson_pool_size=1, held_out=True,
        metrics=Jsonb({"sentences": 3}),
    )  # fmt: skip
    conn.execute(
        "UPDATE methodology_profiles SET version = 2, updated_by = 'chair',"
        " profile = profile || '{\"lessons\": [\"נקדים אחרית לראשית\"]}' WHERE appeal_type = 'permit'"
    )
    conn.execute(
        "INSERT INTO methodology_profile_versions (appeal_type, version, profile, updated_by,"
        " reason) SELECT appeal_type, version, profile, updated_by, 'folded'"
        " FROM methodology_profiles WHERE appeal_type = 'permit'"
    )
    text = TEXTS["decision"]
    for ref, target in ((RULING, ids["ruling"]), (UNKNOWN, None)):
        authority = insert(
            conn, "authorities", ref=ref, kind="ruling", case_law_id=target,
            corroboration=1,
        )  # fmt: skip
        start = text.index(ref)
        insert(
            conn, "decision_citations", citing_case_law_id=ids["decision"],
            authority_id=authority, text=ref, char_start=start, char_end=start + len(ref),
        )  # fmt: skip
        if target is None:
            insert(conn, "missing_precedents", authority_id=authority, first_cited_in=CASE)
    insert(conn, "chair_feedback", case_number=OLD_KEY, category="style", text="קצר יותר")


def _engine(conn, ids: dict) -> None:
    """0012: a learning job done, and the model call it made."""
    ids["job"] = insert(
        conn, "jobs", kind="learning", case_number=CASE, key=f"learning:{CASE}", status="done",
        attempts=1, result=Jsonb({"proposed": 1}), finished_at="2024-05-02T10:00:00Z",
    )  # fmt: skip
    insert(
        conn, "model_calls", stage="distill", provider="openai", model="gpt-test",
        case_number=CASE, job_id=ids["job"], prompt_hash=sha("prompt"), tokens_in=100,
        tokens_out=20, latency_ms=800, outcome="ok",
    )  # fmt: skip


def _desk(conn) -> None:
    """0014: the chair's desk password, a session, a failed sign-in."""
    insert(conn, "desk_users", name="chair", password_hash="$argon2id$v=19$m=65536,t=3,p=4$x$y")
    insert(
        conn, "desk_sessions", token_hash="a" * 64, name="chair", csrf="csrf",
        expires_at="2099-01-01T00:00:00Z",
    )  # fmt: skip
    insert(conn, "desk_login_failures", name="chair", client="10.0.0.9")


# -- what the database holds ---------------------------------------------------------------------


def tables(conn: psycopg.Connection) -> list[str]:
    """Every table of the schema (partitions too), from information_schema."""
    return [
        r["table_name"]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema ="
            " current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
        )
    ]


def counts(conn: psycopg.Connection) -> dict[str, int]:
    return {
        t: conn.execute(
            sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(t))
        ).fetchone()["n"]
        for t in tables(conn)
    }


def empty_tables(conn: psycopg.Connection) -> list[str]:
    return [t for t, n in counts(conn).items() if n == 0]


def _key_columns(conn: psycopg.Connection, table: str) -> list[str]:
    return [
        r["attname"]
        for r in conn.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
            " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary"
            " ORDER BY array_position(i.indkey, a.attnum)",
            (table,),
        )
    ]


def snapshot(conn: psycopg.Connection, columns: dict[str, list[str]] | None = None) -> dict:
    """{table: Counter of (key, row)}: every row of every table (of `columns`' tables, those
    columns only: what an earlier point had), its values as PostgreSQL prints them."""
    out = {}
    for table in columns or tables(conn):
        names = columns[table] if columns else _columns(conn, table)
        key = _key_columns(conn, table)
        query = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(c)) for c in names),
            sql.Identifier(table),
        )
        rows = conn.execute(query).fetchall()
        out[table] = Counter((tuple(r[c] for c in key), tuple(sorted(r.items()))) for r in rows)
    return out


def project(rows: Counter, columns: list[str]) -> Counter:
    """A table's snapshot with only `columns` (a snapshot taken of more)."""
    keep = set(columns)
    out: Counter = Counter()
    for (key, row), n in rows.items():
        out[(key, tuple((c, v) for c, v in row if c in keep))] += n
    return out


def _columns(conn: psycopg.Connection, table: str) -> list[str]:
    return [
        r["column_name"]
        for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema ="
            " current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        )
    ]


def columns_of(conn: psycopg.Connection) -> dict[str, list[str]]:
    return {t: _columns(conn, t) for t in tables(conn)}


def expected(before: dict) -> dict:
    """The rows of `before` as they must read at the head: the re-key of 0029 spells the old
    case key as the normalizer does in every table but history (rekeys.APPEND_ONLY keep what
    they recorded)."""
    out = {}
    for table, rows in before.items():
        if table in APPEND_ONLY:
            out[table] = rows
            continue
        out[table] = Counter({_respelled(key, row): n for (key, row), n in rows.items()})
    return out


def _respelled(key: tuple, row: tuple) -> tuple:
    spelled = tuple((c, NEW_KEY if c == "case_number" and v == OLD_KEY else v) for c, v in row)
    return tuple(NEW_KEY if v == OLD_KEY else v for v in key), spelled
