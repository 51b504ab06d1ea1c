"""Existing data re-keyed by one identity per ruling (issue 21, item 3): a database as the release
before migration 0029 left it — a citation of עע"מ 1234/05 linked to בג"ץ 1234/05 by its number,
ערר (ת"א) and ערר (תל אביב) as two authorities both linked to the Center district's decision, a
digest keyed by number/year — migrated to today's schema, its links corrected, and what changed
reported once and kept in health until seen."""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg.rows import dict_row

from helpers import TEST_CHAIR, run
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.learning.arrival import rekey
from legal_ai.store import drop_database, ensure_database
from legal_ai.store.migrations import migrate

BEFORE_IDENTITY = 28  # the last migration of the release before one identity per ruling
DB = "legal_ai_rekey_test"


def _insert(conn, table: str, **values) -> int:
    columns = ", ".join(values)
    marks = ", ".join(["%s"] * len(values))
    return conn.execute(
        f"INSERT INTO {table} ({columns}) VALUES ({marks}) RETURNING id",  # noqa: S608 (test's own names)
        list(values.values()),
    ).fetchone()["id"]


def _old_world(url: str) -> dict[str, int]:
    """What the release before 0029 stored: its items, and the links its number-only lookup
    made."""
    ids: dict[str, int] = {}
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        for doc, number in (("bagatz", 'בג"ץ 1234/05'), ("aam", 'עע"מ 1234/05')):
            ids[doc] = _insert(
                conn,
                "case_law",
                source_kind="external_upload",
                doc_type="ruling",
                doc_id=doc,
                case_number=number,
                title=doc,
                content="פסק דין",
                content_hash=doc,
            )
        final_text = (
            'כאמור בעע"מ 1234/05, בערר (ת"א) 1042/23, בערר (תל אביב) 1042/23 ובערר 1042/23.'
        )
        for doc, number, text in (
            ("center", "ערר (מרכז) 1042/23", "החלטה"),
            ("tlv", "ערר (תל אביב) 1042/23", "החלטה"),
            ("final", "ערר (מרכז) 3001/25", final_text),
        ):
            ids[doc] = _insert(
                conn,
                "case_law",
                source_kind="internal_committee",
                doc_type="decision",
                doc_id=doc,
                case_number=number,
                title=doc,
                content=text,
                content_hash=doc,
                chair_name=TEST_CHAIR,
            )
        wrong = {
            'עע"מ 1234/05': ids["bagatz"],  # the number alone found the first ruling: בג"ץ
            'ערר (ת"א) 1042/23': ids["center"],  # the number alone found the Center's decision
            "ערר (תל אביב) 1042/23": ids["center"],
            "ערר 1042/23": ids["center"],  # three fit today: ambiguous
        }
        for ref, target in wrong.items():
            authority = _insert(
                conn, "authorities", ref=ref, kind="ruling", case_law_id=target, corroboration=1
            )
            start = final_text.index(ref.split(" ", 1)[0] + " " + ref.split(" ", 1)[1])
            _insert(
                conn,
                "decision_citations",
                citing_case_law_id=ids["final"],
                authority_id=authority,
                text=ref,
                char_start=start,
                char_end=start + len(ref),
            )
        # case keys the old normalizer kept as typed: one to respell (its feedback follows),
        # and one whose new spelling is already another case's (both kept, reported)
        for key in ('ערר (ת"א) 5/24', 'ערר (ת"א) 6/24', "ערר (תל אביב) 6/24"):
            _insert(conn, "cases", case_number=key)
        _insert(
            conn,
            "chair_feedback",
            case_number='ערר (ת"א) 5/24',
            category="style",
            text="הערה",
            actor="agent:writer",
        )
        _insert(
            conn,
            "digests",
            doc_id="yomon",
            title="יומון",
            points_to='ערר (ת"א) 1042/23',
            points_to_key="1042/23",
            case_law_id=ids["center"],
            content="תקציר",
            content_hash="yomon",
        )
    return ids


@pytest.fixture
def old_database(server_url):
    drop_database(server_url, DB)
    url = ensure_database(server_url, DB)
    assert migrate(url, until=BEFORE_IDENTITY)[-1] == "0028_principle_cap"
    yield url, _old_world(url)
    drop_database(server_url, DB)


def test_an_old_database_migrates_with_its_links_corrected_and_reported(old_database, e5, tmp_path):
    url, ids = old_database
    settings = Settings(home=tmp_path, database_url=url, committee_chair=TEST_CHAIR)
    with App(settings, embedder=e5) as legal:
        report = legal.rekeyed
        assert report["changed"] and report["rulings_keyed"] == 5
        assert report["case_keys_respelled"] == 1
        assert report["case_keys_clashing"] == [
            {"case_number": 'ערר (ת"א) 6/24', "same_as": "ערר (תל אביב) 6/24"}
        ]
        with legal.store.connection() as conn:
            keys = [
                r["case_number"] for r in conn.execute("SELECT case_number FROM cases ORDER BY id")
            ]
            feedback = conn.execute("SELECT case_number FROM chair_feedback").fetchone()
        assert keys == ["ערר (תל אביב) 5/24", 'ערר (ת"א) 6/24', "ערר (תל אביב) 6/24"]
        assert feedback["case_number"] == "ערר (תל אביב) 5/24"
        assert "two cases now spell one" in rekey.describe(report)
        assert report["citations_moved"] == 1 and report["authorities_dropped"] == 1
        with legal.store.connection() as conn:
            links = {
                r["ref"]: (r["case_law_id"], r["link_basis"], sorted(r["candidates"]))
                for r in conn.execute(
                    "SELECT ref, case_law_id, link_basis, candidates FROM authorities"
                )
            }
            digest = conn.execute("SELECT points_to_key, case_law_id FROM digests").fetchone()
            corroboration = {
                doc: conn.execute("SELECT ruling_corroboration(%s) AS n", (ids[doc],)).fetchone()[
                    "n"
                ]
                for doc in ("bagatz", "aam", "center", "tlv")
            }
        assert links == {
            'עע"מ 1234/05': (ids["aam"], "exact", []),
            # ערר (ת"א) folded into ערר (תל אביב): one authority, linked to its own decision
            "ערר (תל אביב) 1042/23": (ids["tlv"], "exact", []),
            "ערר 1042/23": (None, None, sorted([ids["center"], ids["tlv"]])),
        }
        assert digest == {"points_to_key": "ערר (תל אביב) 1042/23", "case_law_id": ids["tlv"]}
        assert corroboration == {"bagatz": 0, "aam": 1, "center": 0, "tlv": 1}
        changed = {link["ref"]: (link["before"], link["after"]) for link in report["links"]}
        assert changed['עע"מ 1234/05'] == ('בג"ץ 1234/05', 'עע"מ 1234/05')
        assert changed["ערר 1042/23"] == ("ערר (מרכז) 1042/23", None)
        # reported in health until seen; the chair's screen and the CLI say it in words
        [unseen] = legal.health()["library_rekey"]
        assert unseen["report"]["links_changed"] == report["links_changed"]
        assert 'עע"מ 1234/05: בג"ץ 1234/05 -> עע"מ 1234/05' in rekey.describe(report)
    env = {"LEGAL_AI_HOME": str(tmp_path), "LEGAL_AI_DATABASE_URL": url}
    shown = run(env, "citations", "rekey-report", "--seen")
    assert (
        "library re-keyed by one identity per ruling" in shown.stdout
        and "marked seen: 1" in shown.stdout
    )
    with App(settings, embedder=e5) as again:
        assert again.rekeyed is None  # once
        assert again.health()["library_rekey"] == []
    assert json.loads(run(env, "citations", "rekey-report", "--json").stdout)["reports"] == []


def test_a_new_database_has_nothing_to_report(app):
    assert app.health()["library_rekey"] == []
