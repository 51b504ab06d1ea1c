"""What the settings check their values against: the data directory's default, the analyzer ids
and the trusted proxies' addresses (legal_ai.config's Settings calls these in its validators)."""

from __future__ import annotations

import ipaddress
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
