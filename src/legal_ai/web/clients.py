"""Who is at the other end of a request: the address the desk's sign-in
throttle counts failures by.

A proxy header (X-Forwarded-For, X-Forwarded-Proto) is a claim any caller can make; it is
believed only when the connection comes from an address LEGAL_AI_TRUSTED_PROXIES names (IP
addresses or networks; empty by default: never). Two places follow that one setting:

- `uvicorn_options(settings)`: what `legal-ai serve` passes to uvicorn. Uvicorn's own default
  believes X-Forwarded-For from 127.0.0.1 (and FORWARDED_ALLOW_IPS), so a caller on the same
  machine could claim any address; with the setting empty its proxy headers are off, else they
  are believed from the named proxies only.
- `client_address(scope, settings)`: the app's own reading (the desk's sign-in uses it), the
  same rule for a server that did not rewrite the address: the connection's address, unless it
  is a trusted proxy, in which case X-Forwarded-For is read from the right and the first address
  that is not a trusted proxy is the client's (the proxies append; a client can only prepend).

`uvicorn_options` also sizes the request's head (its line and headers) at REQUEST_HEAD_BYTES:
uvicorn's own 16 KB would refuse, in English and before the app sees it, a search whose query is
over ~2,500 Hebrew letters (six characters each in the address), where a query may have 20,000
(retrieval/arguments.py) and the desk's search form sends it in the address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..config import Settings
from ..retrieval.arguments import MAX_QUERY_CHARS

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def _networks(value: str) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(e, strict=False) for e in value.split(",") if e.strip())


def trusted_proxies(settings: Settings) -> tuple[Network, ...]:
    """The networks of LEGAL_AI_TRUSTED_PROXIES (validated by config.Settings)."""
    return _networks(settings.trusted_proxies or "")


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as a proxy writes it (`1.2.3.4`, `1.2.3.4:5678`, `[::1]:80`, `::1`)."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else text
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def is_trusted(host: str | None, networks: tuple[Network, ...]) -> bool:
    address = _address(host or "")
    return address is not None and any(address in n for n in networks)


# A query's 20,000 characters as an address (a Hebrew letter is %D7%90: six) and the headers.
REQUEST_HEAD_BYTES = 6 * MAX_QUERY_CHARS + 40 * 1024


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """uvicorn.run's options: the proxy headers for this setting, off when it is empty (uvicorn
    would otherwise believe 127.0.0.1 and FORWARDED_ALLOW_IPS), else the named proxies only; and
    the request head's size (REQUEST_HEAD_BYTES)."""
    head = {"h11_max_incomplete_event_size": REQUEST_HEAD_BYTES}
    proxies = [str(n) for n in trusted_proxies(settings)]
    if not proxies:
        return {"proxy_headers": False, "forwarded_allow_ips": "", **head}
    return {"proxy_headers": True, "forwarded_allow_ips": proxies, **head}


def client_address(scope: Mapping[str, Any], settings: Settings) -> str:
    """The client's address of an ASGI request `scope` (a Starlette Request is one too): the
    connection's, or, from a trusted proxy, the rightmost X-Forwarded-For entry that is not a
    trusted proxy (all of them trusted: the leftmost). "unknown" when there is none."""
    client = scope.get("client")
    peer = str(client[0]) if client else ""
    networks = trusted_proxies(settings)
    if not peer or not networks or not is_trusted(peer, networks):
        return peer or "unknown"
    headers = scope.get("headers") or []
    forwarded = ",".join(
        v.decode("latin-1") for k, v in headers if k.lower() == b"x-forwarded-for"
    ).split(",")
    hops = [h.strip() for h in forwarded if h.strip()]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return peer  # a value no proxy writes: believe none of the header
        if not any(address in n for n in networks):
            return str(address)
    first = _address(hops[0]) if hops else None
    return str(first) if first is not None else peer
