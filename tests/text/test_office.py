"""Word 97 .doc, .rtf and .odt read through LibreOffice (issue 38 item 3), from files LibreOffice
itself writes: notes, tracked changes and tables as the DOCX reader reads a Word final; every bad
input refused with one line (a password-protected file said to be one, before LibreOffice); a conversion past its time killed with its process group."""

import subprocess
import zipfile
from dataclasses import replace

import msoffcrypto
import olefile
import pytest

import word_docs
from legal_ai.errors import UnsupportedFile
from legal_ai.text import office
from legal_ai.text.bounds import LIMITS
from legal_ai.text.extract import extract
from office_files import need_office, saved_as

BODY = [
    word_docs.p(word_docs.r("1. לפנינו ערר על החלטת הוועדה המקומית לפי סעיף 112(א)(6) לחוק.")),
    word_docs.p(
        word_docs.r("2. דין הערר "),
        word_docs.dele("להתקבל"),
        word_docs.ins("להידחות"),
        word_docs.r(" כפי שנפסק"),
        word_docs.note(1),
        word_docs.r("."),
    ),
    word_docs.table([["הליך", "תאריך"], ["דיון", "15.11.2023"]]),
]
NOTE = "עע\"מ 1234/19 פלוני נ' הוועדה המקומית"


def words(text: str) -> list[str]:
    return " ".join(text.split()).replace(" .", ".").split()


@pytest.fixture(scope="module")
def final_docx(tmp_path_factory):
    return word_docs.word_docx(
        tmp_path_factory.mktemp("office") / "final.docx", BODY, footnotes={1: NOTE}
    )


@pytest.mark.parametrize("suffix", ["doc", "rtf", "odt"])
def test_old_formats_read_as_their_docx(final_docx, suffix):
    word = extract(final_docx)
    old = extract(saved_as(final_docx, suffix))
    assert old.source_format == suffix and old.issue is None
    # body, table rows, notes section; LibreOffice's RTF leaves a space where a note's mark stood
    assert words(old.text) == words(word.text)
    assert suffix == "rtf" or old.text.split() == word.text.split()
    assert "112(א)(6)" in old.text and "להידחות" in old.text and "להתקבל" not in old.text
    assert "דיון | 15.11.2023" in old.text
    assert old.tracked_changes == {"inserted": 1, "deleted": 1}
    assert [n.kind for n in old.notes] == ["footnote"]
    assert old.text[old.notes[0].start : old.notes[0].end].endswith(NOTE)


def test_without_libreoffice_the_line_says_how_to_enable_it(final_docx, monkeypatch):
    doc = saved_as(final_docx, "doc")
    monkeypatch.setenv("PATH", "/nonexistent")  # the system as it is without the package
    with pytest.raises(UnsupportedFile) as refused:
        extract(doc)
    said = str(refused.value)
    assert "\n" not in said and "scripts/install-system --office" in said and ".docx" in said
    assert office.problem() is not None


def test_a_doc_that_is_html_is_refused(tmp_path):
    need_office()
    page = tmp_path / "decision.doc"
    page.write_text("<html><body><p>החלטה</p></body></html>", encoding="utf-8")
    with pytest.raises(UnsupportedFile, match="it is HTML, not a Word 97 document"):
        extract(page)


def test_an_rtf_with_an_embedded_object_is_refused(tmp_path):
    need_office()
    rtf = tmp_path / "decision.rtf"
    rtf.write_bytes(
        b"{\\rtf1\\ansi{\\fonttbl\\f0 Arial;}\\f0 Decision\\par"
        b"{\\object\\objemb{\\*\\objclass Equation.3}{\\*\\objdata 0105000002000000}}}"
    )
    with pytest.raises(UnsupportedFile, match="embeds an object") as refused:
        extract(rtf)
    assert "\n" not in str(refused.value)


def test_a_damaged_doc_is_refused_in_one_line(tmp_path):
    need_office()
    doc = tmp_path / "decision.doc"
    doc.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00garbage" * 200)
    with pytest.raises(UnsupportedFile, match="could not open the Word 97 document") as refused:
        extract(doc)
    assert "\n" not in str(refused.value) and "legal-ai-office-" not in str(refused.value)


def test_a_conversion_past_its_time_is_killed_with_its_group(final_docx):
    odt = saved_as(final_docx, "odt")
    with pytest.raises(UnsupportedFile, match=r"took over 0.3 s and was stopped"):
        extract(odt, replace(LIMITS, office_seconds=0.3))
    # nothing of it left running: no soffice with a profile of ours
    left = subprocess.run(["pgrep", "-f", "legal-ai-office-"], capture_output=True, text=True)
    assert left.stdout.strip() == ""


def _encrypted_docx(source, target):
    """`source` (a DOCX) encrypted with a password as Word encrypts one (ECMA-376 agile
    encryption, msoffcrypto-tool): a compound file holding an EncryptedPackage."""
    with source.open("rb") as plain, target.open("wb") as locked:
        msoffcrypto.OfficeFile(plain).encrypt("סוד-1234", locked)
    return target


@pytest.mark.parametrize("name", ["final.docx", "final.doc"])
def test_a_password_protected_word_file_is_refused_in_one_line(final_docx, tmp_path, name):
    locked = _encrypted_docx(final_docx, tmp_path / name)
    with pytest.raises(UnsupportedFile, match="protected by a password") as refused:
        extract(locked)
    said = str(refused.value)
    assert "\n" not in said and "remove the password" in said and "legal-ai-office-" not in said


def test_a_word_97_file_whose_fib_says_encrypted_is_refused_before_libreoffice(final_docx):
    doc = saved_as(final_docx, "doc")
    locked = doc.with_name("locked.doc")
    locked.write_bytes(doc.read_bytes())
    with olefile.OleFileIO(str(locked), write_mode=True) as ole:
        fib = bytearray(ole.openstream("WordDocument").read())
        fib[11] |= 0x01  # fEncrypted: the flags' high byte, bit 0x0100 of the word at 10
        ole.write_stream("WordDocument", bytes(fib))
    assert "לפנינו ערר" in extract(doc).text  # the same file unlocked reads
    with pytest.raises(UnsupportedFile, match="protected by a password"):
        extract(locked)


def test_an_odt_saved_with_a_password_is_refused(final_docx, tmp_path):
    odt = saved_as(final_docx, "odt")
    locked = tmp_path / "locked.odt"
    with zipfile.ZipFile(odt) as source, zipfile.ZipFile(locked, "w") as target:
        for member in source.infolist():
            data = source.read(member)
            if member.filename == "META-INF/manifest.xml":  # what an ODT with a password lists
                data = data.replace(
                    b'manifest:full-path="content.xml" manifest:media-type="text/xml"/>',
                    b'manifest:full-path="content.xml" manifest:media-type="text/xml">'
                    b'<manifest:encryption-data manifest:checksum-type="SHA1/1K" '
                    b'manifest:checksum="AAAA"/></manifest:file-entry>',
                )
                assert b"encryption-data" in data
            target.writestr(member, data)
    with pytest.raises(UnsupportedFile, match="protected by a password"):
        extract(locked)
