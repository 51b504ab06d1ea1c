"""The body of a WordprocessingML part walked in document order (text/docx_reader.py reads
the package): paragraphs with their list numbers, tables row by row, text boxes after the
paragraph that anchors them, tracked changes accepted and counted, notes' anchors recorded."""

from __future__ import annotations

from collections import Counter

from .bounds import LIMITS, Budget
from .docx_numbering import Numbering
from .docx_styles import Styles
from .hebrew import clean_text

_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"

# Walked through as if their children stood in their place (content controls, custom XML,
# hyperlinks, simple fields, bidi overrides, tracked insertions and moves' destinations).
_WRAPPERS = {
    "sdt", "sdtContent", "customXml", "smartTag", "hyperlink", "fldSimple", "bdo", "dir",
    "ins", "moveTo",
}  # fmt: skip
_DROPPED = {"del", "moveFrom"}  # tracked deletions and moves' sources: not in the final text
_COUNTED = {"ins": "inserted", "del": "deleted", "moveTo": "moved_to", "moveFrom": "moved_from"}
_NOTE_KINDS = {"footnoteReference": "footnote", "endnoteReference": "endnote"}
_TRUE = ("", "1", "true", "on")


class Para:
    """Text being built, with its notes' anchors: (offset, kind, id, custom mark). Its pieces
    are joined once, when its text is read: a paragraph of a million runs, or a body of a million
    paragraphs, costs their length, not its square."""

    def __init__(
        self,
        text: str = "",
        anchors: list[list] | None = None,
        label: str = "",  # the list number Word shows before it
        joins_next: bool = False,  # its paragraph mark was deleted: it runs on into the next
    ) -> None:
        self._pieces = [text] if text else []
        self.size = len(text)
        self.anchors = anchors if anchors is not None else []
        self.label = label
        self.joins_next = joins_next

    @property
    def text(self) -> str:
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def add(self, text: str) -> None:
        text = clean_text(text)
        self._pieces.append(text)
        self.size += len(text)

    def extend(self, other: Para) -> None:
        """`other` appended, its anchors shifted to where it now starts."""
        self.anchors += other.shifted(self.size)
        self._pieces.append(other.text)
        self.size += other.size

    def shifted(self, by: int) -> list[list]:
        return [[offset + by, *rest] for offset, *rest in self.anchors]

    def rendered(self) -> Para:
        """Its label in front, whitespace trimmed (anchors kept within the text)."""
        text = self.label + self.text
        lead = len(text) - len(text.lstrip())
        stripped = text.strip()
        anchors = [
            [min(max(offset - lead, 0), len(stripped)), *rest]
            for offset, *rest in self.shifted(len(self.label))
        ]
        return Para(stripped, anchors)


def join(parts: list[Para], separator: str) -> Para:
    joined = Para()
    for index, part in enumerate(parts):
        if index:
            joined.add(separator)
        joined.extend(part)
    return joined


def _merge_runs_on(paras: list[Para]) -> list[Para]:
    """A paragraph whose mark was deleted joined to the next (which keeps its own label)."""
    out: list[Para] = []
    carry: Para | None = None
    for para in paras:
        if carry is not None:
            carry.extend(para)
            carry.label, carry.joins_next = para.label, para.joins_next
            para, carry = carry, None
        if para.joins_next:
            carry = para
        else:
            out.append(para)
    return [*out, carry] if carry is not None else out


class Walker:
    def __init__(
        self, w: str, numbering: Numbering, styles: Styles, budget: Budget | None = None
    ) -> None:
        self.w = w
        self.numbering = numbering
        self.styles = styles
        self.budget = budget or Budget(LIMITS)
        self.changes: Counter[str] = Counter()
        self.hidden: Counter[str] = Counter()  # runs left out as hidden: "direct", "style"
        self.paragraph_hides = False  # the paragraph being read: its style hides its runs
        self.comments = 0

    def name(self, node) -> str:
        """A node's local name in the WordprocessingML namespace, `mc:` + the local name in
        markup compatibility's, "" for anything else (drawings, math, comments in the XML)."""
        tag = node.tag
        if not isinstance(tag, str):
            return ""
        if tag.startswith(self.w):
            return tag[len(self.w) :]
        return "mc:" + tag[len(_MC) :] if tag.startswith(_MC) else ""

    def branch(self, alternate) -> list:
        """The branch of an `mc:AlternateContent` to read: its first Choice (what Word shows),
        else its Fallback."""
        for wanted in ("mc:Choice", "mc:Fallback"):
            for child in alternate:
                if self.name(child) == wanted:
                    return list(child)
        return []

    def count(self, name: str) -> None:
        if name in _COUNTED:
            self.changes[_COUNTED[name]] += 1

    def blocks(self, container) -> list[Para]:
        """The block-level content of a body, cell, note or text box, in document order."""
        out: list[Para] = []
        for child in container:
            name = self.name(child)
            if name == "p":
                out += self.paragraph(child)
            elif name == "tbl":
                out += self.table(child)
            elif name in _DROPPED:
                self.count(name)
            elif name in _WRAPPERS:
                self.count(name)
                out += self.blocks(child)
            elif name == "mc:AlternateContent":
                out += self.blocks(self.branch(child))
        return _merge_runs_on(out)

    def paragraph(self, p) -> list[Para]:
        """The paragraph, then the paragraphs of the text boxes it anchors."""
        para, boxes = Para(), list[Para]()
        outer, self.paragraph_hides = self.paragraph_hides, self.styles.paragraph_hides(p)
        try:
            self.inline(p, para, boxes)
            mark = p.find(f"{self.w}pPr/{self.w}rPr")
            if mark is not None and mark.find(self.w + "del") is not None:
                para.joins_next = True
            else:
                label = self.numbering.label(p)  # counted even when hidden, as Word counts it
                if para.text.strip() or not self.styles.hidden_mark(p, self.paragraph_hides):
                    para.label = label
                    self.budget.spend("characters", len(label))
        finally:
            self.paragraph_hides = outer  # a text box's paragraph inside this one's run
        return [para, *boxes]

    def inline(self, element, para: Para, boxes: list[Para]) -> None:
        for child in element:
            name = self.name(child)
            if name == "r":
                self.run(child, para, boxes)
            elif name in _DROPPED:
                self.count(name)
            elif name in _WRAPPERS:
                self.count(name)
                self.inline(child, para, boxes)
            elif name == "mc:AlternateContent":
                self.inline(self.branch(child), para, boxes)

    def run(self, r, para: Para, boxes: list[Para]) -> None:
        w = self.w
        self.budget.spend("runs of text")
        hidden = self.styles.hidden_run(r, self.paragraph_hides)
        if hidden:  # Word does not show it: left out, and counted
            self.hidden[hidden] += 1
            return
        custom_mark = False
        before = para.size
        for child in r:
            name = self.name(child)
            if name == "t":
                if custom_mark:  # the author's own mark for the note just referenced
                    para.anchors[-1][3] = clean_text(child.text or "").strip() or None
                    custom_mark = False
                else:
                    para.add(child.text or "")
            elif name in ("tab", "ptab"):
                para.add("\t")
            elif name in ("br", "cr"):
                para.add("\n")
            elif name == "noBreakHyphen":
                para.add("-")
            elif name in _NOTE_KINDS:
                self.budget.spend("note references")
                para.anchors.append([para.size, _NOTE_KINDS[name], child.get(w + "id"), None])
                custom_mark = (child.get(w + "customMarkFollows") or "0").lower() in _TRUE
            elif name == "commentReference":
                self.comments += 1
            elif name in ("drawing", "pict", "object", "mc:AlternateContent"):
                self.budget.spend("objects")
                boxes += self.text_boxes(child)
        self.budget.spend("characters", para.size - before)

    def text_boxes(self, node) -> list[Para]:
        out: list[Para] = []
        for child in self.branch(node) if self.name(node) == "mc:AlternateContent" else node:
            if self.name(child) == "txbxContent":
                out += self.blocks(child)
            elif isinstance(child.tag, str):
                out += self.text_boxes(child)
        return out

    def table(self, tbl) -> list[Para]:
        rows = []
        for tr in self.children(tbl, "tr"):
            row_change = tr.find(f"{self.w}trPr/{self.w}del")
            if row_change is not None:
                self.changes["deleted"] += 1
                continue
            if tr.find(f"{self.w}trPr/{self.w}ins") is not None:
                self.changes["inserted"] += 1
            cells = [self.cell(tc) for tc in self.children(tr, "tc")]
            row = join(cells, " | ")
            if row.text.replace("|", "").strip() or row.anchors:
                rows.append(row)
        return rows

    def cell(self, tc) -> Para:
        self.budget.spend("table cells")
        paras = [p.rendered() for p in self.blocks(tc)]
        return join([p for p in paras if p.text or p.anchors], " ")

    def children(self, node, wanted: str):
        """`node`'s children named `wanted`, through content controls and custom XML."""
        for child in node:
            name = self.name(child)
            if name == wanted:
                yield child
            elif name in ("sdt", "sdtContent", "customXml"):
                yield from self.children(child, wanted)
