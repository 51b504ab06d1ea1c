"""The cap of new principles per decision, held by the database (issue 34 item 4; INV-LRN7,
migration 0040): five over all the decision's text versions, the value the deployment recorded
(not the extracting session's own setting), principles without a canonical link counted — by
the panel's extraction, by the worker's login, and against an agent-only login's SQL."""

import psycopg
import pytest

from legal_ai.auth import CHAIR, system_principal
from legal_ai.corpora import get_corpus
from legal_ai.learning.principles import extraction as principles
from legal_ai.store import items as sql_items
from scenarios import Q1, cand, ingest

pytestmark = pytest.mark.db

FIRST = [
    "סטייה ניכרת מתכנית אינה ניתנת לאישור בדרך של הקלה",
    "על הוועדה המקומית לנמק את החלטתה בכתב",
    "זכות הטיעון של המתנגד היא זכות יסוד בהליך התכנוני",
    "היטל השבחה מחושב לפי ההפרש בשווי המקרקעין",
    "פיצויים לפי סעיף 197 משולמים בגין פגיעה במקרקעין",
]
SECOND = [
    "ועדת הערר רשאית לדון בערר מחדש מבראשית",
    "הקלה בקווי בניין מותרת כאשר אין פגיעה בשכנים",
    "שימוש חורג לגן ילדים בדירת מגורים טעון פרסום לשכנים",
]


def counted(app) -> int:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT count(*) AS n FROM case_law_principles WHERE cap_counted"
            " AND review_status NOT IN ('rejected', 'vetoed')"
        ).fetchone()["n"]


def test_a_new_version_adds_nothing_past_five(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", ". ".join(FIRST) + ".")
    every = [cand(rule, rule, 0.95) for rule in FIRST]
    script.answers = {m: every for m in "abc"}
    assert principles.extract(app, doc_id="ruling-1")["approved"] == 5

    # The decision again with more text: a new version, three more rules drawn from it.
    ingest(app, tmp_path, "ruling-1", ". ".join(FIRST + SECOND) + ".")
    with app.store.connection() as conn:
        version = conn.execute("SELECT version FROM case_law WHERE doc_id = 'ruling-1'").fetchone()
    assert version["version"] == 2
    more = [cand(rule, rule, 0.99) for rule in SECOND]
    script.answers = {m: more for m in "abc"}
    again = principles.extract(app, doc_id="ruling-1")
    assert (again["approved"], again["pending_review"], again["capped"]) == (0, 0, 3)
    assert counted(app) == 5
    with app.store.connection() as conn:
        total = conn.execute(
            "SELECT count(*) AS n FROM case_law_principles WHERE review_status <> 'rejected'"
        ).fetchone()["n"]
    assert total == 5


def _insert(conn, item: int, n: int, *, canonical: bool) -> None:
    unit = _UNITS[n]
    canonical_id = (
        sql_items.insert_canonical(conn, "external_upload", unit.text) if canonical else None
    )
    sql_items.insert_principle(
        conn, get_corpus("external"), item, unit, Q1, "proposed", canonical_id=canonical_id
    )


_UNITS: list = []


def test_the_database_refuses_the_sixth_whoever_writes(app, tmp_path, agent_db_url):
    ingest(app, tmp_path, "ruling-1", "נפסק כי " + Q1)
    _UNITS[:] = [app._unit(f"כלל מספר {n}") for n in range(8)]
    with app.store.connection() as conn:
        item = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()["id"]
        recorded = conn.execute("SELECT * FROM deployment_settings").fetchall()
    assert [(r["name"], r["value"]) for r in recorded] == [("halacha_panel_max_new", 5)]
    worker = app.acting_as(system_principal("principle-panel"))

    # The worker's login, over two transactions (two text versions): three with a canonical,
    # then two without one — five, the cap.
    with worker.store.transaction() as conn:
        for n in range(3):
            _insert(conn, item, n, canonical=True)
    with worker.store.transaction() as conn:
        for n in range(3, 5):
            _insert(conn, item, n, canonical=False)
    assert counted(app) == 5

    # The sixth, without a canonical link, is refused — its session's own setting of the cap
    # changes nothing (the deployment's recorded value holds).
    for canonical in (False, True):
        with pytest.raises(psycopg.errors.CheckViolation, match="principle cap"):
            with worker.store.transaction() as conn:
                conn.execute("SELECT set_config('legal_ai.principle_max_new', '100', true)")
                _insert(conn, item, 5, canonical=canonical)
    assert counted(app) == 5

    # A rejected one takes no place; the chair's own are not capped.
    with app.store.connection() as conn:
        first = conn.execute("SELECT min(id) AS id FROM case_law_principles").fetchone()["id"]
    app.acting_as(CHAIR).review_principle(first, "reject", "not what the ruling holds")
    with worker.store.transaction() as conn:
        _insert(conn, item, 6, canonical=False)
    with app.acting_as(CHAIR).store.transaction() as conn:
        _insert(conn, item, 7, canonical=False)
    assert counted(app) == 5

    # The worker may not raise the recorded cap, nor mark a principle uncounted.
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        with worker.store.transaction() as conn:
            conn.execute("UPDATE deployment_settings SET value = 50")
    with worker.store.transaction() as conn:
        conn.execute("UPDATE case_law_principles SET cap_counted = false")
    assert counted(app) == 5

    # An agent-only login: writes no principle and no setting; its session setting is ignored.
    with psycopg.connect(agent_db_url) as conn:
        conn.execute("SELECT set_config('legal_ai.principle_max_new', '100', false)")
        assert conn.execute("SELECT principle_cap_value()").fetchone()[0] == 5
        for statement in (
            "UPDATE deployment_settings SET value = 50",
            "INSERT INTO deployment_settings (name, value) VALUES ('halacha_panel_max_new', 50)"
            " ON CONFLICT (name) DO UPDATE SET value = 50",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text,"
                " supporting_quote, text_hash, analyzed, analyzer)"
                " VALUES ('external_upload', %s, 'כלל', %s, 'h', 'כלל', 'a')",
                (item, Q1),
            )
    assert counted(app) == 5


def test_the_value_is_the_deployments_recorded_once(app, session_app):
    """Recorded on first use when absent; a process with another setting does not change it;
    `legal-ai db migrate` (record_deployment_settings(replace=True)) records it anew."""
    other = session_app.settings.model_copy(update={"halacha_panel_max_new": 2})
    original = session_app.settings
    try:
        session_app.settings = other
        assert session_app.record_deployment_settings() == {"halacha_panel_max_new": 5}
        assert session_app.record_deployment_settings(replace=True) == {"halacha_panel_max_new": 2}
    finally:
        session_app.settings = original
        assert session_app.record_deployment_settings(replace=True) == {"halacha_panel_max_new": 5}
