"""bench/reading.py's measure (issue 22 item 4) on one decision as text, as Word writes it (its
rulings in footnotes, a tracked insertion and deletion, a table) and as a paged PDF (a running
header with the case line, `עמוד N מתוך M`): the invariant of item 2 — the same blocks and
citations as the text version, the style distance to the same draft within 0.5 points of change
— and every character, word and number read. No OCR and no database: fast."""

import importlib.util
import sys

import pytest

import factories
from helpers import ROOT
from legal_ai.config import Settings
from legal_ai.learning.methodology import profiles as methodology

_spec = importlib.util.spec_from_file_location("bench_reading", ROOT / "bench" / "reading.py")
reading = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = reading  # (its dataclasses look their module up)
_spec.loader.exec_module(reading)

pytestmark = pytest.mark.filterwarnings("ignore:Dimensions for page format A5")


def test_one_decision_as_text_word_and_pdf_reads_alike(tmp_path):
    record = factories.records()[0]
    decision = reading.decision_of(record, record["final_text"], record["draft_text"])
    assert len(decision.word.footnotes) == 2 and decision.word.changes == 2
    spec = methodology.seed_profile()["blocks"]
    rows = reading.measure_decision(decision, ["text", "docx", "pdf"], tmp_path, Settings(), spec)
    assert rows["text"]["characters"] == 1.0 and rows["text"]["change_delta"] == 0
    for form in ("docx", "pdf"):
        row = rows[form]
        assert row["blocks_same"], (form, row["blocks_differing"])
        assert row["citations_same"] == row["citations"] == row["citations_found"] > 0, form
        assert abs(row["change_delta"]) <= 0.5, (form, row)
        assert (row["numbers_right"], row["numbers_wrong"]) == (row["numbers"], 0), form
        assert row["words"] == 1.0, (form, row)
