"""The copy policy on drafts (issue 14 item 5): passages of a draft copied from other cases'
decisions, classified template / analysis / substance with their source, and every citation of
the draft checked against the library (found / not_in_library / quote_not_found); the report
stored with the draft on `draft add` and shown with its pair. The planted draft and the other
cases' finals are scenarios.py's."""

import json

import pytest

import factories
from helpers import run, write
from legal_ai.errors import InvalidInput
from legal_ai.learning.checks import copy_policy, copy_sources, shingles
from legal_ai.learning.pairs import drafts, finals
from scenarios import COPY_CASE as CASE
from scenarios import LIBRARY, other_finals, planted_draft
from shapes import assert_shape

pytestmark = pytest.mark.db
# What issue 33 added to each checked citation (tests/learning/test_citation_states.py).
NEW_KEYS = {"problems", "verified", "unchecked", "in_quotation", "support", "attention"}


def kinds(report: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for passage in report["passages"]:
        out.setdefault(passage["kind"], []).append(passage)
    return out


def test_a_planted_draft_is_classified_with_its_sources(app, tmp_path):
    records = other_finals(app, tmp_path)
    draft = write(tmp_path / "draft.txt", planted_draft())
    report = copy_policy.check(app, CASE, draft)

    assert set(report) == {"case_number", "passages", "generic_left_out", "citations"}
    assert_shape(report, copy_policy.DraftCheck)  # every citation's keys and states too
    assert report["case_number"] == CASE
    for passage in report["passages"]:
        assert set(passage) == {"kind", "text", "source"}
        assert set(passage["source"]) == {"case_number", "doc_id", "char_start", "char_end", "text"}
        assert passage["source"]["case_number"] != CASE  # never the case's own documents
    found = kinds(report)

    # The copied holding: substance, from 8815, the span its text in that final.
    holding = [p for p in found["substance"] if "1998" in p["text"]]
    assert len(holding) == 1
    source = holding[0]["source"]
    assert source["case_number"] == "ערר 8815/25" and source["doc_id"] == "ערר 8815/25"
    copied = records["ערר 8815/25"]["final_text"][source["char_start"] : source["char_end"]]
    assert "שהיתרו ניתן בשנת 1998" in copied and "המגרש ריק" in copied
    assert source["text"] == copied  # the source's own words, shown beside the draft's
    assert "ההשבחה" in holding[0]["text"] and "9388/23" in holding[0]["text"]

    # The generic analysis: analysis (generalize), from 7014's discussion.
    analysis = [p for p in found["analysis"] if "המחסור בגני ילדים" in p["text"]]
    assert len(analysis) == 1 and analysis[0]["source"]["case_number"] == "ערר (מרכז) 7014/25"
    start, end = analysis[0]["source"]["char_start"], analysis[0]["source"]["char_end"]
    assert records["ערר (מרכז) 7014/25"]["final_text"][start:end].startswith("המחסור בגני ילדים")
    assert not [p for p in found["analysis"] if "1998" in p["text"]]

    # Her closing formula (the signature in every final): template, allowed.
    closing = [p for p in found["template"] if 'יו"ר ועדת הערר' in p["text"]]
    assert closing and closing[0]["source"]["case_number"] in records
    assert not [p for p in found["template"] if "1998" in p["text"] or "המחסור" in p["text"]]
    # The draft's own facts (its street, its dates) are nowhere.
    assert not [p for p in report["passages"] if "הדקל" in p["text"]]

    by_ref = {}
    for citation in report["citations"]:
        assert set(citation) == {"text", "ref", "kind", "status", "doc_id"} | NEW_KEYS | {
            "treatment"
        }
        by_ref.setdefault(citation["ref"], []).append(citation)
    assert [c["status"] for c in by_ref['עע"מ 9101/20']] == ["quote_not_found"]
    assert by_ref['עע"מ 9101/20'][0]["doc_id"] == "r-9101"
    assert [(c["status"], c["doc_id"]) for c in by_ref['בר"מ 9555/21']] == [("found", "r-9555")]
    assert [c["status"] for c in by_ref['עע"מ 9999/24']] == ["not_in_library"]
    assert by_ref['עע"מ 9999/24'][0]["doc_id"] is None
    # The copied holding's citation is not in the library either: a missing precedent.
    assert [c["status"] for c in by_ref['עע"מ 9388/23']] == ["not_in_library"]
    assert CASE not in by_ref  # the draft's own case number is no citation
    # A statute section of a law the library does not hold is said so, not invented.
    statutes = [c for r, cs in by_ref.items() if "סעיף" in r for c in cs]
    assert statutes and {c["status"] for c in statutes} == {"law_not_in_library"}
    # 9101/20's parties are written, but the library's title records none: not verified.
    assert by_ref['עע"מ 9101/20'][0]["unchecked"] == [
        {"what": "parties", "why": "the library records no parties"}
    ]
    assert by_ref['בר"מ 9555/21'][0]["verified"] == ["number", "quote"]


def test_a_correct_quotation_is_found_and_ellipses_are_honoured(app, tmp_path):
    other_finals(app, tmp_path)
    text = planted_draft().replace(
        '„על הוועדה להעדיף תמיד את טובת המבקש"',
        '„על הוועדה המקומית לשקול את הפגיעה בשכנים ... לבין הצורך הציבורי"',
    )
    report = copy_policy.check(app, CASE, write(tmp_path / "draft.txt", text))
    statuses = {c["ref"]: c["status"] for c in report["citations"]}
    assert statuses['עע"מ 9101/20'] == "found"
    assert copy_policy.quote_in("לשקול את הפגיעה ... הצורך הציבורי", LIBRARY[0]["text"])
    assert not copy_policy.quote_in("הצורך הציבורי ... לשקול את הפגיעה", LIBRARY[0]["text"])


def test_the_same_cases_own_final_is_never_another_case(app, tmp_path):
    """A draft of 7014 checked after 7014's own final arrived: its final (style and internal) is
    the case's own document, never a source."""
    other_finals(app, tmp_path)
    record = factories.records()[1]
    report = copy_policy.check(
        app, record["case_number"], write(tmp_path / "d.txt", record["final_text"])
    )
    assert report["passages"]
    assert {p["source"]["case_number"] for p in report["passages"]} <= {
        "ערר 8815/25",
        "ערר (מרכז) 7022/25",
    }
    # What 7014's final shares with the other finals is her formulas only.
    assert {p["kind"] for p in report["passages"]} == {"template"}


def test_draft_add_stores_the_report_and_the_pair_shows_it(app, tmp_path):
    other_finals(app, tmp_path)
    record = factories.records()[0]
    draft = write(tmp_path / "draft.txt", planted_draft())
    result = drafts.add_draft(
        app,
        CASE,
        draft,
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    report = result["copy_check"]
    assert [p for p in report["passages"] if p["kind"] == "substance" and "1998" in p["text"]]
    with app.store.pool.connection() as conn:
        stored = conn.execute(
            "SELECT copy_report, copy_checked_at FROM drafts WHERE case_number = %s", (CASE,)
        ).fetchone()
    assert stored["copy_report"] == report and stored["copy_checked_at"] is not None
    pair = next(p for p in finals.pairs(app)["pairs"] if p["case_number"] == CASE)
    assert pair["copy_report"] == report
    summary = pair["copy_summary"]
    assert summary["passages"]["substance"] >= 1 and summary["passages"]["analysis"] >= 1
    assert summary["citations"]["quote_not_found"] == 1
    # The same draft again: the check runs again (the library may have grown) and is stored.
    library = write(
        tmp_path / "more.jsonl",
        json.dumps(
            {
                "doc_id": "r-9999",
                "doc_type": "ruling",
                "title": "פלמוני",
                "court": "העליון",
                "decided_on": "2024-05-01",
                "case_number": 'עע"מ 9999/24',
                "text": "פסק דין בדוי.",
            },
            ensure_ascii=False,
        ),
    )
    assert app.ingest([library], "external").ingested == 1
    again = drafts.add_draft(app, CASE, draft)
    assert not again["created"]
    status = {c["ref"]: c["status"] for c in again["copy_check"]["citations"]}
    assert status['עע"מ 9999/24'] == "found"
    pair = next(p for p in finals.pairs(app)["pairs"] if p["case_number"] == CASE)
    assert pair["copy_summary"]["citations"]["not_in_library"] == (
        summary["citations"]["not_in_library"] - 1
    )


def test_draft_check_cli_json_and_bad_input(app, tmp_path, cli_env):
    other_finals(app, tmp_path)
    draft = write(tmp_path / "draft.txt", planted_draft())
    result = run(cli_env, "draft", "check", CASE, str(draft), "--json", check=False)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"case_number", "passages", "generic_left_out", "citations"}
    assert_shape(report, copy_policy.DraftCheck)  # the CLI's JSON, every problem by its kind
    assert all(set(c) >= NEW_KEYS for c in report["citations"])
    quoted = next(c for c in report["citations"] if c["ref"] == 'עע"מ 9101/20')
    assert quoted["problems"][0]["kind"] == "quote_not_found"
    assert {p["kind"] for p in report["passages"]} == {"template", "analysis", "substance"}
    with app.store.pool.connection() as conn:  # a check stores nothing
        assert conn.execute("SELECT count(*) AS n FROM drafts").fetchone()["n"] == 0
    lines = run(cli_env, "draft", "check", CASE, str(draft), check=False).stdout
    assert "[substance: never copy it] from ערר 8815/25" in lines
    assert 'citation עע"מ 9999/24: not_in_library' in lines
    assert "    problem quote_not_found: " in lines and "    verified: number" in lines
    uncited = write(tmp_path / "uncited.txt", "טקסט בלי אסמכתאות.")
    said = run(cli_env, "draft", "check", CASE, str(uncited), check=False)
    assert said.returncode == 0 and "no citations found in the draft" in said.stdout
    added = run(cli_env, "draft", "add", CASE, str(draft), check=False)
    assert added.returncode == 0, added.stderr
    assert "copy check: " in added.stdout and "1 quote_not_found" in added.stdout
    bad = run(cli_env, "draft", "check", "7001", str(draft), check=False)
    assert bad.returncode != 0 and "malformed case number" in bad.stderr
    with pytest.raises(InvalidInput, match="no text"):
        copy_policy.check(app, CASE, write(tmp_path / "empty.txt", "  \n"))


def test_texts_are_cut_once_and_read_only_when_a_passage_is_theirs(app, tmp_path):
    """What the check keeps of the compared texts (migration 0026): each final and internal
    decision is cut into fingerprints once per content (again when its text changes, or for
    another method); a check reads no text but those a passage is attributed to, and reports the
    same as before."""
    other_finals(app, tmp_path)
    unrelated = write(
        tmp_path / "unrelated.txt",
        "החלטה בדויה אחרת לגמרי על גדר בין שכנים "
        "במושב, שאין בה דבר מן הטיוטה הנבדקת כאן בשום צורה שהיא.",
    )
    meta = {"case_number": "ערר 9001/25", "decided_on": "2025-01-01", "practice_area": "planning"}
    assert app.ingest([unrelated], "internal", meta=meta, doc_id="unrelated").ingested == 1
    draft = planted_draft()
    with app.store.transaction() as conn:
        assert shingles.refresh_fingerprints(conn) == 7  # three finals, their copies, one more
        assert shingles.refresh_fingerprints(conn) == 0  # taken once
        sources = copy_sources._matched_sources(conn, CASE, copy_policy.keyed_words(draft))
        stored = conn.execute(
            "SELECT f.method, cardinality(f.shingles) AS n, c.content"
            " FROM copy_fingerprints f JOIN case_law c ON c.id = f.case_law_id"
            " WHERE c.doc_id = 'unrelated'"
        ).fetchone()
    assert stored["method"] == shingles.METHOD
    assert stored["n"] == len(copy_policy.keyed_words(stored["content"])) - 7
    # One per text (a final's internal copy is the same text), none of the draft's own case, the
    # unrelated decision shares nothing; no text was read to find them.
    assert sorted(s.case_number for s in sources) == [
        "ערר (מרכז) 7014/25",
        "ערר (מרכז) 7022/25",
        "ערר 8815/25",
    ]
    assert {s.corpus for s in sources} == {"style"}
    assert all(s.content is None for s in sources)
    report = copy_policy.check(app, CASE, write(tmp_path / "draft.txt", draft))
    assert {p["kind"] for p in report["passages"]} == {"template", "analysis", "substance"}
    # A text that changes is cut again, for its new content.
    assert (
        app.ingest(
            [write(unrelated, "טקסט חדש של ההחלטה הבדויה, שונה מן הקודם במילותיו.")],
            "internal",
            meta=meta,
            doc_id="unrelated",
        ).ingested
        == 1
    )
    import datetime as dt

    from legal_ai.ops.tasks import nightly_upkeep

    upkeep = nightly_upkeep(app, dt.datetime(2026, 5, 3, 2, 30, tzinfo=dt.UTC))
    assert upkeep["steps"]["fingerprints"] == {"taken": 1}  # the nightly upkeep takes it
    assert "1 text(s) cut for the copy check" in upkeep["summary"]
    # A text that changed after its fingerprints were read is not read as the old one.
    changed = copy_sources.Source(
        "internal", 1, "unrelated", "ערר 9001/25", None, None, {0: 0}, lambda: None
    )
    with pytest.raises(InvalidInput, match="changed while the draft was being checked"):
        changed.load()
    with app.store.transaction() as conn:
        assert shingles.refresh_fingerprints(conn) == 0
        # Rows of another method are stale too (a changed tokenizer takes them all again).
        conn.execute("UPDATE copy_fingerprints SET method = 'older'")
        assert shingles.refresh_fingerprints(conn) == 7
    # Stable across processes (they are stored): a fixed hash, not Python's salted one.
    words = copy_policy.keyed_words("אחת שתיים שלוש ארבע חמש שש שבע שמונה תשע")
    assert shingles.fingerprints(words) == [-6013696983056091135, -475565524906865355]


def test_a_writing_agent_checks_its_draft_over_mcp(app, tmp_path):
    """MCP `check_draft`: the draft as text (a remote agent has no file here), the same report
    as `legal-ai draft check` on the file, nothing stored; bad input is a tool error naming it."""
    import asyncio

    from mcp.server.mcpserver.exceptions import ToolError

    from legal_ai.auth import agent
    from legal_ai.mcp_server import build_server

    other_finals(app, tmp_path)
    text = planted_draft()
    server = build_server(app.settings, app_for_call=lambda: app.acting_as(agent("drafter")))
    result = asyncio.run(server.call_tool("check_draft", {"case_number": CASE, "text": text}))
    over_mcp = result.structured_content or json.loads(result.content[0].text)
    assert over_mcp == copy_policy.check(app, CASE, write(tmp_path / "draft.txt", text))
    assert {p["kind"] for p in over_mcp["passages"]} == {"template", "analysis", "substance"}
    assert all(set(c) >= NEW_KEYS for c in over_mcp["citations"])
    found = next(c for c in over_mcp["citations"] if c["ref"] == 'בר"מ 9555/21')
    assert found["status"] == "found" and found["verified"] == ["number", "quote"]
    with app.store.pool.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM drafts").fetchone()["n"] == 0
    for arguments, said in (
        ({"case_number": CASE, "text": " \n "}, "draft text is empty"),
        ({"case_number": "7001", "text": text}, "malformed case number"),
        ({"case_number": CASE, "text": "א" * 200_001}, "200000"),
    ):
        with pytest.raises(ToolError, match=said):
            asyncio.run(server.call_tool("check_draft", arguments))


def test_a_draft_without_copies_or_citations_reports_nothing(app, tmp_path):
    text = "פתח דבר\n\nטקסט מקורי לגמרי.\n\nרקע עובדתי\n\nעוד טקסט.\n\nדיון והכרעה\n\nהכרעה."
    report = copy_policy.check(app, "ערר 5/25", write(tmp_path / "d.txt", text))
    assert report == {
        "case_number": "ערר 5/25",
        "passages": [],
        "generic_left_out": 0,
        "citations": [],
    }


def test_a_run_inside_her_measured_templates_counts_as_template(app, tmp_path):
    """A copied run lying mostly inside one of her measured templates (block_templates, measured
    when a final arrives) is a template; a run outside them, or from an internal decision, is
    not."""
    other_finals(app, tmp_path)
    with app.store.pool.connection() as conn:
        spans = copy_policy._template_spans(conn)
    assert spans  # the three finals' formulas were measured on upload
    document, found = next(iter(spans.items()))
    start, end = sorted(found)[0]
    style = copy_sources.Source("style", document, "d", "ערר 1/25", "", [], {})

    def run(source, span):
        return copy_policy._Run(0, 1, source, span, recurrent=False)

    assert copy_policy._in_template(run(style, (start, end)), spans)
    after = max(e for _, e in found)  # past her last formula in that final: none
    assert not copy_policy._in_template(run(style, (after, after + 80)), spans)
    # 60% of the copied span must lie inside her templates.
    one = {document: [(100, 160)]}
    assert copy_policy._in_template(run(style, (100, 200)), one)
    assert not copy_policy._in_template(run(style, (100, 201)), one)
    internal = copy_sources.Source("internal", document, "d", "ערר 1/25", "", [], {})
    assert not copy_policy._in_template(run(internal, (start, end)), spans)
