"""What the settings check their values against: the data directory's default, the analyzer ids,
the trusted proxies' addresses, the models' daily budgets and the reranker's spec (legal_ai.config's Settings calls
these in its validators)."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import platformdirs


def default_home() -> Path:
    return Path(platformdirs.user_data_dir("legal-ai", appauthor=False))


# The Hebrew analyzers text/hebrew.py defines (the same ids: tests/text/test_hebrew.py checks it),
# named here so that the settings validate one without importing the text layer.
ANALYZER_IDS = (
    "he-plain-v1",
    "he-prefix-v1",
    "he-prefix4-v1",
    "he-fold-prefix-v1",
    "he-fold-prefix4-v1",
    "he-fold-prefix4-hspell-v1",
)


def proxy_addresses(value: str) -> str:
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"{entry!r} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/24); "
                "name the proxies themselves (`*` is not taken)"
            ) from None
    return ",".join(entries)


def known_analyzer(value: str) -> str:
    if value not in ANALYZER_IDS:
        raise ValueError(f"unknown analyzer {value!r}; choose one of: {', '.join(ANALYZER_IDS)}")
    return value


# The roles of the language models, each a setting of its own (LEGAL_AI_DISTILLER, ...): what a
# daily budget is set for (LEGAL_AI_MODEL_BUDGETS; store/spending.py maps each to the stages its
# calls are recorded under).
MODEL_ROLES = (
    "distiller",
    "style_panel",
    "curator",
    "principle_panel",
    "synthesizer",
    "voice_writer",
    "enricher",
    "verifier",
)
_TOKENS = re.compile(r"\d[\d_]*")


def model_budgets(value: str) -> str:
    """`ROLE=TOKENS,...` checked and written plainly (`distiller=200000,style_panel=50000`):
    each ROLE one of MODEL_ROLES, once; TOKENS a whole number (0 pauses the role; `_` may group
    digits)."""
    seen: dict[str, int] = {}
    for entry in (e.strip() for e in (value or "").split(",")):
        if not entry:
            continue
        role, sep, tokens = (part.strip() for part in entry.partition("="))
        role = role.lower()
        if not sep or role not in MODEL_ROLES or not _TOKENS.fullmatch(tokens):
            raise ValueError(
                f"{entry!r}: write ROLE=TOKENS (tokens per day, e.g. distiller=200000), ROLE one "
                f"of {', '.join(MODEL_ROLES)}"
            )
        if role in seen:
            raise ValueError(f"{role} is given two budgets; give it one")
        seen[role] = int(tokens.replace("_", ""))
    return ",".join(f"{role}={tokens}" for role, tokens in seen.items())


def budgets_of(value: str) -> dict[str, int]:
    """The checked setting as {role: tokens per day}; a role left out has no ceiling."""
    pairs = (entry.partition("=") for entry in (value or "").split(",") if entry)
    return {role: int(tokens) for role, _, tokens in pairs}


RERANKERS = ("voyage", "cohere", "onnx")


def reranker_parts(value: str) -> tuple[str, str, str | None]:
    """`voyage:MODEL[@BASE_URL]`, `cohere:MODEL[@BASE_URL]` or `onnx:/path/to/folder` ->
    (provider, model or folder, base URL or None); ValueError saying the form."""
    text = (value or "").strip()
    provider, sep, rest = text.partition(":")
    provider, rest = provider.strip().lower(), rest.strip()
    if provider == "onnx" and sep and rest:
        return provider, rest, None
    model, at, base_url = rest.partition("@")
    model, base_url = model.strip(), base_url.strip()
    if not sep or provider not in RERANKERS or not model or (at and not base_url):
        raise ValueError(
            f"{value!r}: write voyage:MODEL[@BASE_URL], cohere:MODEL[@BASE_URL] or "
            "onnx:/path/to/folder, e.g. voyage:rerank-2.5 or cohere:rerank-v3.5"
        )
    return provider, model, base_url or None


def reranker_spec(value: str | None) -> str | None:
    """The setting's value, checked (None or blank: no reranker)."""
    if value is None or not value.strip():
        return None
    reranker_parts(value)
    return value.strip()
