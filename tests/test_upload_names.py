"""An upload's source label and the file name shown for it (legal_ai/upload_names.py)."""

from __future__ import annotations

import pytest

from legal_ai import upload_names


@pytest.mark.parametrize("name", ["טיוטה ראשונה.docx", "final.txt", "ערר 1042-23.pdf"])
def test_an_upload_is_labelled_and_shown_by_its_own_name(name):
    source = upload_names.source(name)
    assert source == "upload:" + name and upload_names.is_upload(source)
    assert upload_names.file_name(source) == name


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("/srv/decisions/arar-1042-23.txt", "arar-1042-23.txt"),  # a file ingested from a path
        ("/srv/laws/990001/he@/main.xml#sec_1", "main.xml#sec_1"),  # a statute's section
        ("decisions/upload:odd.txt", "upload:odd.txt"),  # the label only at the start counts
        ("", ""),
        (None, ""),
    ],
)
def test_a_path_is_shown_by_its_last_part(source, shown):
    assert upload_names.file_name(source) == shown
    assert not upload_names.is_upload(source)
