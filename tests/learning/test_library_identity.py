"""One identity per ruling, on every path that looks a ruling up (issue 21, items 1-2).

The library below holds rulings of different courts sharing a number (בג"ץ / עע"מ 1234/05, ע"א /
רע"א 7777/12), one committee's decision number in three districts (ערר 1042/23 in מרכז, תל אביב,
ירושלים), one in a single district (ערר (חיפה) 55/20), a ruling known by its reporter citation,
a district court's new-form number and sections of two laws. Each test tries one path: the
citation forms as real decisions write them, a final's links and corroboration, the missing
precedents and their resolution on arrival, digests' pointers, the reference leg of search,
find_similar, the copy check, and the chair's pick of an ambiguous citation (CLI, API, desk, SQL).
"""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg.rows import dict_row

from helpers import AGENT, CHAIR_TOKEN, DECISION_FIELDS, csrf_of, health_of, run, text_of, write
from legal_ai.learning.checks import citation_check
from legal_ai.learning.library import links as library_links
from legal_ai.learning.pairs import finals
from legal_ai.store import drafts_lessons as store
from legal_ai.text import citations as text_citations
from legal_ai.text.citations import DEVIATION_REGS, PBL

EXTERNAL = [
    ("bagatz-1234", 'בג"ץ 1234/05', "בית המשפט העליון", {"aliases": 'פ"ד נט(2) 100'}),
    ("aam-1234", 'עע"מ 1234/05', "בית המשפט העליון", {}),
    ("ea-7777", 'ע"א 7777/12', "בית המשפט העליון", {}),
    ("rea-7777", 'רע"א 7777/12', "בית המשפט העליון", {}),
    ("bagatz-594", 'בג"ץ 594/89', "בית המשפט העליון", {"aliases": 'פ"ד מד(1) 565'}),
    ("barm-3333", 'בר"מ 3333/21', "בית המשפט העליון", {}),
    ("atam-12345", 'עת"מ 12345-06-19', "בית המשפט המחוזי בחיפה", {}),
]
INTERNAL = [
    ("center-1042", "ערר (מרכז) 1042/23"),
    ("tlv-1042", 'ערר (ת"א) 1042/23'),  # stored under its folded spelling
    ("jlm-1042", "ערר (ירושלים) 1042/23"),
    ("haifa-55", "ערר (חיפה) 55/20"),
]
LEGISLATION = [
    ("pbl-152", PBL, "point_152"),
    ("pbl-61a", PBL, "point_61א"),
    ("pbl-170", PBL, "point_170"),  # the PBL's section 170: never the ordinance's 170ג
    ("iriyot-170g", "פקודת העיריות [נוסח חדש]", "point_170ג"),
    ("regs-2", DEVIATION_REGS, "point_2"),
]


@pytest.fixture
def library(app, tmp_path) -> dict[str, int]:
    """The library above, ingested; doc_id -> case_law id."""
    lines = [
        {
            "doc_id": doc_id,
            "doc_type": "ruling",
            "title": f"פסק דין {doc_id}",
            "court": court,
            "decided_on": "2020-01-01",
            "case_number": number,
            "text": f"פסק דין בדוי בעניין {doc_id}: הקלה בקו בניין והיתר בנייה.",
            **extra,
        }
        for doc_id, number, court, extra in EXTERNAL
    ] + [
        {
            "doc_id": doc_id,
            "doc_type": "legislation",
            "title": law,
            "law_title": law,
            "eid": eid,
            "text": f"{law}, {eid}: נוסח הסעיף לבדיקה.",
        }
        for doc_id, law, eid in LEGISLATION
    ]
    path = write(
        tmp_path / "external.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    )
    assert app.ingest([path], "external").ingested == len(lines)
    for doc_id, number in INTERNAL:
        decision = write(tmp_path / f"{doc_id}.txt", f"החלטת ועדת הערר {doc_id} בעניין הקלה.")
        meta = {
            "case_number": number,
            "title": doc_id,
            "decided_on": "2023-06-01",
            "practice_area": "planning",
            **DECISION_FIELDS,
        }
        assert app.ingest([decision], "internal", doc_id=doc_id, meta=meta).ingested == 1
    with app.store.connection() as conn:
        rows = conn.execute("SELECT id, doc_id FROM case_law").fetchall()
    return {r["doc_id"]: r["id"] for r in rows}


AMBIGUOUS = "ambiguous"
# (sentence as a decision writes it, kind, normalized ref, what it resolves to: a doc_id, None
# for "not in the library", AMBIGUOUS for "several fit").
FORMS = [
    (
        "כפי שנקבע בבג\"צ 1234/05 פלוני נ' שר הפנים, אין להתערב.",
        "ruling",
        'בג"ץ 1234/05',
        "bagatz-1234",
    ),
    ("ובעע\"מ 1234/05 הוועדה המקומית נ' פלוני נפסק אחרת.", "ruling", 'עע"מ 1234/05', "aam-1234"),
    ('לע"א 7777/12 אין נפקות לענייננו.', "ruling", 'ע"א 7777/12', "ea-7777"),
    ('ראו רע"א 7777/12 שם נדחתה הבקשה.', "ruling", 'רע"א 7777/12', "rea-7777"),
    ("ההלכה שבערר (מרכז) 1042/23 חלה.", "ruling", "ערר (מרכז) 1042/23", "center-1042"),
    ('ראו ערר (ת"א) 1042/23.', "ruling", "ערר (תל אביב) 1042/23", "tlv-1042"),
    ("ראו ערר (תל אביב-יפו) 1042/23.", "ruling", "ערר (תל אביב) 1042/23", "tlv-1042"),
    ("ראו ערר (תל-אביב) 1042/23.", "ruling", "ערר (תל אביב) 1042/23", "tlv-1042"),
    ("כך בערר (י-ם) 1042/23.", "ruling", "ערר (ירושלים) 1042/23", "jlm-1042"),
    ("כך בערר (ירושלים) 1042/23.", "ruling", "ערר (ירושלים) 1042/23", "jlm-1042"),
    ("כפי שנקבע בערר 1042/23, יש לדחות.", "ruling", "ערר 1042/23", AMBIGUOUS),
    ("ראו ערר (חיפה) 1042/23.", "ruling", "ערר (חיפה) 1042/23", None),
    ("ראו ערר (חי') 55/20.", "ruling", "ערר (חיפה) 55/20", "haifa-55"),
    ("ראו ערר 55/20.", "ruling", "ערר 55/20", "haifa-55"),
    ("ראו ערר מס' 55/20.", "ruling", "ערר 55/20", "haifa-55"),
    ("ראו ע.א. 7777/12.", "ruling", 'ע"א 7777/12', "ea-7777"),
    ('ראו ע"א 7777 / 12.', "ruling", 'ע"א 7777/12', "ea-7777"),
    ('ראו עע"מ 1234-05.', "ruling", 'עע"מ 1234/05', "aam-1234"),
    ("ראו בגץ 1234/05.", "ruling", 'בג"ץ 1234/05', "bagatz-1234"),
    ("ראו בג״ץ 1234/05.", "ruling", 'בג"ץ 1234/05', "bagatz-1234"),
    (
        'בג"ץ 594/89 פלוני נ\' הוועדה המחוזית, פ"ד מד(1) 565 (1990).',
        "ruling",
        'בג"ץ 594/89',
        "bagatz-594",
    ),
    ('כאמור בפ"ד מד(1) 565, הסמכות רחבה.', "reporter", 'פ"ד מד(1) 565', "bagatz-594"),
    ('כאמור בפד"י מ"ד(1) 565.', "reporter", 'פ"ד מד(1) 565', "bagatz-594"),
    ('ראו פ"ד נט(2) 100.', "reporter", 'פ"ד נט(2) 100', "bagatz-1234"),
    ("ראו תק-על 2005(3), 1234.", "reporter", "תק-על 2005(3) 1234", None),
    (
        "עע\"מ 1234/05 פלוני ואח' נ' הוועדה המקומית לתכנון ובנייה ואח' (פורסם בנבו, 12.3.2015).",
        "ruling",
        'עע"מ 1234/05',
        "aam-1234",
    ),
    ('ראו בר"מ 3333/21 (פורסם בנבו, 1.2.2022).', "ruling", 'בר"מ 3333/21', "barm-3333"),
    ("ראו עת\"מ 12345-06-19 פלוני נ' עיריית חיפה.", "ruling", 'עת"מ 12345/06/19', "atam-12345"),
    ("ראו עת\"מ (חי') 12345-06-19.", "ruling", 'עת"מ (חיפה) 12345/06/19', "atam-12345"),
    ('ראו דנ"א 1/90.', "ruling", 'דנ"א 1/90', None),
    ('ראו ע"א (ב"ש) 100/10.', "ruling", 'ע"א (באר שבע) 100/10', None),
    ("ובע\"א (נצ') 100/10 נאמר.", "ruling", 'ע"א (נצרת) 100/10', None),
    ("לפי סעיף 152 (א)(1) לחוק, הוועדה רשאית.", "statute", f"{PBL}, סעיף 152(א)(1)", "pbl-152"),
    ("לפי סעיף 61א(ב) לחוק התכנון והבנייה.", "statute", f"{PBL}, סעיף 61א(ב)", "pbl-61a"),
    (
        "סעיף 170ג(ו) לפקודת העיריות קובע אחרת.",
        "statute",
        "פקודת העיריות, סעיף 170ג(ו)",
        "iriyot-170g",
    ),
    (
        'לפי תקנה 2(19) לתקנות התכנון והבנייה (סטייה ניכרת מתכנית), התשס"ב-2002.',
        "statute",
        f"{DEVIATION_REGS}, תקנה 2(19)",
        "regs-2",
    ),
    (
        'לפי סעיף 5 לחוק המקרקעין, התשכ"ט-1969.',
        "statute",
        'חוק המקרקעין, התשכ"ט-1969, סעיף 5',
        None,
    ),
    ("סעיף 197 לחוק קובע פיצוי.", "statute", f"{PBL}, סעיף 197", None),
    ("לפי תכנית תא/3273 החלה במקום.", "plan", "תכנית תא/3273", None),
    ("תכנית טב/3352 אושרה.", "plan", "תכנית טב/3352", None),
    ("לפי ג/8647 מותרת בנייה.", "plan", "תכנית ג/8647", None),
    ("תכנית מח/54/ב' חלה.", "plan", "תכנית מח/54/ב'", None),
    ('מכוח תמ"א 38 ניתנה תוספת.', "plan", 'תכנית תמ"א 38', None),
    # a year with its century is the same ruling; a geresh (or two) for the gershayim
    ('ראו עע"מ 1234/2005.', "ruling", 'עע"מ 1234/2005', "aam-1234"),
    ("ראו עע''מ 1234/05.", "ruling", 'עע"מ 1234/05', "aam-1234"),
    ("ראו בר'מ 3333/21.", "ruling", 'בר"מ 3333/21', "barm-3333"),
    ('ראו עת"מ 12345-06-2019.', "ruling", 'עת"מ 12345/06/19', "atam-12345"),
    ('ראו עת"מ 12345–06–19.', "ruling", 'עת"מ 12345/06/19', "atam-12345"),
]


def test_forty_real_citation_forms_extract_and_resolve_by_the_whole_identity(app, library):
    assert len(FORMS) >= 40
    with app.store.connection() as conn:
        for sentence, kind, ref, expected in FORMS:
            named = [c for c in text_citations.extract(sentence) if c.ref == ref]
            assert named and named[0].kind == kind, (sentence, text_citations.extract(sentence))
            found = library_links.match(conn, named[0])
            if expected == AMBIGUOUS:
                assert found.target is None and found.ambiguous, sentence
            elif expected is None:
                assert found.target is None and not found.ambiguous, sentence
            else:
                assert found.target == library[expected], (sentence, found)
    # A plan number is a plan, never a ruling; another law's section is not the PBL's.
    assert all(c.kind == "plan" for c in text_citations.extract("תא/3273 ו-ג/8647"))
    # a plan number shaped like a case number (letters, a number and a year) is still a plan
    assert [(c.kind, c.ref) for c in text_citations.extract("לפי תא/1234/05 החלה")] == [
        ("plan", "תכנית תא/1234/05")
    ]
    other = text_citations.extract("סעיף 170ג(ו) לפקודת העיריות")
    assert [c.law for c in other] == ["פקודת העיריות"]
    # The parties with ואח' and the Nevo reference are the citation's own text.
    (nevo,) = text_citations.extract(FORMS[25][0])
    assert nevo.text.endswith("(פורסם בנבו, 12.3.2015)") and "ואח' נ'" in nevo.text


FINAL = (
    "ועדת הערר לתכנון ובנייה – מחוז מרכז\nערר (מרכז) 3001/25\n\nהחלטה\n\nפתח דבר\n\n"
    "1. כפי שנקבע בעע\"מ 1234/05 פלוני נ' הוועדה המקומית, ובערר 1042/23.\n\n"
    '2. ראו גם ערר (חיפה) 1042/23 ורע"א 7777/12 ו-ע"א 8888/12.\n\n'
    "דיון והכרעה\n\n3. הערר נדחה.\n\nסוף דבר\n\n4. אין צו להוצאות.\n\n"
    'ניתנה היום, 1 במרץ 2025.\nרותם לוי, עו"ד'
)


def _cites(app, case_law_id: int) -> dict[str, dict]:
    with app.store.connection() as conn:
        return {c["ref"]: c for c in store.citations_of(conn, case_law_id)}


def _final(app, tmp_path) -> dict:
    return finals.upload_final(
        app, "ערר (מרכז) 3001/25", write(tmp_path / "final.txt", FINAL), practice_area="planning"
    )


def test_a_final_links_by_identity_reports_the_ambiguous_and_corroborates_the_right_ruling(
    app, library, tmp_path
):
    result = _final(app, tmp_path)
    assert result["citations"] == {"linked": 2, "missing": 2, "ambiguous": 1}
    cites = _cites(app, result["case_law_id"])
    assert cites['עע"מ 1234/05']["linked_case_law_id"] == library["aam-1234"]
    assert cites['רע"א 7777/12']["linked_case_law_id"] == library["rea-7777"]
    assert cites['ע"א 8888/12']["linked_case_law_id"] is None
    ambiguous = cites["ערר 1042/23"]
    assert ambiguous["linked_case_law_id"] is None
    assert set(ambiguous["candidates"]) == {
        library[k] for k in ("center-1042", "tlv-1042", "jlm-1042")
    }
    with app.store.connection() as conn:
        open_refs = {m["ref"] for m in store.missing_precedents(conn)}
        corroboration = {
            doc: conn.execute("SELECT ruling_corroboration(%s) AS n", (library[doc],)).fetchone()[
                "n"
            ]
            for doc in ("aam-1234", "bagatz-1234", "rea-7777", "ea-7777", "center-1042")
        }
    # the ambiguous one is not a missing precedent: the library holds it, the chair picks
    assert open_refs == {"ערר (חיפה) 1042/23", 'ע"א 8888/12'}
    assert corroboration == {
        "aam-1234": 1,
        "bagatz-1234": 0,
        "rea-7777": 1,
        "ea-7777": 0,
        "center-1042": 0,
    }


def test_arrival_resolves_only_its_own_identity_and_can_make_a_citation_ambiguous(
    app, library, tmp_path
):
    final = _final(app, tmp_path)
    # רע"א 8888/12 is not ע"א 8888/12: the missing precedent stays open
    other_court = write(tmp_path / "rea.txt", "פסק דין בדוי ברשות ערעור.")
    meta = {"title": 'רע"א', "court": "בית המשפט העליון", "case_number": 'רע"א 8888/12'}
    report = app.ingest([other_court], "external", doc_id="rea-8888", meta=meta)
    assert report.resolved["missing_precedents"] == 0
    # the Haifa decision arrives: its own precedent resolves, and the citation without a
    # district now has four candidates
    haifa = write(tmp_path / "haifa.txt", "החלטה בדויה של ועדת הערר בחיפה.")
    meta = {
        "case_number": "ערר (חיפה) 1042/23",
        "title": "חיפה",
        "practice_area": "planning",
        **DECISION_FIELDS,
    }
    report = app.ingest([haifa], "internal", doc_id="haifa-1042", meta=meta)
    assert report.resolved["missing_precedents"] == 1
    cites = _cites(app, final["case_law_id"])
    assert cites["ערר (חיפה) 1042/23"]["linked_case_law_id"] is not None
    assert len(cites["ערר 1042/23"]["candidates"]) == 4
    assert cites['ע"א 8888/12']["linked_case_law_id"] is None
    # a citation without its district linked when one decision fits becomes ambiguous when a
    # second district's decision of that number arrives
    write(
        tmp_path / "f2.txt",
        FINAL.replace("3001/25", "3002/25").replace("ובערר 1042/23", "ובערר 55/20"),
    )
    second = finals.upload_final(
        app, "ערר (מרכז) 3002/25", tmp_path / "f2.txt", practice_area="planning"
    )
    linked = _cites(app, second["case_law_id"])["ערר 55/20"]
    assert (linked["linked_case_law_id"], linked["link_basis"]) == (
        library["haifa-55"],
        "without_district",
    )
    other = write(tmp_path / "tlv55.txt", "החלטה בדויה של ועדת הערר בתל אביב.")
    meta = {
        "case_number": 'ערר (ת"א) 55/20',
        "title": "תל אביב",
        "practice_area": "planning",
        **DECISION_FIELDS,
    }
    app.ingest([other], "internal", doc_id="tlv-55", meta=meta)
    now = _cites(app, second["case_law_id"])["ערר 55/20"]
    assert now["linked_case_law_id"] is None and len(now["candidates"]) == 2


def test_digests_point_at_the_whole_identity(app, library, tmp_path):
    def digest(doc_id: str, points_to: str) -> dict:
        path = write(tmp_path / f"{doc_id}.txt", f"תקציר {doc_id}: הקלה בקו בניין.")
        app.ingest([path], "digests", doc_id=doc_id, meta={"title": doc_id, "points_to": points_to})
        with app.store.connection() as conn:
            return conn.execute(
                "SELECT case_law_id, points_to_key FROM digests WHERE doc_id = %s", (doc_id,)
            ).fetchone()

    assert digest("d-aam", "עע\"מ 1234/05 פלוני נ' הוועדה") == {
        "case_law_id": library["aam-1234"],
        "points_to_key": 'עע"מ 1234/05',
    }
    assert digest("d-tlv", 'ערר (ת"א) 1042/23')["case_law_id"] == library["tlv-1042"]
    assert digest("d-any", "ערר 1042/23")["case_law_id"] is None
    health = health_of(app)
    [entry] = [d for d in health["unresolved_digests"]["items"] if d["doc_id"] == "d-any"]
    assert entry["reason"].startswith("several rulings of the library fit ערר 1042/23")


def test_the_reference_leg_and_find_similar_use_the_whole_identity(app, library, tmp_path):
    hits = app.search("external", 'עע"מ 1234/05', limit=5).hits
    referenced = [h["doc_id"] for h in hits if "reference" in h["explain"]]
    assert referenced == ["aam-1234"]
    hits = app.search("internal", 'ערר (ת"א) 1042/23', limit=5).hits
    assert [h["doc_id"] for h in hits if "reference" in h["explain"]] == ["tlv-1042"]
    hits = app.search("internal", "ערר 1042/23", limit=5).hits  # a search shows all that fit
    assert {h["doc_id"] for h in hits if "reference" in h["explain"]} == {
        "center-1042",
        "tlv-1042",
        "jlm-1042",
    }
    assert [h["doc_id"] for h in app.search("external", 'פ"ד מד(1) 565', limit=3).hits][:1] == [
        "bagatz-594"
    ]
    # find_similar excludes the case by its whole identity: the same decision spelled another
    # way is itself, another district's decision of that number is another case
    for n, case in enumerate(("ערר (תל אביב) 1042/23", "ערר (מרכז) 1042/23")):
        doc = write(tmp_path / f"appeal-{n}.txt", f"כתב ערר {n} על סירוב להקלה בקו בניין צדדי.")
        report = app.ingest([doc], "case", meta={"case_number": case, "practice_area": "planning"})
        assert report.ingested == 1
    similar = app.tool("find_similar_cases", case_number='ערר (ת"א) 1042/23')
    assert [h["case_number"] for h in similar["hits"]] == ["ערר (מרכז) 1042/23"]


def test_the_copy_check_finds_by_identity_and_says_ambiguous(app, library):
    text = 'כאמור בעע"מ 1234/05 ובערר 1042/23 ובערר (חיפה) 1042/23 ובע"א 1234/05.'
    with app.store.connection() as conn:
        statuses = {
            c["ref"]: (c["status"], c["doc_id"])
            for c in citation_check.check_citations(conn, "ערר (מרכז) 9/25", text)
        }
    assert statuses == {
        'עע"מ 1234/05': ("found", "aam-1234"),
        "ערר 1042/23": ("ambiguous", None),
        "ערר (חיפה) 1042/23": ("not_in_library", None),
        'ע"א 1234/05': ("not_in_library", None),
    }


def test_the_chair_picks_an_ambiguous_citation_and_nobody_else_can(
    app, library, tmp_path, client, cli_env, agent_db_url
):
    result = _final(app, tmp_path)
    listed = json.loads(run(cli_env, "citations", "ambiguous", "--json").stdout)["ambiguous"]
    [entry] = listed
    assert entry["ref"] == "ערר 1042/23" and len(entry["candidates"]) == 3
    authority = entry["authority_id"]
    api = client.get("/api/citations/ambiguous", headers={"Authorization": f"Bearer {AGENT}"})
    assert api.status_code == 200 and api.json()["ambiguous"][0]["authority_id"] == authority
    pick = f"/api/citations/{authority}/pick"
    # an agent may not pick, over HTTP nor from the CLI, nor in SQL under its own login
    refused = client.post(
        pick,
        json={"case_law_id": library["tlv-1042"]},
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    assert refused.status_code == 403
    cli = run(cli_env, "citations", "pick", str(authority), str(library["tlv-1042"]), check=False)
    assert cli.returncode != 0 and "chair" in cli.stderr
    with psycopg.connect(agent_db_url, autocommit=True, row_factory=dict_row) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "UPDATE authorities SET case_law_id = %s, link_basis = 'chair' WHERE id = %s",
                (library["tlv-1042"], authority),
            )
    # the system itself (not her role) may not claim her pick either
    with app.store.transaction() as conn:
        conn.execute("SET LOCAL ROLE legal_ai_worker")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "UPDATE authorities SET case_law_id = %s, link_basis = 'chair' WHERE id = %s",
                (library["tlv-1042"], authority),
            )
    # not a candidate: refused with what to pick
    wrong = client.post(
        pick,
        json={"case_law_id": library["aam-1234"]},
        headers={"Authorization": f"Bearer {CHAIR_TOKEN}"},
    )
    assert wrong.status_code == 400 and "not a candidate" in wrong.json()["error"]
    chosen = client.post(
        pick,
        json={"case_law_id": library["tlv-1042"]},
        headers={"Authorization": f"Bearer {CHAIR_TOKEN}"},
    )
    assert chosen.status_code == 200 and chosen.json()["link_basis"] == "chair"
    cites = _cites(app, result["case_law_id"])
    assert cites["ערר 1042/23"]["linked_case_law_id"] == library["tlv-1042"]
    with app.store.connection() as conn:
        audit = conn.execute(
            "SELECT actor, action, details FROM learning_audit WHERE action = 'citation_linked'"
        ).fetchall()
    assert [(a["actor"], a["details"]["case_law_id"]) for a in audit] == [
        ("chair", library["tlv-1042"])
    ]
    # her pick stands when the graph is decided again (another final, the nightly upkeep)
    with app.store.transaction() as conn:
        library_links.link_library(conn)
    assert _cites(app, result["case_law_id"])["ערר 1042/23"]["link_basis"] == "chair"
    assert json.loads(run(cli_env, "citations", "ambiguous", "--json").stdout)["ambiguous"] == []


def test_the_desk_shows_the_ambiguous_citation_in_hebrew_and_the_chair_picks_there(
    app, library, tmp_path, chair
):
    _final(app, tmp_path)
    page = chair.get("/cases")
    assert page.status_code == 200
    shown = text_of(page.text.split('id="ambiguous"')[1])
    assert "ערר 1042/23" in shown and "לאיזו החלטה הכוונה?" in shown
    assert all(n in shown for n in ("ערר (מרכז) 1042/23", "ערר (תל אביב) 1042/23"))
    with app.store.connection() as conn:
        authority = conn.execute("SELECT id FROM authorities WHERE ref = 'ערר 1042/23'").fetchone()[
            "id"
        ]
    answer = chair.post(
        f"/cases/citations/{authority}/pick",
        data={"csrf": csrf_of(page.text), "case_law_id": str(library["jlm-1042"])},
    )
    assert answer.status_code == 200 and "קושר להחלטה שבחרת" in text_of(answer.text)
    empty = chair.post(f"/cases/citations/{authority}/pick", data={"csrf": csrf_of(page.text)})
    assert empty.status_code == 400 and "בחרי אחת ההחלטות" in text_of(empty.text)
