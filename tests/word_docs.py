"""DOCX files as Word writes them, for the DOCX reader's tests (issue 22 item 1): a python-docx
package (its styles, settings, theme and content types) with the body written as raw
WordprocessingML, and the parts python-docx does not write — footnotes, endnotes, numbering,
comments, a header and footer — added with their relationships and content types.

`word_docx(path, body, footnotes=..., ...)` writes one; the functions below write the body's
pieces (`p`, `r`, `ins`, `dele`, `move_from`, `move_to`, `note`, `table`, `text_box`, ...).
Every name, case number and ruling is invented.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NAMESPACES = (
    f'xmlns:w="{W}" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:v="urn:schemas-microsoft-com:vml" '
    'mc:Ignorable="wps"'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml"
_CHANGE = 'w:author="עורך" w:date="2025-03-01T10:00:00Z"'
_ids = iter(range(100, 10**6))


def r(text: str, *, hidden: bool = False) -> str:
    props = "<w:rPr><w:vanish/></w:rPr>" if hidden else ""
    return f'{props and "<w:r>" + props or "<w:r>"}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def ins(text: str) -> str:
    return f'<w:ins w:id="{next(_ids)}" {_CHANGE}>{r(text)}</w:ins>'


def dele(text: str) -> str:
    run = f'<w:r><w:delText xml:space="preserve">{escape(text)}</w:delText></w:r>'
    return f'<w:del w:id="{next(_ids)}" {_CHANGE}>{run}</w:del>'


def move_from(text: str) -> str:
    run = f'<w:r><w:delText xml:space="preserve">{escape(text)}</w:delText></w:r>'
    return f'<w:moveFrom w:id="{next(_ids)}" {_CHANGE}>{run}</w:moveFrom>'


def move_to(text: str) -> str:
    return f'<w:moveTo w:id="{next(_ids)}" {_CHANGE}>{r(text)}</w:moveTo>'


def note(note_id: int, kind: str = "footnote", custom: str | None = None) -> str:
    """A footnote's (or endnote's) reference mark in the body; `custom`: the author's mark."""
    if custom is None:
        return f'<w:r><w:{kind}Reference w:id="{note_id}"/></w:r>'
    return (
        f'<w:r><w:{kind}Reference w:customMarkFollows="1" w:id="{note_id}"/>'
        f"<w:t>{escape(custom)}</w:t></w:r>"
    )


def comment(comment_id: int, *runs: str) -> str:
    """Runs with a comment on them (the comment's text is in comments.xml)."""
    return (
        f'<w:commentRangeStart w:id="{comment_id}"/>{"".join(runs)}'
        f'<w:commentRangeEnd w:id="{comment_id}"/>'
        f'<w:r><w:commentReference w:id="{comment_id}"/></w:r>'
    )


def p(*runs: str, num: tuple[int, int] | None = None, mark_deleted: bool = False) -> str:
    """A paragraph of runs (plain strings are runs of text); `num`: (numId, level)."""
    props = ""
    if num:
        props += f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>'
    if mark_deleted:
        props += f'<w:rPr><w:del w:id="{next(_ids)}" {_CHANGE}/></w:rPr>'
    body = "".join(x if x.startswith("<") else r(x) for x in runs)
    return f"<w:p>{props and '<w:pPr>' + props + '</w:pPr>'}{body}</w:p>"


def table(rows: list[list[str]], *, deleted_rows: tuple[int, ...] = ()) -> str:
    """A table; each cell a paragraph of text, or raw paragraphs when it starts with '<'."""
    out = ["<w:tbl><w:tblPr><w:tblW w:w='0' w:type='auto'/></w:tblPr>"]
    for index, row in enumerate(rows):
        change = f'<w:trPr><w:del w:id="{next(_ids)}" {_CHANGE}/></w:trPr>'
        out.append("<w:tr>" + (change if index in deleted_rows else ""))
        for cell in row:
            out.append(f"<w:tc>{cell if cell.startswith('<') else p(cell)}</w:tc>")
        out.append("</w:tr>")
    return "".join(out) + "</w:tbl>"


def text_box(*paragraphs: str) -> str:
    """A run holding a text box, as Word 2010+ writes it: the DrawingML shape in mc:Choice and
    the same text again in a VML mc:Fallback (a reader must take one of them, not both)."""
    content = "".join(x if x.startswith("<") else p(x) for x in paragraphs)
    drawing = (
        '<w:drawing><wp:anchor><wp:docPr w:id="1" name="box"/><a:graphic><a:graphicData>'
        f"<wps:wsp><wps:txbx><w:txbxContent>{content}</w:txbxContent></wps:txbx></wps:wsp>"
        "</a:graphicData></a:graphic></wp:anchor></w:drawing>"
    )
    fallback = f"<w:pict><v:shape><v:textbox><w:txbxContent>{content}</w:txbxContent></v:textbox></v:shape></w:pict>"
    return (
        '<w:r><mc:AlternateContent><mc:Choice Requires="wps">'
        f"{drawing}</mc:Choice><mc:Fallback>{fallback}</mc:Fallback></mc:AlternateContent></w:r>"
    )


# A two-level decimal list (numId 1: "1.", "1.1") and a Hebrew-letter list (numId 2: "א.").
NUMBERING = (
    f'<w:numbering {NAMESPACES}><w:abstractNum w:abstractNumId="0">'
    '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>'
    '</w:abstractNum><w:abstractNum w:abstractNumId="1">'
    '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="hebrew1"/><w:lvlText w:val="%1."/></w:lvl>'
    '</w:abstractNum><w:abstractNum w:abstractNumId="2">'
    '<w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="\uf0b7"/></w:lvl></w:abstractNum>'
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
    '<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>'
    '<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num></w:numbering>'
)


def _notes_part(kind: str, notes: dict[int, str]) -> bytes:
    separators = (
        f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
        f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        f"<w:continuationSeparator/></w:r></w:p></w:{kind}>"
    )
    ref = "footnoteRef" if kind == "footnote" else "endnoteRef"
    items = "".join(
        f'<w:{kind} w:id="{nid}">'
        + (body if body.startswith("<") else p(f"<w:r><w:{ref}/></w:r>", " " + body))
        + f"</w:{kind}>"
        for nid, body in notes.items()
    )
    return f"<w:{kind}s {NAMESPACES}>{separators}{items}</w:{kind}s>".encode()


def _part(text: str, root: str) -> bytes:
    return f"<w:{root} {NAMESPACES}>{p(text)}</w:{root}>".encode()


def _register(members: dict[str, bytes], added: dict[str, tuple[str, str, bytes]]) -> None:
    """Add each part with its relationship from the main document and its content type
    (replacing the template's own, as for numbering.xml)."""
    rels = members["word/_rels/document.xml.rels"].decode()
    types = members["[Content_Types].xml"].decode()
    for name, (rel_type, content_type, data) in added.items():
        members[f"word/{name}"] = data
        rid = f"rId_{name.removesuffix('.xml')}"
        rels = re.sub(rf'<Relationship [^>]*Target="{name}"[^>]*/>', "", rels)
        rels = rels.replace(
            "</Relationships>",
            f'<Relationship Id="{rid}" Type="{_REL}/{rel_type}" Target="{name}"/></Relationships>',
        )
        types = re.sub(rf'<Override PartName="/word/{name}"[^>]*/>', "", types)
        types = types.replace(
            "</Types>",
            f'<Override PartName="/word/{name}" ContentType="{_CT}.{content_type}+xml"/></Types>',
        )
    members["word/_rels/document.xml.rels"] = rels.encode()
    members["[Content_Types].xml"] = types.encode()


def word_docx(
    path: Path,
    body: str | list[str],
    *,
    footnotes: dict[int, str] | None = None,
    endnotes: dict[int, str] | None = None,
    comments: dict[int, str] | None = None,
    header: str | None = None,
    footer: str | None = None,
    numbering: bool = False,
    parts: dict[str, bytes | None] | None = None,
) -> Path:
    """A DOCX whose body is `body` (raw XML: paragraphs, tables; a list is joined). `parts`
    replaces members last (None removes one): a damaged or missing part."""
    import docx as python_docx

    buffer = io.BytesIO()
    python_docx.Document().save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    body = "".join(body) if isinstance(body, list) else body
    section = ""
    added: dict[str, tuple[str, str, bytes]] = {}  # part -> (relationship type, content type, data)
    if footnotes is not None:
        added["footnotes.xml"] = ("footnotes", "footnotes", _notes_part("footnote", footnotes))
    if endnotes is not None:
        added["endnotes.xml"] = ("endnotes", "endnotes", _notes_part("endnote", endnotes))
    if comments is not None:
        xml = "".join(
            f'<w:comment w:id="{i}" w:author="יו״ר">{p(t)}</w:comment>' for i, t in comments.items()
        )
        added["comments.xml"] = (
            "comments",
            "comments",
            f"<w:comments {NAMESPACES}>{xml}</w:comments>".encode(),
        )
    if numbering:
        added["numbering.xml"] = ("numbering", "numbering", NUMBERING.encode())
    for kind, text in (("header", header), ("footer", footer)):
        if text is not None:
            added[f"{kind}1.xml"] = (kind, kind, _part(text, "hdr" if kind == "header" else "ftr"))
            section += f'<w:{kind}Reference w:type="default" r:id="rId_{kind}1"/>'
    document = f"<w:document {NAMESPACES}><w:body>{body}<w:sectPr>{section}</w:sectPr></w:body></w:document>"
    members["word/document.xml"] = document.encode()
    _register(members, added)
    for name, data in (parts or {}).items():
        if data is None:
            members.pop(name, None)
        else:
            members[name] = data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


# -- a plain-text decision as Word writes it (issue 22 item 4: bench/reading.py) ------------------
_NOTE = "\ue000"  # a footnote's reference mark: its number follows, then _END
_INS, _DEL, _END = "\ue001", "\ue002", "\ue003"  # a tracked insertion / deletion, up to _END
_TABLE = "\ue004"  # a line where the table stands
_PIECE = re.compile(f"({_NOTE}\\d+{_END}|{_INS}[^{_END}]*{_END}|{_DEL}[^{_END}]*{_END})")
_OUTCOME = re.compile(
    r"(?<![\u05d0-\u05ea])(?:נדח(?:ה|ית|ים|ו)|מתקבל(?:ת|ים)?|מוחזר(?:ת)?|להידחות|להתקבל)"
    r"(?![\u05d0-\u05ea])"
)
_BACKGROUND = re.compile(r"^(?:רקע עובדתי|רקע|העובדות)$")
_CONCLUSION = re.compile(r"^(?:סוף דבר|סיכום|התוצאה)$")
# A table of the proceedings (invented dates): its rows are read one a line, cells joined by " | ".
PROCEEDINGS = [["מסמך", "תאריך"], ["כתב הערר", "5.1.2025"], ["תשובת הוועדה המקומית", "2.2.2025"]]


@dataclass(frozen=True)
class WordDecision:
    """A decision as Word writes it (`body`, `footnotes`: `word_docx`'s arguments) and `text`,
    what its plain-text version says (the body as Word shows it, then its notes section as
    text/notes.py writes one): the reference a reader of the Word file is measured against."""

    text: str
    body: list[str]
    footnotes: dict[int, str]
    changes: int  # tracked changes in the body (insertions and deletions)


def _closing(text: str, at: int) -> int:
    """The index of the parenthesis closing the one open before `at` (-1: none)."""
    depth = 1
    for i in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def _move_to_note(text: str, citation: str, number: int) -> tuple[str, str | None]:
    """`citation`'s first occurrence (after a space, or opening a parenthesis: a prefixed one,
    מעע"מ, stays in the body) replaced by the reference mark of note `number`: (the text, the
    note's text — the citation, or the whole parenthesis it opens)."""
    for match in re.finditer(re.escape(citation), text):
        start, end = match.start(), match.end()
        moved = citation
        if text[start - 1 : start] == "(":
            close = _closing(text, end)
            if close < 0:
                continue
            moved, start, end = text[start:close], start - 1, close + 1
        elif text[start - 1 : start] != " ":
            continue
        if text[start - 1 : start] == " ":
            start -= 1
        return text[:start] + f"{_NOTE}{number}{_END}" + text[end:], moved
    return text, None


def _mark_outcome(lines: list[str]) -> tuple[list[str], int]:
    """The first outcome word after the conclusion's heading made a tracked insertion, after a
    tracked deletion of its opposite: (lines, tracked changes)."""
    after = next((i for i, line in enumerate(lines) if _CONCLUSION.match(line.strip())), None)
    for i in range(after + 1 if after is not None else len(lines), len(lines)):
        found = _OUTCOME.search(lines[i])
        if found:
            word = found.group()
            opposite = "להתקבל" if word == "להידחות" else "מתקבל" if "נדח" in word else "נדחה"
            marked = f"{_DEL}{opposite}{_END}{_INS}{word}{_END}"
            lines[i] = lines[i][: found.start()] + marked + lines[i][found.end() :]
            return lines, 2
    return lines, 0


def _with_table(lines: list[str]) -> list[str]:
    """The table put after the first paragraph of the background (else after the first line)."""
    heading = next((i for i, line in enumerate(lines) if _BACKGROUND.match(line.strip())), 0)
    at = next((i for i in range(heading + 1, len(lines)) if lines[i].strip()), heading)
    return [*lines[: at + 1], "", _TABLE, "", *lines[at + 1 :]]


def _runs(line: str) -> list[str]:
    out = []
    for piece in _PIECE.split(line):
        if piece.startswith(_NOTE):
            out.append(note(int(piece[1:-1])))
        elif piece.startswith(_INS):
            out.append(ins(piece[1:-1]))
        elif piece.startswith(_DEL):
            out.append(dele(piece[1:-1]))
        elif piece:
            out.append(r(piece))
    return out


def as_word(text: str, rulings: list[str]) -> WordDecision:
    """`text` (a decision in plain text) as its author would have it in Word: each citation of
    `rulings` (as written) moved into a footnote at its place (with the rest of the parenthesis
    it opens: a pinpoint, a reporter), the
    first outcome word of the conclusion a tracked insertion after a tracked deletion of its
    opposite, and a table (PROCEEDINGS) after the background's first paragraph; each line a
    paragraph. Every name, number and date is the text's, or invented."""
    text = text.strip()
    footnotes: dict[int, str] = {}
    for citation in sorted(set(rulings), key=lambda c: (text.find(c) % (len(text) + 1), c)):
        text, moved = _move_to_note(text, citation, len(footnotes) + 1)
        if moved is not None:
            footnotes[len(footnotes) + 1] = moved
    lines, changes = _mark_outcome(_with_table(text.split("\n")))
    body = [table(PROCEEDINGS) if line == _TABLE else p(*_runs(line)) for line in lines if line]
    shown = []
    for line in lines:
        if line == _TABLE:
            shown.append("\n".join(" | ".join(row) for row in PROCEEDINGS))
            continue
        line = re.sub(f"{_NOTE}\\d+{_END}|{_DEL}[^{_END}]*{_END}", "", line)
        shown.append(line.replace(_INS, "").replace(_END, ""))
    plain = "\n".join(shown)
    if footnotes:
        plain += "\n\nהערות שוליים" + "".join(f"\n\n[{n}] {c}" for n, c in footnotes.items())
    return WordDecision(plain, body, footnotes, changes)
