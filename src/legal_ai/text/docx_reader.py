"""A DOCX read as Word shows it: the body's paragraphs, tables and text boxes in document order,
list numbers as Word computes them, tracked changes accepted, footnotes and endnotes kept with
their anchors; headers, footers and comments left out.

The package is read with zipfile and lxml (no entity expansion, no DTD, no network; a DOCTYPE
is refused), after text/extract.check_docx_archive has bounded what it may unpack to. The main
document part is found through the package's relationships, and its own relationships name
the footnotes, endnotes, numbering and styles parts. Transitional and strict WordprocessingML
are both read.

- **Order.** The body's children are walked in order: a paragraph, a table (each row one line,
  its cells joined by " | ", a cell's paragraphs by spaces), a content control or custom-XML
  wrapper walked through. A text box's paragraphs follow the paragraph that anchors it (a
  drawing's `mc:Choice` is read, never also its VML `mc:Fallback`).
- **Tracked changes accepted.** `w:ins` and `w:moveTo` are read, `w:del` and `w:moveFrom`
  dropped, a deleted table row dropped, a paragraph whose mark was deleted joined to the next;
  each `w:ins`, `w:del`, `w:moveTo` and inserted or deleted row is counted
  (`changes`: inserted, deleted, moved). Formatting changes change no text and are not counted.
- **Left out:** headers and footers (other parts, never read), comments (their part is never
  read; the references in the body are counted), hidden text (`w:vanish` in the run's
  properties, or in its character style, its paragraph's style, a style either is based on or
  linked to, or the document defaults: text/docx_styles.py; counted, by direct and by style),
  field codes (their results are read), deleted text.
- **Bounded.** A list's start and level, the runs, table cells, note references, objects and
  characters are counted as they are read and refused past `limits` (text/bounds.py).
- **Notes.** Each footnote and endnote referenced in the body is read from its part (its own
  tracked changes accepted) and placed after the body (text/notes.py), numbered in order of
  reference (1, 2, ... per kind) or by the author's custom mark. A missing or damaged notes part
  never loses the body: it is read, and `messages` says the notes could not be read.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from .bounds import LIMITS, Budget, Limits
from .docx_body import Walker, join
from .docx_numbering import Numbering
from .docx_styles import Styles
from .notes import Note, Written, with_notes

W_NAMESPACES = (
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",  # strict
)
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


@dataclass(frozen=True)
class DocxText:
    text: str
    notes: tuple[Note, ...] = ()
    body_end: int | None = None  # where the body ends and the notes begin (None: no notes)
    changes: dict[str, int] = field(default_factory=dict)  # tracked changes accepted
    messages: tuple[str, ...] = ()  # what the reading says: changes accepted, notes unreadable
    hidden: dict[str, int] = field(default_factory=dict)  # runs of hidden text left out, by why
    comments: tuple[str, ...] = ()  # the comments' texts (left out of `text`), in order


def _xml(archive: zipfile.ZipFile, name: str):
    try:
        root = etree.fromstring(archive.read(name), _PARSER)
    except etree.XMLSyntaxError as exc:
        # An allocation that failed (under the reading's memory limit, text/isolated.py):
        # libxml2 says so, or, when it cannot allocate even its message, "unknown error".
        said = str(exc)
        if "Memory allocation failed" in said or said.startswith("unknown error"):
            raise MemoryError(name) from None
        raise
    if root.getroottree().docinfo.doctype:
        raise ValueError(f"{name} declares a DOCTYPE")
    return root


def _relationships(archive: zipfile.ZipFile, part: str) -> dict[str, str]:
    """The internal targets of a part's relationships, by the relationship type's last word
    (`officeDocument`, `footnotes`, ...), as part names in the archive."""
    folder, base = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", base + ".rels")
    if rels_name not in archive.namelist():
        return {}
    targets: dict[str, str] = {}
    for rel in _xml(archive, rels_name).iterchildren(_RELS + "Relationship"):
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        kind = (rel.get("Type") or "").rsplit("/", 1)[-1]
        name = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        targets.setdefault(kind, posixpath.normpath(name))
    return targets


class Unreadable(ValueError):
    """The file is a zip but not a Word document we can read; the message says why."""


def read_docx(path: Path, limits: Limits = LIMITS) -> DocxText:
    """Read a DOCX (already checked by check_docx_archive). Raises OverBound when it asks for
    more than `limits` (text/bounds.py), Unreadable, or whatever the zip and XML readers raise
    on a damaged package (the caller reports it as unreadable)."""
    with zipfile.ZipFile(path) as archive:
        _xml(archive, "[Content_Types].xml")  # a package declares its parts' types
        main = _relationships(archive, "").get("officeDocument")
        if main is None:
            raise Unreadable("no main document part")
        root = _xml(archive, main)
        w = next((f"{{{ns}}}" for ns in W_NAMESPACES if root.tag == f"{{{ns}}}document"), None)
        body = root.find(w + "body") if w else None
        if w is None or body is None:
            raise Unreadable("not a Word document")
        parts = _relationships(archive, main)
        issues: list[str] = []
        styles = _optional(archive, parts.get("styles"), "styles", issues)
        numbering = Numbering(
            _optional(archive, parts.get("numbering"), "list numbering", issues),
            styles,
            w,
            limits,
        )
        walker = Walker(w, numbering, Styles(styles, w), Budget(limits))
        paras = [p.rendered() for p in walker.blocks(body)]
        body_text = join([p for p in paras if p.text or p.anchors], "\n\n")
        written = _notes(archive, parts, walker, body_text.anchors, issues)
        comments = _comments(_optional(archive, parts.get("comments"), "comments", issues), w)
    text, notes, body_end = with_notes(body_text.text, written)
    changes = _changes(walker)
    hidden = {why: n for why, n in walker.hidden.items() if n}
    messages = _messages(changes, walker.comments, hidden, issues)
    return DocxText(text, notes, body_end, changes, messages, hidden, comments)


MAX_COMMENTS = 500  # comments' texts kept
MAX_COMMENT_CHARS = 500


def _comments(root, w: str) -> tuple[str, ...]:
    """The texts of the comments part's comments (each its paragraphs joined by a space,
    at most MAX_COMMENT_CHARS; at most MAX_COMMENTS): what a reviewer left open in the file,
    shown to the chair before a Word final is taken as signed (learning/pairs/finals.py)."""
    if root is None:
        return ()
    out = []
    for comment in root.iterchildren(w + "comment"):
        paras = ["".join(t.text or "" for t in p.iter(w + "t")) for p in comment.iter(w + "p")]
        said = " ".join(" ".join(p.split()) for p in paras if p.strip())
        if said:
            out.append(said[:MAX_COMMENT_CHARS])
        if len(out) == MAX_COMMENTS:
            break
    return tuple(out)


def _changes(walker: Walker) -> dict[str, int]:
    """Tracked changes accepted: inserted, deleted, moved (a move is a source and a
    destination: counted once)."""
    counted = walker.changes
    moved = max(counted["moved_to"], counted["moved_from"])
    changes = {"inserted": counted["inserted"], "deleted": counted["deleted"], "moved": moved}
    return {key: n for key, n in changes.items() if n}


def _optional(archive: zipfile.ZipFile, name: str | None, what: str, issues: list[str]):
    """A part the text does not depend on (numbering, styles): None when absent or damaged."""
    if name is None or name not in archive.namelist():
        return None
    try:
        return _xml(archive, name)
    except MemoryError:
        raise
    except Exception as exc:  # damaged XML, a DOCTYPE, a bad zip member: read on without it
        issues.append(
            f"the {what} could not be read ({name}: {type(exc).__name__}): read without it"
        )
        return None


def _note_part(archive: zipfile.ZipFile, name: str | None, tag: str) -> tuple[dict, str | None]:
    """A notes part's notes by id, or why they cannot be read."""
    if name is None:
        return {}, "the document has no part for them"
    if name not in archive.namelist():
        return {}, f"{name} is missing from the file"
    try:
        root = _xml(archive, name)
    except MemoryError:
        raise
    except Exception as exc:  # damaged XML, a DOCTYPE, a bad zip member
        return {}, f"{name} is damaged: {type(exc).__name__}"
    w = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    return {note.get(w + "id"): note for note in root.iterchildren(w + tag)}, None


def _notes(
    archive: zipfile.ZipFile, parts: dict, walker: Walker, anchors: list, issues: list[str]
) -> list[Written]:
    """Each note referenced in the body, read, in order of reference; what could not be read
    is added to `issues` (the body is kept either way)."""
    written = []
    for kind in ("footnote", "endnote"):
        referenced = [a for a in anchors if a[1] == kind]
        if not referenced:
            continue
        found, problem = _note_part(archive, parts.get(kind + "s"), kind)
        if problem:
            issues.append(
                f"the {len(referenced)} {kind}s could not be read ({problem}): the body was read "
                "without them; open the document in Word and save it again to keep its notes"
            )
            continue
        number, missing = 0, []
        for offset, _, note_id, custom in referenced:
            if custom is None:
                number += 1  # Word numbers the notes without a custom mark
            mark = custom or str(number)
            note = found.get(note_id)
            if note is None:
                missing.append(mark)
                continue
            paras = [p.rendered() for p in walker.blocks(note)]
            text = "\n".join(p.text for p in paras if p.text)
            written.append(Written(kind, mark, offset, text))
        if missing:
            issues.append(
                f"{kind}s {', '.join(missing)} are referenced in the text but missing from the "
                f"document's {kind}s part: read without them"
            )
    return written


def _messages(
    changes: dict[str, int], comments: int, hidden: dict[str, int], issues: list[str]
) -> tuple[str, ...]:
    out = []
    total = sum(changes.values())
    if total:
        kinds = (("inserted", "insertion"), ("deleted", "deletion"), ("moved", "move"))
        detail = ", ".join(
            f"{changes[key]} {word}{'s' if changes[key] != 1 else ''}"
            for key, word in kinds
            if changes.get(key)
        )
        were = "was" if total == 1 else "were"
        out.append(
            f"{total} tracked change{'s' if total != 1 else ''} {were} accepted in reading "
            f"({detail}): insertions kept, deletions dropped"
        )
    if comments:
        out.append(
            f"{comments} comment{'s' if comments != 1 else ''} left out: "
            "comments are not part of the decision's text"
        )
    total = sum(hidden.values())
    if total:
        by_style = hidden.get("style", 0)
        styled = f" ({by_style} hidden by a style)" if by_style else ""
        out.append(
            f"{total} run{'s' if total != 1 else ''} of hidden text left out{styled}: "
            f"Word does not show {'it' if total == 1 else 'them'}"
        )
    return (*out, *issues)
