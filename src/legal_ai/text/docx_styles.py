"""Text Word hides through its styles. A run is hidden by `w:vanish` in its own
properties (direct formatting, which decides when present: `w:val="0"` shows it), else by a
`w:vanish` in its character style, its paragraph's style (a linked style's either half), any
style either inherits through `w:basedOn`, or the document's defaults (`w:docDefaults`).

Word treats `w:vanish` as a toggle between the paragraph's and the run's style (set in both, it
shows the text); here a style's `w:vanish` hides the run whichever other style sets it: text
Word hides is never read, at the price of leaving out the rare text a double toggle shows.
"""

from __future__ import annotations

from lxml import etree

_TRUE = ("", "1", "true", "on")


class Styles:
    """Which styles hide their text: `paragraph_hides(paragraph)`, then `hidden_run(run, ...)`
    and `hidden_mark(paragraph, ...)` with what it said."""

    def __init__(self, styles: etree._Element | None, w: str) -> None:
        self.w = w
        self.kind: dict[str, str] = {}
        self.based: dict[str, str | None] = {}
        self.link: dict[str, str | None] = {}
        self.own: dict[str, bool] = {}  # a style's own w:vanish, where it sets one
        self.resolved: dict[str | None, bool] = {}  # style_hides, once a style
        self.default_paragraph: str | None = None
        self.defaults = False
        if styles is None:
            return
        self.defaults = self._vanish(styles.find(f"{w}docDefaults/{w}rPrDefault/{w}rPr")) is True
        for style in styles.iterchildren(w + "style"):
            style_id = style.get(w + "styleId") or ""
            kind = style.get(w + "type") or "paragraph"
            self.kind[style_id] = kind
            self.based[style_id] = self._child_val(style, "basedOn")
            self.link[style_id] = self._child_val(style, "link")
            vanish = self._vanish(style.find(w + "rPr"))
            if vanish is not None:
                self.own[style_id] = vanish
            if kind == "paragraph" and (style.get(w + "default") or "").lower() in _TRUE[1:]:
                self.default_paragraph = style_id

    def _child_val(self, node: etree._Element, tag: str) -> str | None:
        child = node.find(self.w + tag)
        return None if child is None else child.get(self.w + "val")

    def _vanish(self, rpr: etree._Element | None) -> bool | None:
        """What run properties say of hiding: True, False (`w:val="0"`) or None (nothing)."""
        if rpr is None:
            return None
        vanish = rpr.find(self.w + "vanish")
        if vanish is None:
            return None
        return (vanish.get(self.w + "val") or "").lower() in _TRUE

    def style_hides(self, style_id: str | None) -> bool:
        """Whether the style, or the nearest style it is based on that says, hides its text; a
        linked style's other half counts as the same style."""
        if style_id in self.resolved:
            return self.resolved[style_id]
        seen: set[str] = set()
        current, hides = style_id, False
        while current and current not in seen:
            seen.add(current)
            if current in self.own:
                hides = self.own[current]
                break
            linked = self.link.get(current)
            if linked and linked in self.own:
                hides = self.own[linked]
                break
            current = self.based.get(current)
        self.resolved[style_id] = hides
        return hides

    def paragraph_hides(self, paragraph: etree._Element) -> bool:
        """Whether the paragraph's style (its own, else the default paragraph style) or the
        document defaults hide its runs' text."""
        style = paragraph.find(f"{self.w}pPr/{self.w}pStyle")
        found = None if style is None else style.get(self.w + "val")
        return self.style_hides(found or self.default_paragraph) or self.defaults

    def hidden_run(self, run: etree._Element, paragraph_hides: bool) -> str | None:
        """Why `run` is hidden: "direct" (its own w:vanish), "style" (its character style's,
        or its paragraph's: `paragraph_hides`), or None (Word shows it)."""
        rpr = run.find(self.w + "rPr")
        direct = self._vanish(rpr)
        if direct is not None:
            return "direct" if direct else None
        character = None if rpr is None else self._child_val(rpr, "rStyle")
        return "style" if paragraph_hides or self.style_hides(character) else None

    def hidden_mark(self, paragraph: etree._Element, paragraph_hides: bool) -> bool:
        """Whether the paragraph's mark is hidden (then Word shows no number for it either)."""
        rpr = paragraph.find(f"{self.w}pPr/{self.w}rPr")
        direct = self._vanish(rpr)
        if direct is not None:
            return direct
        character = None if rpr is None else self._child_val(rpr, "rStyle")
        return paragraph_hides or self.style_hides(character)
