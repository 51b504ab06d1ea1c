"""Old-format files as LibreOffice itself writes them (issue 38 item 3): a DOCX the tests make,
converted by `soffice` to .doc, .rtf or .odt. Where LibreOffice is not installed the test is
skipped with the reason; under CI (CI=true, which installs it) it fails instead."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

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
