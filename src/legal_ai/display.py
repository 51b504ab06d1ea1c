"""Plain-text rendering of search hits, shared by `legal-ai search` and `legal-ai demo`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def format_hit(
    number: int, hit: Mapping[str, Any], *, indent: str = "", snippet_chars: int = 220
) -> str:
    """Title, provenance (ids, page, span, per-leg ranks), snippet, and the supporting quote of a
    principle."""
    unit = hit.get("chunk_id") or hit.get("principle_id") or hit.get("precedent_id")
    where = [hit["doc_id"], f"{hit.get('kind', 'chunk')} {unit}"]
    if hit.get("case_number"):
        where.append(hit["case_number"])
    if hit.get("page"):
        where.append(f"page {hit['page']}")
    if hit.get("char_start") is not None:
        where.append(f"chars {hit['char_start']}-{hit['char_end']}")
    legs = ", ".join(f"{leg} #{v['rank']}" for leg, v in hit["explain"].items())
    snippet = " ".join(hit["snippet"].split())[:snippet_chars]
    if hit.get("supporting_quote"):
        snippet += (
            f'\n{" " * 0}quote: "{" ".join(hit["supporting_quote"].split())[:snippet_chars]}"'
        )

    pointer = "" if hit.get("citable", True) else " (digest: a pointer, not citable)"
    pad = indent + " " * (len(str(number)) + 2)
    lines = [f"{indent}{number}. {hit['title']}{pointer}", f"{pad}[{' · '.join(where)}] ({legs})"]
    lines.append(f"{pad}{snippet}")
    if hit.get("supporting_quote"):
        lines.append(f'{pad}quote: "{" ".join(hit["supporting_quote"].split())[:snippet_chars]}"')
    return "\n".join(lines)
