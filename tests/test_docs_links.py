"""The README and docs/ hold together (issue 20 item 7): every relative link in README.md and
docs/*.md names a file that exists and, with a `#anchor`, a heading of that file whose
GitHub-style slug is the anchor; every docs page is listed in docs/README.md; and no level-2
section is written twice (the same heading with the same body). Pure text, no database."""

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]

FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) and ![alt](target); the text may hold one level of brackets.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters of any script,
    digits, '_' and '-' kept), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "_- " or _is_mark(ch))
    return text.replace(" ", "-")


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")  # niqqud and other combining marks


def headings(path: Path) -> list[tuple[int, str]]:
    """(level, text) of every heading outside code blocks."""
    found = []
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a page (a repeated slug gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    result = set()
    for _, text in headings(path):
        base = slug(text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of every link outside code; a link's text may run over lines."""
    numbered = prose_lines(path.read_text(encoding="utf-8"))
    text = "\n".join(INLINE_CODE.sub("", line) for _, line in numbered)
    found = []
    for match in LINK.finditer(text):
        end_line = text.count("\n", 0, match.end(1))
        found.append((numbered[end_line][0], match.group(1)))
    return found


def test_the_pages_are_there():
    assert (DOCS / "README.md") in PAGES
    assert len(PAGES) > 5


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    broken = []
    for number, target in links(page):
        if SCHEME.match(target):
            continue  # https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        resolved = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not resolved.exists():
            broken.append(f"{where} (no such file)")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{where} (no heading with that anchor)")
    assert broken == []


def test_every_docs_page_is_in_the_index():
    index = DOCS / "README.md"
    listed = {
        (DOCS / target.partition("#")[0]).resolve()
        for _, target in links(index)
        if not SCHEME.match(target) and target.partition("#")[0]
    }
    missing = [
        p.name for p in sorted(DOCS.glob("*.md")) if p != index and p.resolve() not in listed
    ]
    assert missing == []


def sections(path: Path) -> list[tuple[str, str]]:
    """(heading text, body) of every level-2 section: the body runs to the next heading of
    level 1 or 2."""
    result, heading, body, fenced = [], None, [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match and len(match.group(1)) <= 2:
            if heading is not None:
                result.append((heading, "\n".join(body).strip()))
            heading, body = (match.group(2) if len(match.group(1)) == 2 else None), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        result.append((heading, "\n".join(body).strip()))
    return result


def test_no_section_is_written_twice():
    seen: dict[str, list[tuple[str, str]]] = {}
    for page in PAGES:
        for heading, body in sections(page):
            seen.setdefault(heading.strip().lower(), []).append((str(page.relative_to(ROOT)), body))
    repeated = []
    for heading, places in seen.items():
        if len(places) < 2:
            continue
        pages = [page for page, _ in places]
        bodies = [body for _, body in places]
        if len(set(pages)) < len(pages) or len(set(bodies)) < len(bodies):
            repeated.append(f"## {heading}: {', '.join(pages)}")
    assert repeated == []


def test_slugs_follow_github():
    assert slug("Backups (`legal-ai db backup FILE` / `legal-ai db restore FILE`)") == (
        "backups-legal-ai-db-backup-file--legal-ai-db-restore-file"
    )
    assert slug("Upkeep on arrival (learning/arrival.py, migration 0023)") == (
        "upkeep-on-arrival-learningarrivalpy-migration-0023"
    )
    assert slug("Voice documents: `/training/voice`") == "voice-documents-trainingvoice"
    assert slug("הלכה ועיקרון") == "הלכה-ועיקרון"
