"""Akoma Ntoso 3.0 legislation -> one record per top-level section.

Each record carries the law title, the section number and its `eId` (the locator), the chapter
or schedule it sits in, its side heading, and its text with one line per sub-section.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from ..errors import UnsupportedFile
from .hebrew import clean_text

NS = {"a": "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"}
_AKN = "{" + NS["a"] + "}"
_SPACES = re.compile(r"[ \t\u00a0]+")
_WHITESPACE = re.compile(r"\s+")


def _flat(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return _SPACES.sub(" ", "".join(element.itertext())).strip()


def _section_text(point: etree._Element) -> str:
    """The section's text without its side heading, one line per numbered sub-point."""
    lines: list[str] = []
    current: list[str] = []
    seen_points = [0]

    def walk(node: etree._Element) -> None:
        for child in node:
            tag = child.tag.replace(_AKN, "") if isinstance(child.tag, str) else ""
            if tag == "heading":
                continue
            if tag == "point":
                seen_points[0] += 1
                if seen_points[0] > 1 and current:
                    lines.append("".join(current))
                    current.clear()
            if child.text and tag not in ("heading",):
                current.append(child.text)
            walk(child)
            if tag in ("p", "num", "br"):
                current.append(" ")
            if child.tail:
                current.append(child.tail)

    walk(point)
    if current:
        lines.append("".join(current))
    return "\n".join(line for line in (_WHITESPACE.sub(" ", ln).strip() for ln in lines) if line)


def _container(point: etree._Element) -> str:
    parts = []
    for ancestor in point.iterancestors():
        tag = ancestor.tag.replace(_AKN, "") if isinstance(ancestor.tag, str) else ""
        if tag in ("chapter", "part", "section", "appendix", "subchapter"):
            num = _flat(ancestor.find("a:num", NS))
            title = _flat(ancestor.find("a:title", NS)) or _flat(ancestor.find("a:heading", NS))
            label = " ".join(p for p in (num, title) if p)
            if tag == "appendix" and not label:
                label = ancestor.get("eId", "")
            if label:
                parts.append(label)
    return " / ".join(reversed(parts))


def _parser() -> etree.XMLParser:
    """A parser that reads only the file: no entity expansion (billion laughs), no DTD, no
    network, no external files, libxml2's default limits on depth and size (huge_tree off)."""
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_law(path: Path) -> Iterator[dict]:
    """Yield one record per top-level section (body and schedules) of an Akoma Ntoso file."""
    # Parsed from the bytes, not the name: the name is never read as a URL, and an encoding
    # error is a syntax error (lxml reading a file by name raises OSError for it).
    data = path.read_bytes()
    try:
        tree = etree.parse(io.BytesIO(data), _parser())
    except etree.LxmlError as exc:
        reason = clean_text(str(exc).splitlines()[0] if str(exc) else "syntax error")[:200]
        raise UnsupportedFile(f"{path}: not well-formed XML ({reason}); fix the file") from None
    if tree.docinfo.doctype:
        raise UnsupportedFile(
            f"{path}: the XML declares a DOCTYPE; Akoma Ntoso needs none, remove it"
        )
    root = tree.getroot()
    if root.tag != _AKN + "akomaNtoso":
        raise UnsupportedFile(f"{path}: not an Akoma Ntoso 3.0 document (root <{root.tag}>)")
    work_uri = root.xpath("string(//a:FRBRWork/a:FRBRuri/@value)", namespaces=NS)
    work_id = work_uri.rstrip("/").rsplit("/", 1)[-1] or path.stem
    law_date = root.xpath("string(//a:FRBRWork/a:FRBRdate/@date)", namespaces=NS) or None
    law_title = clean_text(_flat(root.find(".//a:body/a:title", NS))) or work_id
    points = root.xpath("//a:body//a:point[not(ancestor::a:point)]", namespaces=NS)
    if not points:
        raise UnsupportedFile(f"{path}: no sections (<point>) found in the body")
    seen: dict[str, int] = {}
    for point in points:
        eid = point.get("eId")
        if not eid:
            continue
        # The official XML repeats a few eIds (PBL: point_266ב twice); doc_ids must stay unique.
        seen[eid] = seen.get(eid, 0) + 1
        key = eid if seen[eid] == 1 else f"{eid}~{seen[eid]}"
        num = _flat(point.find("a:num", NS)).rstrip(".").strip()
        heading = clean_text(_flat(point.find("a:heading", NS)))
        text = clean_text(_section_text(point))
        body = "\n".join(p for p in (heading, text) if p)
        label = f"סעיף {num}" if num else eid
        yield {
            "doc_id": f"{work_id}#{key}",
            "doc_type": "legislation",
            "title": f"{law_title}, {label}" + (f" – {heading}" if heading else ""),
            "law_title": law_title,
            "section_num": num or eid,
            "eid": eid,
            "decided_on": law_date,
            "text": body,
            "metadata": {"work_id": work_id, "container": _container(point), "heading": heading},
        }
