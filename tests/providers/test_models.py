"""The language-model adapters, each through its official SDK against a local server on 127.0.0.1
that speaks that provider's wire format (tests/llm_servers.py): the structured-output request,
retries with backoff and Retry-After, timeouts, invalid answers, refused keys, Hebrew, and one
CallRecord for every attempt. No database."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable
from email.utils import formatdate

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pydantic import BaseModel, Field

from legal_ai.config import Settings
from legal_ai.errors import InvalidInput, ProviderError
from legal_ai.providers.models import CallRecord, make_model, parse_spec, parse_specs
from legal_ai.providers.models._calls import retry_after, tls_context
from legal_ai.providers.models.anthropic_model import AnthropicModel
from legal_ai.providers.models.gemini_model import GeminiModel
from legal_ai.providers.models.openai_compat import OpenAICompatible
from llm_servers import (
    Reply,
    prompt_text,
    schema_name,
    scripted_anthropic,
    scripted_gemini,
    scripted_openai,
)

KEY = "sk-scripted-0123456789-secret"
SERVERS = {"openai": scripted_openai, "anthropic": scripted_anthropic, "gemini": scripted_gemini}
ADAPTERS = {"openai": OpenAICompatible, "anthropic": AnthropicModel, "gemini": GeminiModel}
VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
PROVIDERS = list(SERVERS)


class Verdict(BaseModel):
    """A panel member's vote on one proposed lesson."""

    approve: bool
    reason: str = Field(min_length=1)
    lesson_id: int | None = None


GOOD = {"approve": True, "reason": "נוסח עקבי", "lesson_id": 7}


@pytest.fixture(autouse=True)
def provider_environ(monkeypatch):
    """Only the keys a test sets: none of the machine's provider settings leak in."""
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GENAI_USE_ENTERPRISE",
    ):
        monkeypatch.delenv(name, raising=False)
    for variable in VARIABLES.values():
        monkeypatch.setenv(variable, KEY)


class Sequence:
    """A script answering `replies` in order (the last one again after that), noting when each
    request arrived."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.times: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict, path: str) -> Reply:
        with self._lock:
            self.times.append(time.monotonic())
            return self.replies[min(len(self.times), len(self.replies)) - 1]


def adapter(provider: str, url: str, records: list, *, timeout: float = 2.0, retries: int = 2):
    settings = Settings(model_timeout_s=timeout, model_retries=retries)
    cls = ADAPTERS[provider]
    return cls(
        parse_spec(f"{provider}:m1@{url}", "LEGAL_AI_DISTILLER"),
        settings,
        records.append,
        backoff_s=0.01,
    )


def run(
    provider: str,
    script: Callable,
    *,
    timeout: float = 2.0,
    retries: int = 2,
    user: str = "הצבע על הלקח",
):
    """Ask once through a scripted server: (result or the ProviderError, records, requests)."""
    records: list[CallRecord] = []
    with SERVERS[provider](script) as server:
        model = adapter(provider, server.url, records, timeout=timeout, retries=retries)
        try:
            result = model.ask("אתה חבר בפאנל הסגנון.", user, Verdict, stage="panel")
        except ProviderError as exc:
            result = exc
        return result, records, server.requests


def outcomes(records: list[CallRecord]) -> list[str]:
    return [r.outcome for r in records]


def assert_clean(records: list[CallRecord]) -> None:
    """Every attempt numbered in order, and no record carries the key."""
    assert [r.attempt for r in records] == list(range(1, len(records) + 1))
    for record in records:
        assert KEY not in repr(record)
        assert record.error is None or "\n" not in record.error


# -- a valid answer, and what the request asked for ---------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_valid_answer_is_validated_and_recorded(provider):
    result, records, requests = run(provider, Sequence(Reply(json=GOOD, tokens_in=321)))
    assert result == Verdict(**GOOD)
    assert len(requests) == 1
    (record,) = records
    system, user = "אתה חבר בפאנל הסגנון.", "הצבע על הלקח"
    digest = hashlib.sha256("\x00".join((system, user, "Verdict")).encode()).hexdigest()
    assert (record.stage, record.provider, record.model, record.outcome) == (
        "panel",
        provider,
        "m1",
        "ok",
    )
    assert (record.prompt_hash, record.tokens_in, record.tokens_out) == (digest, 321, 40)
    assert record.base_url.startswith("http://127.0.0.1:") and record.error is None
    assert record.latency_ms >= 0
    assert_clean(records)
    # the key reached the server in the provider's header, and nowhere in the body
    headers = {k.lower(): v for k, v in requests[0]["headers"].items()}
    sent = headers.get("x-goog-api-key") or headers.get("x-api-key") or headers["authorization"]
    assert KEY in sent
    assert KEY not in repr({k: v for k, v in requests[0].items() if k != "headers"})


def self_signed(folder) -> tuple[str, ssl.SSLContext]:
    """A certificate for 127.0.0.1 signed by itself (its own authority), in `folder`: its file
    (what a client trusts) and a server's TLS context serving it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    return str(cert_file), server


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_client_verifies_its_server_with_the_processs_one_tls_context(
    provider, tmp_path, monkeypatch
):
    """Each SDK built a TLS context for every client it made (reading the certificate roots
    again: 30 ms for OpenAI's, 100 ms for Gemini's three). The adapters give theirs the process's
    one (`tls_context`), built when first needed from the roots then named (SSL_CERT_FILE here,
    a self-signed server's own certificate): a client made after the variable is gone still
    trusts that server over HTTPS, which a context of the SDK's own (certifi's roots) would not,
    and a wrong server is still refused."""
    cert, server_tls = self_signed(tmp_path)
    tls_context.cache_clear()
    monkeypatch.setenv("SSL_CERT_FILE", cert)
    try:
        shared = tls_context()
        monkeypatch.delenv("SSL_CERT_FILE")
        with SERVERS[provider](Sequence(Reply(json=GOOD)), tls=server_tls) as server:
            assert server.url.startswith("https://127.0.0.1:")
            for _ in range(2):  # two clients, one context
                records: list[CallRecord] = []
                model = adapter(provider, server.url, records, retries=0)
                try:
                    assert model.ask("אתה חבר בפאנל הסגנון.", "הצבע", Verdict, stage="panel")
                finally:
                    model.close()
                assert [r.outcome for r in records] == ["ok"]
        assert tls_context() is shared
        (tmp_path / "other").mkdir()
        _, other_tls = self_signed(tmp_path / "other")
        with SERVERS[provider](Sequence(Reply(json=GOOD)), tls=other_tls) as server:
            records = []
            model = adapter(provider, server.url, records, retries=0)
            try:
                with pytest.raises(ProviderError):  # a certificate nobody named: refused
                    model.ask("אתה חבר בפאנל הסגנון.", "הצבע", Verdict, stage="panel")
            finally:
                model.close()
    finally:
        tls_context.cache_clear()  # the next test's clients: the machine's own roots


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("how", ["close", "drop"])
def test_an_adapter_closed_or_dropped_leaves_no_socket_open(provider, how):
    """Its SDK client's pooled connection is closed by `close()` (twice is harmless) or when the
    adapter is collected, even from a reference cycle (where the collector would otherwise
    finalize the socket before the SDK's wrapper closes it: a ResourceWarning)."""
    import gc
    import warnings

    # A timed-out first attempt: the abandoned connection is the one the pool keeps open.
    with SERVERS[provider](Sequence(Reply(json=GOOD, delay=0.6), Reply(json=GOOD))) as server:
        model = adapter(provider, server.url, [], timeout=0.3)
        assert model.ask("system", "user", Verdict, stage="panel") == Verdict(**GOOD)
        model.itself = model  # a cycle, as a traceback or a run's objects can make
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            if how == "close":
                model.close()
                model.close()
            del model
            gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []


def test_openai_request_carries_the_strict_json_schema():
    _, _, requests = run("openai", Sequence(Reply(json=GOOD)))
    request = requests[0]
    assert request["path"] == "/v1/chat/completions" and request["model"] == "m1"
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Verdict" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    # strict mode: closed objects, every property required (optional ones nullable)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["approve", "reason", "lesson_id"]
    assert {"type": "null"} in schema["properties"]["lesson_id"]["anyOf"]
    assert schema_name(request) == "Verdict"


def test_anthropic_request_forces_the_schema_tool():
    _, _, requests = run("anthropic", Sequence(Reply(json=GOOD)))
    request = requests[0]
    assert request["path"] == "/v1/messages" and request["model"] == "m1"
    assert request["system"] == "אתה חבר בפאנל הסגנון."
    assert request["tool_choice"] == {"type": "tool", "name": "Verdict"}
    (tool,) = request["tools"]
    assert tool["name"] == "Verdict"
    assert tool["description"] == "A panel member's vote on one proposed lesson."
    assert tool["input_schema"] == Verdict.model_json_schema()
    assert request["max_tokens"] > 0
    assert schema_name(request) == "Verdict"


def test_gemini_request_carries_the_response_json_schema():
    _, _, requests = run("gemini", Sequence(Reply(json=GOOD)))
    request = requests[0]
    assert request["path"].endswith("/models/m1:generateContent")
    config = request["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == Verdict.model_json_schema()
    assert request["systemInstruction"]["parts"][0]["text"] == "אתה חבר בפאנל הסגנון."
    assert schema_name(request) == "Verdict"


# -- retries ----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_error_then_success_is_retried(provider):
    result, records, requests = run(provider, Sequence(Reply(status=500), Reply(json=GOOD)))
    assert result == Verdict(**GOOD)
    assert outcomes(records) == ["error", "ok"] and len(requests) == 2
    assert "HTTP 500" in records[0].error and records[0].tokens_in is None
    assert_clean(records)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_errors_past_the_retries_raise(provider):
    result, records, requests = run(provider, Sequence(Reply(status=503)), retries=1)
    assert isinstance(result, ProviderError)
    assert "after 2 attempt(s)" in str(result) and "HTTP 503" in str(result)
    assert outcomes(records) == ["error", "error"] and len(requests) == 2


# how each provider says when to come back after a 429
RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.4s"}
WAITS = {
    "openai": (Reply(status=429, headers={"Retry-After": "1"}), 1.0),
    "anthropic": (Reply(status=429, headers={"retry-after-ms": "400"}), 0.4),
    "gemini": (
        Reply(
            status=429,
            json={
                "error": {
                    "code": 429,
                    "message": "quota",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [RETRY_INFO],
                }
            },
        ),
        0.4,
    ),
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_waits_as_the_server_asks(provider):
    limited, wait = WAITS[provider]
    script = Sequence(limited, Reply(json=GOOD))
    result, records, _ = run(provider, script)
    assert result == Verdict(**GOOD)
    assert outcomes(records) == ["rate_limited", "ok"]
    gap = script.times[1] - script.times[0]
    assert wait - 0.05 <= gap < wait + 1.0  # the backoff alone would be ~0.01 s
    assert "HTTP 429" in records[0].error


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_is_recorded_and_retried(provider):
    result, records, _ = run(
        provider, Sequence(Reply(json=GOOD, delay=0.6), Reply(json=GOOD)), timeout=0.3
    )
    assert result == Verdict(**GOOD)
    assert outcomes(records) == ["timeout", "ok"]
    assert 250 <= records[0].latency_ms < 2000
    assert "0.3 s" in records[0].error


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unreachable_endpoint_is_an_error_after_the_retries(provider):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    records: list[CallRecord] = []
    model = adapter(provider, f"http://127.0.0.1:{port}", records, retries=1)
    with pytest.raises(ProviderError, match="could not reach"):
        model.ask("s", "u", Verdict, stage="panel")
    assert outcomes(records) == ["error", "error"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_bad_request_is_not_retried(provider):
    result, records, requests = run(provider, Sequence(Reply(status=400)))
    assert isinstance(result, ProviderError) and "HTTP 400" in str(result)
    assert outcomes(records) == ["error"] and len(requests) == 1


# -- answers that do not validate -------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_text_that_is_not_json_is_asked_again(provider):
    script = Sequence(Reply(text="בוודאי! הנה התשובה: approve"), Reply(json=GOOD, tokens_out=9))
    result, records, requests = run(provider, script)
    assert result == Verdict(**GOOD)
    assert outcomes(records) == ["invalid", "ok"] and len(requests) == 2
    assert records[0].tokens_in == 120 and records[1].tokens_out == 9
    expected = "no Verdict tool call" if provider == "anthropic" else "not JSON"
    assert expected in records[0].error
    assert_clean(records)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_json_failing_the_schema_twice_raises(provider):
    bad = Reply(json={"approve": "maybe", "reason": ""})
    result, records, requests = run(provider, Sequence(bad))
    assert isinstance(result, ProviderError)
    assert "no valid Verdict at panel" in str(result) and "schema error" in str(result)
    assert outcomes(records) == ["invalid", "invalid"] and len(requests) == 2
    assert "maybe" not in records[0].error  # the reason, never the answer itself
    assert_clean(records)


# -- credentials ------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_refused_key_names_the_variable_and_is_not_retried(provider):
    result, records, requests = run(provider, Sequence(Reply(status=401)))
    assert isinstance(result, ProviderError)
    assert VARIABLES[provider] in str(result) and KEY not in str(result)
    assert outcomes(records) == ["refused"] and len(requests) == 1
    assert VARIABLES[provider] in records[0].error
    assert_clean(records)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_missing_key_names_the_variable(provider, monkeypatch):
    monkeypatch.delenv(VARIABLES[provider])
    settings = Settings()
    with pytest.raises(ProviderError, match=VARIABLES[provider]):
        make_model(parse_spec(f"{provider}:some-model", "LEGAL_AI_CURATOR"), settings, print)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_local_endpoint_works_without_a_key(provider, monkeypatch):
    monkeypatch.delenv(VARIABLES[provider])
    records: list[CallRecord] = []
    with SERVERS[provider](Sequence(Reply(json=GOOD))) as server:
        spec = parse_spec(f"{provider}:local@{server.url}", "LEGAL_AI_DISTILLER")
        model = make_model(spec, Settings(), records.append)
        assert isinstance(model, ADAPTERS[provider]) and model.spec == spec
        assert model.ask("s", "u", Verdict, stage="distill") == Verdict(**GOOD)
    assert outcomes(records) == ["ok"]


def test_credentials_in_the_base_url_are_not_recorded():
    records: list[CallRecord] = []
    with scripted_openai(Sequence(Reply(json=GOOD))) as server:
        url = server.url.replace("http://", "http://user:hunter2@")
        model = adapter("openai", url, records)
        model.ask("s", "u", Verdict, stage="panel")
    assert "hunter2" not in records[0].base_url and records[0].base_url == server.url


# -- Hebrew -----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_hebrew_round_trips(provider):
    case = 'ערר (מרכז) 1042/23 ועע"מ 1234/05 — הוועדה המקומית, נְקֻדּוֹת וגרש׳'

    def echo(request: dict, path: str) -> Reply:
        text = prompt_text(request)
        quoted = text[text.index("ערר") :]
        return Reply(json={"approve": False, "reason": quoted})

    result, records, requests = run(provider, echo, user=case)
    assert result.reason == case
    assert case in prompt_text(requests[0])
    assert outcomes(records) == ["ok"]


# -- specs and small parts --------------------------------------------------------------------


def test_parse_spec_reads_provider_model_and_base_url():
    assert parse_spec(" OpenAI:gpt-4.1-mini ", "V").name == "openai:gpt-4.1-mini"
    spec = parse_spec("openai:qwen2.5@http://127.0.0.1:8000/v1", "V")
    assert (spec.provider, spec.model, spec.base_url) == (
        "openai",
        "qwen2.5",
        "http://127.0.0.1:8000/v1",
    )
    assert parse_spec("gemini:gemini-2.5-flash", "V").base_url is None


@pytest.mark.parametrize(
    "bad", ["", "gpt-4", "mistral:large", "openai:", "openai:m@", ":m", "anthropic: @http://x"]
)
def test_parse_spec_refuses_malformed_specs(bad):
    with pytest.raises(InvalidInput) as exc:
        parse_spec(bad, "LEGAL_AI_DISTILLER")
    message = str(exc.value)
    assert message.startswith("LEGAL_AI_DISTILLER=") and "PROVIDER:MODEL[@BASE_URL]" in message
    assert "\n" not in message


def test_parse_specs_needs_the_count_of_different_models():
    specs = parse_specs(
        "anthropic:claude-sonnet-4-5, gemini:gemini-2.5-pro", "LEGAL_AI_STYLE_PANEL", 2
    )
    assert [s.name for s in specs] == ["anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-pro"]
    for value in ("openai:a", "openai:a,openai:a", "openai:a,openai:b,openai:c", ""):
        with pytest.raises(InvalidInput, match="LEGAL_AI_STYLE_PANEL names 2 different models"):
            parse_specs(value, "LEGAL_AI_STYLE_PANEL", 2)
    with pytest.raises(InvalidInput, match="LEGAL_AI_STYLE_PANEL="):
        parse_specs("openai:a,bogus", "LEGAL_AI_STYLE_PANEL", 2)


def test_retry_after_reads_milliseconds_seconds_and_dates():
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None and retry_after(None) is None
    later = retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert 25 <= later <= 31
    assert retry_after({"retry-after": formatdate(time.time() - 30, usegmt=True)}) == 0.0
