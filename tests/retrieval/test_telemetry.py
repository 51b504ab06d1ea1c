"""Search telemetry (issue 15 item 2; legal_ai/telemetry.py): every surface's search is one
search_log row with its caller, hits and ranks; the chair's clicks and useful marks on the desk;
the marked searches exported as a gold set `legal-ai eval` reads; a NUL-laden or huge query
stored safely; a logging failure never fails the search; retention; telemetry off."""

import asyncio
import datetime as dt
import json
import logging
import re

import pytest

from helpers import AGENT, CHAIR_TOKEN, csrf_of, mcp_session, payload, run, write
from legal_ai import telemetry
from legal_ai.auth import CHAIR, agent
from legal_ai.errors import InvalidInput, NotFound
from legal_ai.store import search_log as sql_log
from scenarios import ingest_ruling

pytestmark = pytest.mark.db

LEVY = "היטל השבחה על תכנית רחביה נקבע לפי שומת השמאי המכריע."
SHED = "הקלה בקו בניין צדדי למחסן בחצר נדחתה בשל פגיעה בפרטיות השכנים."


def rows(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute("SELECT * FROM search_log ORDER BY id").fetchall()


def seed(app, tmp_path) -> None:
    meta = {"court": "העליון", "decided_on": "2020-02-02", "practice_area": "planning"}
    for n, (doc_id, text) in enumerate((("levy-1", LEVY), ("shed-1", SHED)), start=1):
        path = write(tmp_path / f"{doc_id}.txt", text)
        report = app.ingest(
            [path],
            "external",
            doc_id=doc_id,
            meta={**meta, "title": doc_id, "case_number": f'עע"מ {n}/20'},
        )
        assert report.ingested == 1 and not report.unsearchable


def test_app_search_logs_the_caller_hits_and_ranks_only_with_a_surface(app, tmp_path):
    seed(app, tmp_path)
    app.search("external", "היטל השבחה")  # the harness and benchmarks: no surface, no row
    assert rows(app) == []
    writer = app.acting_as(agent("writer"), surface="api")
    answer = writer.tool("search_precedent_library", query="היטל השבחה", court="העליון", limit=5)
    [row] = rows(app)
    assert answer["search_id"] == row["id"]
    assert (row["surface"], row["actor"], row["actor_kind"], row["corpus"], row["tool"]) == (
        "api",
        "agent:writer",
        "agent",
        "external",
        "search_precedent_library",
    )
    assert (row["query"], row["filters"], row["mode"], row["k"]) == (
        "היטל השבחה",
        {"court": "העליון"},
        "hybrid",
        5,
    )
    assert row["n_hits"] == len(answer["hits"]) == len(row["hits"]) >= 1
    for rank, (logged, hit) in enumerate(zip(row["hits"], answer["hits"], strict=True), start=1):
        assert logged == {
            "rank": rank,
            "doc_id": hit["doc_id"],
            "unit_kind": "chunk",
            "unit_id": hit["chunk_id"],
        }
    assert row["hits"][0]["doc_id"] == "levy-1"
    assert 0 < row["latency_ms"] < 60_000 and not row["by_example"]
    # App.search itself (no tool) on a surface; a search that finds nothing is logged too.
    app.on_surface("cli").search("external", "גן ילדים", mode="lexical")
    last = rows(app)[-1]
    assert (last["surface"], last["actor"], last["tool"], last["n_hits"]) == (
        "cli",
        "operator",
        None,
        0,
    )
    # A refused search (no query left) is no search: nothing logged.
    with pytest.raises(InvalidInput):
        app.on_surface("cli").search("external", "\u200f\x00 ")
    assert len(rows(app)) == 2


def test_a_nul_laden_or_huge_query_is_stored_cleaned_and_bounded(app, tmp_path):
    seed(app, tmp_path)
    view = app.on_surface("mcp")
    answer = view.tool("search_precedent_library", query="היטל\x00 השבחה\u202e", court="העל\x00יון")
    row = rows(app)[0]
    assert row["id"] == answer["search_id"]
    assert row["query"] == "היטל השבחה" and row["filters"] == {"court": "העליון"}
    # Straight to the logger (the search refuses such a query before it runs).
    huge = "\x00" + "א\x00" * 30_000
    logged = telemetry.log_search(
        view,
        corpus="external",
        query=huge,
        filters={"court": "ב\x00" * 1000},
        mode="hybrid",
        limit=10,
        result=type("R", (), {"hits": []})(),
        latency_ms=1.5,
    )
    with app.store.connection() as conn:
        row = sql_log.get(conn, logged)
    assert row["query"] == "א" * 2000 and "\x00" not in row["query"]
    assert row["filters"] == {"court": "ב" * 200}


def test_a_logging_failure_never_fails_the_search(app, tmp_path, monkeypatch, caplog):
    seed(app, tmp_path)

    def broken(conn, row):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sql_log, "insert", broken)
    with caplog.at_level(logging.WARNING, logger="legal_ai.telemetry"):
        answer = app.on_surface("cli").tool("search_precedent_library", query="היטל השבחה")
    assert answer["hits"][0]["doc_id"] == "levy-1" and "search_id" not in answer
    assert "the search was not logged" in caplog.text and "disk full" in caplog.text
    assert rows(app) == []


def test_telemetry_off_logs_nothing(app, tmp_path, cli_env):
    seed(app, tmp_path)
    view = app.on_surface("desk")
    view.settings = app.settings.model_copy(update={"telemetry": False})
    answer = view.tool("search_precedent_library", query="היטל השבחה")
    assert answer["hits"] and "search_id" not in answer
    off = {**cli_env, "LEGAL_AI_TELEMETRY": "false"}
    found = json.loads(run(off, "search", "היטל השבחה", "--corpus", "external", "--json").stdout)
    assert found["hits"] and "search_id" not in found
    assert rows(app) == []
    stats = json.loads(run(off, "telemetry", "stats", "--json").stdout)
    assert stats["enabled"] is False and stats["searches"] == 0


def test_cli_search_and_similar_are_logged_and_stats_count_them(app, tmp_path, cli_env):
    seed(app, tmp_path)
    env = {**cli_env, "LEGAL_AI_AGENT_TOKEN": "clerk=t0k"}
    found = json.loads(
        run(
            env,
            "search",
            "היטל השבחה",
            "--corpus",
            "external",
            "--court",
            "העליון",
            "--limit",
            "3",
            "--json",
        ).stdout
    )
    run(env, "similar", "--text", "מחסן בחצר", "--practice-area", "planning", "--json")
    search, similar = rows(app)
    assert found["search_id"] == search["id"]
    assert (search["surface"], search["actor"], search["actor_kind"], search["k"]) == (
        "cli",
        "agent:clerk",
        "agent",
        3,
    )
    assert search["filters"] == {"court": "העליון"} and search["hits"][0]["doc_id"] == "levy-1"
    assert (similar["tool"], similar["corpus"], similar["query"]) == (
        "find_similar_cases",
        "case",
        "מחסן בחצר",
    )
    stats = json.loads(run(cli_env, "telemetry", "stats", "--json").stdout)
    assert stats["searches"] == 2 and stats["by_surface"]["cli"]["searches"] == 2
    assert stats["by_corpus"]["external"]["zero_hit_rate"] == 0.0
    assert stats["by_corpus"]["case"]["zero_hit_rate"] == 1.0  # no case documents
    assert stats["zero_hit_rate"] == 0.5 and stats["latency_ms"]["p50"] > 0
    text = run(cli_env, "telemetry", "stats").stdout
    assert "searches: 2" in text and "zero-hit rate: 50.0%" in text


def test_mcp_calls_are_logged_as_the_agent(app, tmp_path, cli_env):
    seed(app, tmp_path)
    path = write(tmp_path / "case.txt", SHED)
    app.ingest([path], "case", meta={"case_number": "ערר 20/25", "practice_area": "planning"})
    path = write(tmp_path / "case2.txt", SHED + " תיק נוסף")
    app.ingest([path], "case", meta={"case_number": "ערר 24/25", "practice_area": "planning"})
    env = {**cli_env, "LEGAL_AI_AGENT_TOKEN": "drafter=t", "LEGAL_AI_CHAIR_TOKEN": "her"}
    calls = [
        ("search_precedent_library", {"query": "הקלה בקו בניין", "limit": 4}),
        ("find_similar_cases", {"case_number": "ערר 20/25"}),
    ]
    _, _, results = asyncio.run(mcp_session(env, calls))
    answers = [payload(r) for r in results.values()]
    search, similar = rows(app)
    assert [a["search_id"] for a in answers] == [search["id"], similar["id"]]
    assert {(r["surface"], r["actor"], r["actor_kind"]) for r in (search, similar)} == {
        ("mcp", "agent:drafter", "agent")
    }
    assert search["hits"][0]["doc_id"] == "shed-1" and search["k"] == 4
    # By a case's own documents: flagged, so it never becomes a gold-set query.
    assert similar["by_example"] and similar["filters"] == {
        "practice_area": "planning",
        "exclude_case_number": "ערר 20/25",
    }
    assert similar["hits"][0]["rank"] == 1 and len(similar["query"]) <= 2000


def test_api_searches_are_logged_as_who_authenticated(client, desk_app, tmp_path):
    seed(desk_app, tmp_path)
    params = {"query": "היטל השבחה", "corpus": "external", "limit": 3, "actor": "chair"}
    for token in (AGENT, CHAIR_TOKEN):
        answer = client.get(
            "/api/search", params=params, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["hits"][0]["doc_id"] == "levy-1"
    agent_row, chair_row = rows(desk_app)
    # The caller is whoever the token stands for; an `actor` in the request is ignored.
    assert (agent_row["surface"], agent_row["actor"], agent_row["actor_kind"]) == (
        "api",
        "agent:writer",
        "agent",
    )
    assert (chair_row["actor"], chair_row["actor_kind"], chair_row["k"]) == ("chair", "chair", 3)
    assert client.get("/api/search", params=params).status_code == 401
    assert len(rows(desk_app)) == 2


def test_desk_search_clicks_and_useful_marks(chair, desk_app, tmp_path):
    ingest_ruling(desk_app, tmp_path)
    page = chair.get("/search", params={"corpus": "external", "q": "הקלה בקו בניין"})
    [row] = rows(desk_app)
    assert (row["surface"], row["actor"], row["actor_kind"]) == ("desk", "chair", "chair")
    sid = row["id"]
    assert f'name="sid" value="{sid}"' in page.text and ">שימושי</button>" in page.text
    link = re.search(
        rf'href="(/source/external/ruling-1\?[^"]*sid={sid}&amp;rank=1#span)"', page.text
    )
    assert link, page.text
    # Opening the hit's source records the click (once, however often she opens it).
    for _ in range(2):
        assert chair.get(link.group(1).replace("&amp;", "&")).status_code == 200
    # A click on a rank the search did not return, or on a search that does not exist: the
    # page opens, nothing is recorded.
    assert chair.get(f"/source/external/ruling-1?sid={sid}&rank=7").status_code == 200
    assert chair.get("/source/external/ruling-1?sid=999999&rank=1").status_code == 200
    # The useful mark needs the form's CSRF token.
    token = csrf_of(page.text)
    refused = chair.post("/search/useful", data={"sid": sid, "rank": 1, "useful": "1"})
    assert refused.status_code == 403 and "CSRF" in refused.text
    marked = chair.post(
        "/search/useful",
        data={"csrf": token, "sid": sid, "rank": 1, "useful": "1"},
        follow_redirects=False,
    )
    assert marked.status_code == 303
    back = marked.headers["location"]
    assert back.startswith("/search?") and f"sid={sid}" in back and back.endswith("#hit-1")
    shown = chair.get(back)
    assert "✓ שימושי" in shown.text and 'aria-pressed="true"' in shown.text
    assert len(rows(desk_app)) == 1  # shown again after the mark: not a second search
    marks = telemetry.search_row(desk_app, sid)["marks"]
    assert [(m["rank"], m["kind"], m["doc_id"], m["actor"]) for m in marks] == [
        (1, "click", "ruling-1", "chair"),
        (1, "useful", "ruling-1", "chair"),
    ]
    # Pressed again: the mark is taken back.
    again = chair.post(
        "/search/useful",
        data={"csrf": token, "sid": sid, "rank": 1, "useful": "0"},
        follow_redirects=False,
    )
    assert again.status_code == 303
    assert [m["kind"] for m in telemetry.search_row(desk_app, sid)["marks"]] == ["click"]
    # A rank the search did not return, a search that is not the desk's: refused, said so.
    bad = chair.post("/search/useful", data={"csrf": token, "sid": sid, "rank": 9})
    assert bad.status_code == 400 and "no hit at rank 9" in bad.text
    other = desk_app.on_surface("cli").tool("search_precedent_library", query="הקלה")
    foreign = chair.post(
        "/search/useful", data={"csrf": token, "sid": other["search_id"], "rank": 1}
    )
    assert foreign.status_code == 404
    # Only the chair marks: an agent's role may not write a mark (the allowlist, 0033; the
    # gate's own refusal stands behind it).
    with pytest.raises(Exception, match="only the chair marks|permission denied for table"):
        telemetry.mark(desk_app.acting_as(agent("writer")), sid, 1)
    with pytest.raises(NotFound):
        telemetry.mark(desk_app.acting_as(CHAIR), 999999, 1)


def mark_useful(app, query: str, doc_ids: list[str], surface: str = "desk") -> dict:
    answer = app.acting_as(CHAIR, surface=surface).tool("search_precedent_library", query=query)
    ranks = {h["doc_id"]: n for n, h in enumerate(answer["hits"], start=1)}
    for doc_id in doc_ids:
        telemetry.mark(app.acting_as(CHAIR), answer["search_id"], ranks[doc_id])
    return answer


def test_export_with_nothing_marked_writes_empty_files_and_says_so(app, tmp_path, cli_env):
    seed(app, tmp_path)
    app.on_surface("cli").tool("search_precedent_library", query="היטל השבחה")  # not marked
    qrels, queries = tmp_path / "qrels.tsv", tmp_path / "queries.jsonl"
    done = run(cli_env, "telemetry", "export", "--qrels", str(qrels))
    assert "no marked searches" in done.stdout and "שימושי" in done.stdout
    assert qrels.read_text(encoding="utf-8") == "query_id\tdoc_id\trelevance\n"
    assert queries.read_text(encoding="utf-8") == ""


def test_marked_searches_export_as_a_gold_set_that_eval_reads(app, tmp_path, cli_env):
    seed(app, tmp_path)
    for doc_id, text in (
        ("levy-2", "השגה על היטל השבחה נדחתה."),
        ("noise", "פיצויים לפי סעיף 197"),
    ):
        meta = {
            "case_number": f'עע"מ 9{len(doc_id)}/21',
            "court": "העליון",
            "decided_on": "2021-01-01",
        }
        app.ingest([write(tmp_path / f"{doc_id}.txt", text)], "external", doc_id=doc_id, meta=meta)
    mark_useful(app, "היטל השבחה", ["levy-1"])
    mark_useful(app, "היטל השבחה", ["levy-2"])  # the same query again: one query, both docs
    shed = mark_useful(app, "מחסן בחצר", ["shed-1"])
    telemetry.mark(app.acting_as(CHAIR), shed["search_id"], 1, "click")
    app.on_surface("cli").tool("search_precedent_library", query="פיצויים")  # unmarked
    old = mark_useful(app, "ישן", [])  # no mark: never exported
    assert old["search_id"]
    out = tmp_path / "gold"
    out.mkdir()
    qrels, queries, corpus = out / "qrels.tsv", out / "queries.jsonl", out / "corpus.jsonl"
    report = json.loads(
        run(
            cli_env,
            "telemetry",
            "export",
            "--qrels",
            str(qrels),
            "--queries",
            str(queries),
            "--corpus",
            str(corpus),
            "--json",
        ).stdout
    )
    assert (report["queries"], report["searches"], report["judgments"]) == (2, 3, 3)
    lines = [json.loads(x) for x in queries.read_text(encoding="utf-8").splitlines()]
    assert [(q["text"], q["corpus"]) for q in lines] == [
        ("היטל השבחה", "external"),
        ("מחסן בחצר", "external"),
    ]
    levy_id, shed_id = lines[0]["_id"], lines[1]["_id"]
    assert len(lines[0]["searches"]) == 2
    assert qrels.read_text(encoding="utf-8").splitlines() == [
        "query_id\tdoc_id\trelevance",
        f"{levy_id}\tlevy-1\t1",
        f"{levy_id}\tlevy-2\t1",
        f"{shed_id}\tshed-1\t1",
    ]
    assert {json.loads(x)["doc_id"] for x in corpus.read_text(encoding="utf-8").splitlines()} == {
        "levy-1",
        "levy-2",
        "shed-1",
    }
    # With clicks: useful 2, opened 1.
    graded = tmp_path / "graded.tsv"
    run(cli_env, "telemetry", "export", "--qrels", str(graded), "--clicks")
    assert f"{shed_id}\tshed-1\t2" in graded.read_text(encoding="utf-8")
    # --since after every search: nothing.
    later = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    none = json.loads(
        run(
            cli_env,
            "telemetry",
            "export",
            "--qrels",
            str(tmp_path / "n.tsv"),
            "--since",
            later,
            "--json",
        ).stdout
    )
    assert none["queries"] == 0
    # `legal-ai eval` reads the exported set (lexical mode: quick) and finds the judged docs.
    result = run(
        cli_env,
        "eval",
        "--corpus",
        str(corpus),
        "--queries",
        str(queries),
        "--qrels",
        str(qrels),
        "--modes",
        "lexical",
        "--name",
        "telemetry",
        "--json",
    )
    evaluated = json.loads(result.stdout)
    assert evaluated["n_queries"] == 2 and evaluated["n_docs"] == 3
    assert evaluated["modes"]["lexical"]["recall@10"] == 1.0


def test_retention_prunes_old_searches_and_their_marks(app, tmp_path, cli_env):
    seed(app, tmp_path)
    old = mark_useful(app, "היטל השבחה", ["levy-1"])
    new = app.on_surface("cli").tool("search_precedent_library", query="מחסן")
    with app.store.transaction() as conn:
        conn.execute(
            "UPDATE search_log SET at = %s WHERE id = %s",
            (dt.datetime(2025, 1, 1, tzinfo=dt.UTC), old["search_id"]),
        )
    now = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)  # 151 days later
    assert telemetry.prune(app, now)["deleted"] == 0  # default retention 180 days
    kept = app.settings.model_copy(update={"telemetry_retention_days": 150})
    view = app.on_surface(None)
    view.settings = kept
    result = telemetry.prune(view, now)
    assert result["deleted"] == 1 and result["retention_days"] == 150
    assert [r["id"] for r in rows(app)] == [new["search_id"]]
    with app.store.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM search_marks").fetchone()["n"] == 0
    with pytest.raises(InvalidInput):
        telemetry.prune(app, dt.datetime(2025, 6, 1))  # no time zone
    # The command: by the configured retention, or --days.
    env = {**cli_env, "LEGAL_AI_TELEMETRY_RETENTION_DAYS": "1"}
    assert json.loads(run(env, "telemetry", "prune", "--json").stdout)["deleted"] == 0
    with app.store.transaction() as conn:
        conn.execute("UPDATE search_log SET at = now() - interval '2 days'")
    assert "deleted 1 searches" in run(env, "telemetry", "prune").stdout
    assert rows(app) == []
    bad = run(cli_env, "telemetry", "prune", "--days", "0", check=False)
    assert bad.returncode != 0 and "at least 1" in bad.stderr
