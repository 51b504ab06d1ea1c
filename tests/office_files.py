"""Old-format files as LibreOffice itself writes them (issue 38 item 3): a DOCX the tests make,
converted by `soffice` to .doc, .rtf or .odt. Where LibreOffice is not installed the test is
skipped with the reason; under CI (CI=true, which installs it) it fails instead."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

import word_docs
from legal_ai.text import office

OFFICE_SECONDS = 120


def need_office() -> None:
    if office.soffice() is None:
        reason = "LibreOffice (soffice) is not installed: run scripts/install-system --office"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: {reason}", pytrace=False)
        pytest.skip(reason)


def saved_as(docx: Path, suffix: str) -> Path:
    """`docx` converted by LibreOffice to `suffix` (doc, rtf, odt, pdf), beside it."""
    need_office()
    with tempfile.TemporaryDirectory(prefix="office-test-") as tmp:
        written = office.convert(docx, suffix, Path(tmp), OFFICE_SECONDS)
        target = docx.with_suffix(f".{suffix}")
        written.replace(target)
    return target


def rtl_docx(path: Path, text: str) -> Path:
    """`text` as a word processor's right-to-left document: one justified right-to-left
    paragraph a line (w:bidi, w:rtl), blank lines kept as paragraph breaks."""
    paragraphs = [
        '<w:p><w:pPr><w:bidi/><w:jc w:val="both"/></w:pPr><w:r><w:rPr><w:rtl/></w:rPr>'
        f'<w:t xml:space="preserve">{escape(line.strip())}</w:t></w:r></w:p>'
        for line in text.strip().split("\n")
        if line.strip()
    ]
    return word_docs.word_docx(path, paragraphs)


def office_pdf(path: Path, text: str) -> Path:
    """`text` exported to PDF by LibreOffice from `rtl_docx` (a word processor's export)."""
    return saved_as(rtl_docx(path.with_suffix(".docx"), text), "pdf")
