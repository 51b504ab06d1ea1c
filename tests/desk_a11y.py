"""What tests/desk/test_desk_a11y.py measures on a page in the test Chromium (issue 23 item 6):
axe-core's WCAG 2.1 A/AA violations (axe-playwright-python ships axe-core), and what axe does not
measure — each control's border against what is behind it (WCAG 1.4.11, 3:1), a control without
a Hebrew name, a timestamp broken over two lines, a checkbox stretched into a bar, the page's
language and direction, and the focus ring of the focused element; the WCAG relative-luminance contrast and desk.css's custom
properties. Each check returns its findings as lines of text, empty when the page passes."""

from __future__ import annotations

import re

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FAILING = {"serious", "critical"}
WHITE = (255, 255, 255)

# The background behind a node: the first ancestor's (or its own) opaque colour.
_BEHIND = """
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const behind = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
"""
CONTROL_BORDERS = (
    "() => {"
    + _BEHIND
    + """
  const controls = document.querySelectorAll(
    "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea");
  // A file field is drawn under its face (_case_forms.html): the face's button is the border
  // the eye sees, and the one judged.
  const drawn = (n) => (n.type === "file" && n.nextElementSibling
    && n.nextElementSibling.querySelector(".file-button")) || n;
  return [...controls].filter((n) => n.getClientRects().length).map((control) => {
    const n = drawn(control), style = getComputedStyle(n);
    return {name: control.name || control.id || control.tagName, border: rgb(style.borderTopColor).slice(0, 3),
            width: parseFloat(style.borderTopWidth), inside: behind(n),
            outside: behind(n.parentElement)};
  });
}"""
)
FOCUSED = (
    "() => {"
    + _BEHIND
    + """
  const n = document.activeElement, s = getComputedStyle(n);
  return {tag: n.tagName, text: n.textContent.trim().slice(0, 40), id: n.id,
          name: n.getAttribute("name"), href: n.getAttribute("href"),
          style: s.outlineStyle, width: parseFloat(s.outlineWidth),
          color: rgb(s.outlineColor).slice(0, 3), behind: behind(n.parentElement),
          box: n.getBoundingClientRect().toJSON()};
}"""
)
# Every control's accessible name (aria-label, aria-labelledby, its <label>, a button's text),
# those without a Hebrew letter returned.
UNNAMED = """() => {
  const said = (ids) => ids.split(/\\s+/).map((id) =>
    (document.getElementById(id) || {}).textContent || "").join(" ");
  const out = [];
  for (const n of document.querySelectorAll(
      "input:not([type=hidden]), select, textarea, button")) {
    if (!n.getClientRects().length) continue;
    let name = n.getAttribute("aria-label") || "";
    if (!name && n.getAttribute("aria-labelledby")) name = said(n.getAttribute("aria-labelledby"));
    if (!name) name = [...(n.labels || [])].map((l) => l.textContent).join(" ");
    if (!name && n.tagName === "BUTTON") name = n.textContent;
    if (!name && n.type === "submit") name = n.value;
    if (!/[\\u0590-\\u05FF]/.test(name)) out.push(n.outerHTML.slice(0, 140));
  }
  return out;
}"""
# A timestamp (1.6.2021 19:05) drawn on more than one line.
BROKEN_TIMES = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/\\d{1,2}\\.\\d{1,2}\\.\\d{4}\\s\\d{2}:\\d{2}/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
                                                        .map((r) => Math.round(r.top)));
      if (tops.size > 1) out.push(m[0]);
    }
  }
  return out;
}"""
# A checkbox or radio stretched beyond its own box (a field-wide bar beside its label).
STRETCHED_BOXES = """() => [...document.querySelectorAll("input[type=checkbox], input[type=radio]")]
  .filter((n) => n.getClientRects().length && n.getBoundingClientRect().width > 32)
  .map((n) => `${n.name} ${Math.round(n.getBoundingClientRect().width)}px`)"""
OPEN_DETAILS = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


def luminance(rgb) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (channels 0-255)."""

    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def hex_rgb(value: str) -> tuple[int, int, int]:
    value = value.strip().lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    return tuple(int(value[i : i + 2], 16) for i in (0, 2, 4))


def custom_properties(css: str) -> dict[str, str]:
    """The --name: value pairs of the stylesheet's :root rule."""
    root = re.search(r":root\s*\{([^}]*)\}", css).group(1)
    return dict(re.findall(r"--([\w-]+)\s*:\s*([^;]+);", root))


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations, each with its rule, impact,
    axe's help and the elements (CSS selectors)."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]}
    results = Axe().run(page, options=options).response
    found = []
    for rule in results["violations"]:
        if rule["impact"] in FAILING:
            targets = ", ".join(" ".join(map(str, n["target"])) for n in rule["nodes"][:6])
            more = f" (+{len(rule['nodes']) - 6})" if len(rule["nodes"]) > 6 else ""
            found.append(f"{rule['id']} ({rule['impact']}): {rule['help']} — {targets}{more}")
    return found


def faint_borders(page) -> list[str]:
    """Controls whose border is under 3:1 against the field or the background around it."""
    faint: dict[str, list[str]] = {}
    for c in page.evaluate(CONTROL_BORDERS):
        worst = min(contrast(c["border"], c["inside"]), contrast(c["border"], c["outside"]))
        if c["width"] < 1 or worst < 3:
            faint.setdefault(f"{worst:.2f}:1 at {c['width']}px", []).append(c["name"])
    return [f"control border {k} (WCAG 1.4.11 wants 3:1): {', '.join(v)}" for k, v in faint.items()]


def page_problems(page) -> list[str]:
    """Everything this module checks on the page as shown (its <details> opened first)."""
    page.evaluate(OPEN_DETAILS)
    root = page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
    found = [] if root == ["he", "rtl"] else [f"<html lang dir> is {root}, not he rtl"]
    found += axe_violations(page) + faint_borders(page)
    found += [f"a control without a Hebrew name: {n}" for n in page.evaluate(UNNAMED)]
    found += [f"a timestamp broken over two lines: {t}" for t in page.evaluate(BROKEN_TIMES)]
    found += [f"a checkbox drawn as a bar: {b}" for b in page.evaluate(STRETCHED_BOXES)]
    return found


def weak_focus(focused: dict) -> str | None:
    """Why the focused element's ring is not visible enough (None when it is): an outline
    of at least 2px at 3:1 against the background around it."""
    what = f"<{focused['tag'].lower()}> {focused['name'] or focused['href'] or focused['text']}"
    if focused["style"] in ("none", "hidden") or focused["width"] < 2:
        return f"{what}: no focus ring ({focused['style']} {focused['width']}px)"
    ratio = contrast(focused["color"], focused["behind"])
    return None if ratio >= 3 else f"{what}: focus ring at {ratio:.2f}:1"
