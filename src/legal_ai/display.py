"""Plain-text rendering of search hits, shared by `legal-ai search` and `legal-ai demo`."""

from __future__ import annotations


def format_hit(number: int, hit: dict, *, indent: str = "", snippet_chars: int = 220) -> str:
    """Three lines: title, provenance (ids, page, span, per-leg ranks), snippet."""
    where = [hit["doc_id"], f"chunk {hit['chunk_id']}"]
    if hit.get("case_number"):
        where.append(hit["case_number"])
    if hit.get("page"):
        where.append(f"page {hit['page']}")
    where.append(f"chars {hit['char_start']}-{hit['char_end']}")
    legs = ", ".join(f"{leg} #{v['rank']}" for leg, v in hit["explain"].items())
    snippet = " ".join(hit["snippet"].split())[:snippet_chars]
    pointer = "" if hit.get("citable", True) else " (digest: a pointer, not citable)"
    pad = indent + " " * (len(str(number)) + 2)
    return (
        f"{indent}{number}. {hit['title']}{pointer}\n"
        f"{pad}[{' · '.join(where)}] ({legs})\n"
        f"{pad}{snippet}"
    )
