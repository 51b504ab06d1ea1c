"""The copy and citation checks on a draft: the words compared and their 8-gram shingles (shingles),
voice purity (purity), the copy policy and the decisions a draft may copy from (copy_policy,
copy_sources), every citation against the library (citation_*), and the cite-check report
(cite_report).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import cite_report, copy_policy, purity, shingles
from .citation_check import CheckedCitation, check_citations
from .citation_states import SEVERITY
from .citation_text import citation_lines
from .cite_report import get_report
from .copy_policy import check, summary
from .shingles import (
    METHOD,
    Word,
    block_spans,
    fingerprints,
    fold,
    keyed_words,
    through_punctuation,
    word_key,
)

__all__ = [
    "block_spans",
    "CheckedCitation",
    "check",
    "check_citations",
    "citation_lines",
    "cite_report",
    "copy_policy",
    "fingerprints",
    "fold",
    "get_report",
    "keyed_words",
    "METHOD",
    "purity",
    "SEVERITY",
    "shingles",
    "summary",
    "through_punctuation",
    "Word",
    "word_key",
]
