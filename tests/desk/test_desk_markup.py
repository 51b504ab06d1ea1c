"""The desk's templates as a browser parses them. A `<details>` (the `technical` filter's
"פרטים טכניים", or one written by hand) is a block: inside a `<p>` the parser closes the
paragraph before it, so what followed falls out of its line (a `.meta` line lost its spacing:
"טענות שנשמרו: 4נפסלו 1") and a stray `</p>` leaves an empty paragraph. Such a line is a
`<div>`."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "legal_ai" / "web" / "desk" / "templates"
PARAGRAPH = re.compile(r"<p(?:\s[^>]*)?>(?P<body>.*?)</p>", re.S)
BLOCK = re.compile(r"\|\s*technical\b|<details\b|<div\b|<ul\b|<ol\b|<table\b|<form\b")


def test_no_paragraph_holds_a_block():
    inside = [
        f"{path.name}:{path.read_text(encoding='utf-8')[: m.start()].count(chr(10)) + 1}"
        for path in sorted(TEMPLATES.glob("*.html"))
        for m in PARAGRAPH.finditer(path.read_text(encoding="utf-8"))
        if BLOCK.search(m["body"])
    ]
    assert inside == []


def test_the_check_finds_what_it_looks_for():
    for held in (
        '<p class="meta"><span>x{{ d.model|technical }}</span></p>',
        "<p>a<div>b</div></p>",
    ):
        assert BLOCK.search(PARAGRAPH.search(held)["body"]), held
    assert not BLOCK.search(PARAGRAPH.search("<p>נכתב <bdi>1</bdi></p>")["body"])
