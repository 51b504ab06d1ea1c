"""The decisions a draft may copy from, for the copy policy (learning/checks/copy_policy.py): the
chair's finals and the committee's internal decisions of other cases that share a word 8-gram
with the draft, found from their stored fingerprints, each read only when a passage is its; and
which draft words each covers through 8-grams that are not common phrasing: an 8-gram that
COMMON_IN or more other decisions share (a fact pattern, a formula of the field: "העוררים הם
הבעלים של בית מגורים חד-משפחתי") is no evidence that the draft copied any one of them."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import InvalidInput
from ...store import copy_sources as fingerprint_store
from ...text import blocks as text_blocks
from ...text.case_numbers import normalize_case_number
from . import purity
from .shingles import (
    METHOD,
    SHINGLE,
    Word,
    block_spans,
    fingerprints,
    keyed_words,
    refresh_fingerprints,
)

COMMON_IN = 3  # decisions of other cases sharing an 8-gram that make it common phrasing


@dataclass
class Source:
    corpus: str  # style | internal
    item_id: int  # documents.id (style) or case_law.id (internal)
    doc_id: str
    case_number: str | None
    content: str | None  # None until `load()`: a text is read only when a passage is its
    words: list[Word] | None
    # draft word index -> source word index, for every draft word in a shared shingle
    cover: dict[int, int]
    reader: Callable[[], str | None] | None = None
    # draft word indices covered through 8-grams few other decisions share (not COMMON_IN)
    rare: set[int] = field(default_factory=set)
    _spans: dict[str, tuple[int, int]] | None = None
    _names: set[str] | None = None

    def load(self) -> None:
        """Read the text and cut it into words (the cut its fingerprints were taken from)."""
        if self.content is None and self.reader is not None:
            content = self.reader()
            if content is None:  # its text changed (or it went) after its fingerprints were read
                raise InvalidInput(
                    f"{self.doc_id} changed while the draft was being checked; check it again",
                    code="draft.source_changed",
                )
            self.content, self.words = content, keyed_words(content)

    @property
    def text(self) -> str:
        """The text, read when first asked for (`load`)."""
        self.load()
        if self.content is None:  # neither read nor given: a source without a reader
            raise InvalidInput(f"{self.doc_id} has no text to compare with")
        return self.content

    @property
    def loaded_words(self) -> list[Word]:
        """The text's words (`keyed_words`), cut when the text is read."""
        self.load()
        if self.words is None:
            raise InvalidInput(f"{self.doc_id} has no text to compare with")
        return self.words

    def segmentation(self, spec: dict) -> dict[str, tuple[int, int]]:
        if self._spans is None:
            try:
                seg = text_blocks.segment(self.text, spec)
                self._spans = block_spans(self.text, seg.blocks)
                header = seg.blocks.get("header", "")
            except InvalidInput:  # not a decision we can segment: blocks unknown
                self._spans, header = {}, self.text[:600]
            self._names = purity.party_names(header)
        return self._spans

    def names(self, spec: dict) -> set[str]:
        self.segmentation(spec)
        return self._names or set()


def _matched_sources(conn, case: str, draft: list[Word], *, refresh: bool = True) -> list[Source]:
    """The finals and internal decisions of other cases sharing a word 8-gram with the draft,
    each with the draft words it covers; found from their stored fingerprints (taken first for
    the texts that have none), so no text is read here. One per text: a final is in both corpora
    (the style copy is kept)."""
    wanted: dict[int, list[int]] = defaultdict(list)
    for position, shingle in enumerate(fingerprints(draft)):
        wanted[shingle].append(position)
    if not wanted:
        return []
    if refresh:  # else the caller took them through the login's own store (copy_policy)
        refresh_fingerprints(conn)
    found, seen = [], set()
    shared_by: dict[int, int] = defaultdict(int)  # draft 8-gram -> other decisions holding it
    for row in fingerprint_store.compared(conn, METHOD):
        number = normalize_case_number(row["case_number"]) if row["case_number"] else None
        if number == case or row["doc_id"] == case or row["content_hash"] in seen:
            continue
        seen.add(row["content_hash"])
        cover: dict[int, int] = {}
        shared = set()
        for q, shingle in enumerate(row["shingles"]):
            for p in wanted.get(shingle, ()):
                shared.add(shingle)
                for t in range(SHINGLE):
                    cover.setdefault(p + t, q + t)
        for shingle in shared:
            shared_by[shingle] += 1
        if cover:
            reader = functools.partial(
                fingerprint_store.content, conn, row["corpus"], row["id"], row["content_hash"]
            )
            found.append(
                Source(
                    row["corpus"],
                    row["id"],
                    row["doc_id"],
                    number or row["case_number"],
                    None,
                    None,
                    cover,
                    reader,
                    rare=shared,  # its shared 8-grams until all are counted (below)
                )
            )
    for source in found:  # the draft words each covers through rare 8-grams only
        rare = [s for s in source.rare if shared_by[s] < COMMON_IN]
        source.rare = {p + t for s in rare for p in wanted[s] for t in range(SHINGLE)}
    return found
