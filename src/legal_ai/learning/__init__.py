"""The learning loop (DESIGN §7): drafts and finals, alignment and held-out style distance,
citations, lessons and their gate, methodology, chair feedback."""


def jsonable(row: dict) -> dict:
    """A database row as JSON-ready values (dates and times as ISO strings)."""
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
