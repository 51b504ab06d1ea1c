"""Metrics and logs (issue 24 item 4): `GET /metrics` scraped after real work — searches over the
API, uploads stored and refused, an enrichment job run by the worker's code against the
scripted model server (llm_servers.py, conftest's `enricher`), one of its calls failing — and
read by Prometheus' own text parser; the token's refusals (none, wrong, another credential's,
not configured); each request's id in the response header, in a JSON log line and in the
search-log and audit rows the request wrote."""

import asyncio
import io
import json
import logging
import re
from types import SimpleNamespace
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from helpers import AGENT, CHAIR_TOKEN, ROOT, remote_session, serving, write
from legal_ai import logs
from legal_ai.errors import InvalidInput
from legal_ai.learning.arrival import enrichment
from legal_ai.ops import scheduler as schedule
from legal_ai.ops.scheduler import Job
from legal_ai.store.db import Store
from legal_ai.web.app import create_app
from legal_ai.web.metrics import DatabaseCollector
from llm_servers import Reply
from scenarios import ingest_decision

pytestmark = pytest.mark.db

METRICS_TOKEN = "s3cret-metrics-token"
DRAFT = (
    "ועדת הערר\nהחלטה\n\nפתח דבר\n\nערר על היתר.\n\nרקע עובדתי\n\nהבקשה הוגשה.\n\n"
    "דיון והכרעה\n\nהערר נדחה.\n\nסוף דבר\n\nהערר נדחה.\n"
)
CASE_URL = quote("ערר 7/25")


def web_settings(app, tmp_path, **update):
    return app.settings.model_copy(
        update={
            "home": tmp_path / "home",
            "agent_token": f"writer={AGENT}",
            "chair_token": CHAIR_TOKEN,
            "metrics_token": METRICS_TOKEN,
            "max_file_mb": 1,
            "max_decision_mb": 1,
            "max_decision_text_mb": 1,
            **update,
        }
    )


@pytest.fixture
def web(app, tmp_path):
    with TestClient(create_app(web_settings(app, tmp_path), legal=app)) as client:
        yield client


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def scrape(client) -> dict[tuple, float]:
    """Every sample of /metrics, parsed by prometheus_client's parser: (name, labels) -> value."""
    response = client.get("/metrics", headers=bearer(METRICS_TOKEN))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def value(samples: dict, name: str, **labels) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def upload(client, name: str, content: bytes, ctype: str = "text/plain", headers=None):
    return client.post(
        f"/api/cases/{CASE_URL}/draft/upload",
        files={"file": (name, content, ctype)},
        headers={**bearer(AGENT), **(headers or {})},
    )


def test_metrics_after_searches_uploads_a_job_and_model_calls(app, tmp_path, enricher, web):
    script, _ = enricher
    ingest_decision(app, tmp_path)  # an internal decision: its enrichment is queued
    assert [a["doc_id"] for a in enrichment.run(app)["applied"]] == ["d-1042"]
    # A second decision whose model call fails: its job goes back to the queue (backoff).
    script.fail = Reply(status=500)
    path = write(tmp_path / "second.txt", "ערר (מרכז) 2000/23 לוי נ' הוועדה\nהחלטה\nהערר נדחה.")
    meta = {"case_number": "ערר (מרכז) 2000/23", "title": "לוי", "decided_on": "2023-12-01"}
    assert app.ingest([path], "internal", doc_id="d-2000", meta=meta).failed == []
    enrichment.run(app)
    # Two runs of scheduled jobs: one ok, one failing.
    assert schedule.run_now(app, "sync-case-status")["outcome"] == "ok"
    breaks = Job("breaks", "0 8 * * *", "fails", lambda a, now: 1 / 0)
    assert schedule.run_now(app, "breaks", jobs=(breaks,))["outcome"] == "failed"

    hits = []
    for mode in ("hybrid", "hybrid", "lexical"):
        answer = web.get(
            "/api/search",
            params={"query": "הקלה בקווי בניין", "corpus": "internal", "mode": mode},
            headers=bearer(AGENT),
        )
        assert answer.status_code == 200, answer.text
        hits.append(len(answer.json()["hits"]))
    assert hits[0] >= 1

    assert upload(web, "draft.txt", DRAFT.encode()).status_code == 200
    assert upload(web, "tool.exe", b"MZ...").status_code == 415
    too_big = upload(web, "big.txt", b"x" * (3 << 20))  # over the 1 MB cap (and its overhead)
    assert too_big.status_code == 413

    samples = scrape(web)
    search = {"corpus": "internal", "surface": "api"}
    assert value(samples, "legal_ai_search_seconds_count", mode="hybrid", **search) == 2
    assert value(samples, "legal_ai_search_seconds_count", mode="lexical", **search) == 1
    assert value(samples, "legal_ai_search_seconds_sum", mode="hybrid", **search) > 0
    assert value(samples, "legal_ai_search_hits_sum", mode="hybrid", **search) == sum(hits[:2])
    assert value(samples, "legal_ai_search_hits_sum", mode="lexical", **search) == hits[2]
    every = value(samples, "legal_ai_search_seconds_bucket", mode="hybrid", le="+Inf", **search)
    assert every == 2

    assert value(samples, "legal_ai_uploads_total", kind="draft", outcome="stored") == 1
    assert value(samples, "legal_ai_uploads_total", kind="draft", outcome="unsupported_type") == 1
    assert value(samples, "legal_ai_uploads_total", kind="draft", outcome="too_large") == 1

    assert value(samples, "legal_ai_database_up") == 1
    done = value(samples, "legal_ai_jobs_finished_total", kind="enrichment", outcome="done")
    assert done == 1
    assert value(samples, "legal_ai_queue_jobs", kind="enrichment", status="queued") == 1
    assert value(samples, "legal_ai_queue_jobs", kind="enrichment", status="running") == 0
    runs = {"job_name": "sync-case-status", "outcome": "ok"}
    assert value(samples, "legal_ai_scheduled_runs_total", **runs) == 1
    failed = {"job_name": "breaks", "outcome": "failed"}
    assert value(samples, "legal_ai_scheduled_runs_total", **failed) == 1
    assert not [key for key in samples if "job" in dict(key[1])]  # Prometheus' own label
    oldest = value(samples, "legal_ai_queue_oldest_seconds", kind="enrichment", status="queued")
    assert oldest is not None and oldest >= 0

    model = {"role": "enrichment", "model": "openai:enricher"}
    assert value(samples, "legal_ai_model_calls_total", outcome="ok", **model) == 1
    assert value(samples, "legal_ai_model_calls_total", outcome="error", **model) == 1
    assert value(samples, "legal_ai_model_tokens_total", direction="in", **model) == 120
    assert value(samples, "legal_ai_model_tokens_total", direction="out", **model) == 40
    assert value(samples, "legal_ai_model_call_seconds_total", **model) >= 0

    # The sample Grafana dashboard asks only for series, and labels, this scrape carries.
    assert dashboard_gaps(samples) == []


def dashboard_gaps(samples: dict) -> list[str]:
    """Each metric a panel's (or the template's) query names that the scrape lacks, and each
    label it groups, filters or titles by that the metric's samples lack (`job` would be
    Prometheus' own target label, never one of ours: issue 32 item 9)."""
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text(encoding="utf-8"))
    queries = [
        (t["expr"], t.get("legendFormat", ""))
        for p in dashboard["panels"]
        for t in p.get("targets", [])
    ]
    queries += [(v["definition"], "") for v in dashboard["templating"]["list"]]
    carried: dict[str, set[str]] = {}
    for name, labels in samples:
        carried.setdefault(name, set()).update(label for label, _ in labels)
    gaps, named = [], set()
    for expr, legend in queries:
        metrics = set(re.findall(r"legal_ai_[a-z_]+", expr))
        named |= metrics
        grouped = {x.strip() for by in re.findall(r"by \(([^)]*)\)", expr) for x in by.split(",")}
        grouped |= set(re.findall(r"\{\{(\w+)\}\}", legend))
        grouped |= set(re.findall(r"label_values\(\w+, (\w+)\)", expr))
        for metric in metrics:
            if metric not in carried:
                gaps.append(f"{metric}: not in the scrape")
                continue
            selected = re.findall(rf"{metric}\{{([^}}]*)\}}", expr)
            wanted = grouped | {m for sel in selected for m in re.findall(r"(\w+)\s*[=!]~?", sel)}
            gaps += [f"{metric}: no label {label}" for label in sorted(wanted - carried[metric])]
    assert len(named) >= 14, named
    return gaps


def test_each_app_counts_in_its_own_registry(app, tmp_path, web):
    """A second app over the same App starts from zero: no shared, process-wide registry."""
    assert upload(web, "tool.exe", b"MZ").status_code == 415
    assert value(scrape(web), "legal_ai_uploads_total", kind="draft", outcome="unsupported_type")
    with TestClient(create_app(web_settings(app, tmp_path), legal=app)) as other:
        samples = scrape(other)
    assert (
        value(samples, "legal_ai_uploads_total", kind="draft", outcome="unsupported_type") is None
    )


def test_metrics_without_the_token_or_with_a_wrong_one_is_401_json(web):
    for headers in ({}, bearer("nope"), bearer(AGENT), bearer(CHAIR_TOKEN), {"X": "y"}):
        response = web.get("/metrics", headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"] == "Bearer"
        message = response.json()["error"]
        assert "Authorization: Bearer <LEGAL_AI_METRICS_TOKEN>" in message
        assert "legal_ai_" not in response.text
    basic = web.get("/metrics", headers={"Authorization": f"Basic {METRICS_TOKEN}"})
    assert basic.status_code == 401 and basic.json()["error"].startswith("missing token")
    # the metrics token opens nothing else
    assert web.get("/api/lessons", headers=bearer(METRICS_TOKEN)).status_code == 401


def test_metrics_are_off_until_a_token_is_set_and_it_must_be_its_own(app, tmp_path):
    with TestClient(create_app(web_settings(app, tmp_path, metrics_token=None), legal=app)) as c:
        response = c.get("/metrics", headers=bearer(METRICS_TOKEN))
    assert response.status_code == 404
    assert "metrics are off: set LEGAL_AI_METRICS_TOKEN" in response.json()["error"]
    for reused in (CHAIR_TOKEN, AGENT):
        with pytest.raises(InvalidInput, match="LEGAL_AI_METRICS_TOKEN must differ"):
            create_app(web_settings(app, tmp_path, metrics_token=reused), legal=app)


def test_openmetrics_when_the_scraper_asks_for_it(web):
    response = web.get(
        "/metrics",
        headers={**bearer(METRICS_TOKEN), "Accept": "application/openmetrics-text; version=1.0.0"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.rstrip().endswith("# EOF")


@pytest.fixture
def log_lines():
    """What the server logs, as `legal-ai serve` writes it (logs.handler, JSON), captured."""
    stream = io.StringIO()
    out = logs.handler("json", stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(out)
    root.setLevel(logging.INFO)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(out)
        root.setLevel(level)


def test_the_request_id_is_answered_logged_and_recorded(app, tmp_path, web, log_lines):
    given = "req-4e1f.77:a"
    answer = web.get(
        "/api/search",
        params={"query": "היתר בנייה", "corpus": "internal"},
        headers={**bearer(AGENT), "X-Request-ID": given},
    )
    assert answer.status_code == 200 and answer.headers["x-request-id"] == given
    [line] = [x for x in log_lines() if x["logger"] == "legal_ai.web.access"]
    assert line["request_id"] == given and line["level"] == "INFO"
    assert line["method"] == "GET" and line["path"] == "/api/search" and line["status"] == 200
    assert "היתר" not in json.dumps(line, ensure_ascii=False)  # the query string is not logged
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["time"])

    # The chair's methodology edit: its audit row carries the request's (generated) id.
    edit = web.post(
        "/api/methodology/universal",
        json={"changes": {"lessons": []}, "reason": "request id test"},
        headers={**bearer(CHAIR_TOKEN), "X-Request-ID": "bad id with spaces"},
    )
    assert edit.status_code == 200, edit.text
    made = edit.headers["x-request-id"]
    assert made != "bad id with spaces" and re.fullmatch(r"[0-9a-f]{32}", made)
    with app.store.connection() as conn:
        searches = conn.execute("SELECT request_id FROM search_log").fetchall()
        audit = conn.execute(
            "SELECT request_id FROM learning_audit WHERE action = 'edit_methodology'"
        ).fetchall()
    assert searches == [{"request_id": given}]
    assert audit == [{"request_id": made}]
    # Outside a request (the CLI's searches, say) no row is given an id.
    app.on_surface("cli").search("internal", "היתר", limit=1)
    with app.store.connection() as conn:
        rows = conn.execute("SELECT surface, request_id FROM search_log ORDER BY id").fetchall()
    assert rows[-1] == {"surface": "cli", "request_id": None} and logs.request_id() is None


def test_every_answer_carries_its_id_errors_and_desk_pages_too(web):
    for path, status in (("/nowhere", 404), ("/login", 200), ("/healthz", 200)):
        response = web.get(path, headers={"X-Request-ID": "x" * 129})  # too long: replaced
        assert response.status_code == status
        assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])
    one, two = (web.get("/healthz").headers["x-request-id"] for _ in range(2))
    assert one != two


def test_log_lines_as_text_and_as_json():
    stream = io.StringIO()
    record = logging.LogRecord("legal_ai.x", logging.WARNING, __file__, 1, "a\nb %s", ("c",), None)
    mark = logs.REQUEST_ID.set("r-1")
    try:
        for fmt in ("json", "text"):
            logs.handler(fmt, stream).handle(record)
            del record.request_id  # stamped by the first handler's filter
    finally:
        logs.REQUEST_ID.reset(mark)
    as_json, as_text = stream.getvalue().splitlines()[0], stream.getvalue().splitlines()[1:]
    assert json.loads(as_json)["message"] == "a\nb c" and json.loads(as_json)["request_id"] == "r-1"
    assert as_text == ["WARNING legal_ai.x [r-1] a", "b c"]
    with pytest.raises(ValueError, match="json, text"):
        logs.handler("xml")


def test_the_database_unreachable_at_a_scrape_is_said_not_raised(app):
    """A store whose pool is gone: `legal_ai_database_up 0`, and none of the database's series
    (the scrape still answers with the process's own)."""
    gone = Store(app.settings.database_url, max_size=1)
    gone.close()
    families = list(DatabaseCollector(SimpleNamespace(store=gone)).collect())
    assert [(f.name, [s.value for s in f.samples]) for f in families] == [
        ("legal_ai_database_up", [0])
    ]
    live = {f.name: f for f in DatabaseCollector(app).collect()}
    assert live["legal_ai_database_up"].samples[0].value == 1
    assert live["legal_ai_metrics_database_seconds"].samples[0].value > 0


def test_serve_logs_json_lines_by_default_and_text_when_asked(monkeypatch):
    """`legal-ai serve`: the root logger gets one handler of ours (replaced, not added, when
    configured again); uvicorn gets no logging configuration and no access log of its own."""
    import uvicorn

    from legal_ai.cli import processes as services
    from legal_ai.web import app as web_app

    seen: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: seen.append(kwargs))
    monkeypatch.setattr(web_app, "create_app", lambda settings: object())
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    try:
        services.serve(host="127.0.0.1", port=1)
        [ours] = [h for h in root.handlers if h.name == "legal-ai"]
        assert isinstance(ours.formatter, logs.JsonFormatter) and root.level == logging.INFO
        monkeypatch.setenv("LEGAL_AI_LOG_FORMAT", "text")
        services.serve(host="127.0.0.1", port=1)
        [ours] = [h for h in root.handlers if h.name == "legal-ai"]
        assert ours.formatter._fmt == logs.TEXT_FORMAT
    finally:
        for handler in [h for h in root.handlers if h not in before[0]]:
            root.removeHandler(handler)
        root.setLevel(before[1])
    assert all(s["log_config"] is None and s["access_log"] is False for s in seen)
    assert len(seen) == 2


def test_mcp_tool_calls_over_http_are_counted_and_carry_their_request_id(app, tmp_path):
    """Under a real uvicorn, as `legal-ai serve` runs: a remote agent's search through /mcp is
    counted (surface mcp) and its search-log row has the id of the HTTP request that made it."""
    api = create_app(web_settings(app, tmp_path), legal=app)
    with serving(api, lifespan="on") as url:
        calls = [("search_internal_decisions", {"query": "הקלה"})]
        _, [result] = asyncio.run(remote_session(url, AGENT, calls))
        assert not result.is_error
        answer = httpx.get(f"{url}/metrics", headers=bearer(METRICS_TOKEN), timeout=30)
    assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
    }
    counted = {"corpus": "internal", "mode": "hybrid", "surface": "mcp"}
    assert value(samples, "legal_ai_search_seconds_count", **counted) == 1
    with app.store.connection() as conn:
        [row] = conn.execute("SELECT surface, request_id FROM search_log").fetchall()
    assert row["surface"] == "mcp" and re.fullmatch(r"[0-9a-f]{32}", row["request_id"])
