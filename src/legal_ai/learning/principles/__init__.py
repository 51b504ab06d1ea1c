"""Legal principles: extracted by a panel of three models (extraction, jobs, requests), culled
(cull), reviewed by the chair (review), kept true to their spans (spans), gathered into canonical
principles and their synthesized statements (canonical, synthesis), and the one claim check of
what a model says (grounding).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import canonical, cull, extraction, jobs, requests, review, spans, synthesis
from .grounding import NUMBER
from .spans import QUOTE_GONE, RULE_CHANGED
from .synthesis import Sentence, ungrounded

__all__ = [
    "canonical",
    "cull",
    "extraction",
    "jobs",
    "NUMBER",
    "QUOTE_GONE",
    "requests",
    "review",
    "RULE_CHANGED",
    "Sentence",
    "spans",
    "synthesis",
    "ungrounded",
]
