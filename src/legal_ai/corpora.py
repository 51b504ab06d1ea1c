"""The corpus registry: the single place that knows each corpus's tables and mandatory scope.

Every SQL statement that reads or writes a corpus is composed from a `Corpus` here: its item
table, the chunk *partition* that physically holds only its rows, and the scope predicate on
the item table. A search tool names its corpus by key; no caller passes a table or a filter, so
no query path can forget the corpus (INV-RET1).
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from .errors import InvalidInput


@dataclass(frozen=True)
class Source:
    """One searchable table of a corpus: its chunks, its principles, or the chair's attached
    precedents. `condition` is constant SQL on the unit alias `u` (never a caller's value)."""

    kind: str  # chunk | principle | precedent | page (a page image)
    table: str  # the partition holding only this corpus's units
    root: str  # the partitioned parent (audits check units against it)
    parent_column: str | None  # unit column referencing the item; None: the unit is the item
    text_column: str
    condition: str | None = None

    @property
    def parent(self) -> str:
        """The unit column referencing the item, for a unit that is not the item itself."""
        if self.parent_column is None:
            raise InvalidInput(f"{self.kind} units stand alone: they reference no item")
        return self.parent_column


@dataclass(frozen=True)
class Corpus:
    key: str
    description: str
    item_table: str | None  # documents | case_law | digests (None: units stand alone)
    chunk_table: str  # the partition (or table) holding only this corpus's chunks
    chunk_root: str  # the partitioned parent of chunk_table (used for writes)
    parent_column: str  # chunk column referencing the item
    scope_column: str | None  # item column that pins the corpus
    scope_value: str | None
    doc_types: tuple[str, ...]
    columns: tuple[str, ...]  # item columns a caller may set (others go to metadata)
    citable: bool = True
    principle_table: str | None = None  # the principles partition of a case-law corpus
    image_table: str | None = None  # the page-images partition (the optional image leg)

    @property
    def image_source(self) -> Source | None:
        if self.image_table is None:
            return None
        root = "document_page_images" if self.item_table == "documents" else "case_law_page_images"
        return Source("page", self.image_table, root, self.parent_column, "page")

    @property
    def sources(self) -> tuple[Source, ...]:
        if self.item_table is None:
            return (Source("precedent", self.chunk_table, self.chunk_root, None, "search_text"),)
        chunks = Source("chunk", self.chunk_table, self.chunk_root, self.parent_column, "text")
        if self.principle_table is None:
            return (chunks,)
        # Only principles the gate approved are searchable (INV-LRN1), and not one returned to
        # the chair because its span or rule no longer holds (migration 0039).
        principles = Source(
            "principle",
            self.principle_table,
            "case_law_principles",
            "case_law_id",
            "rule_text",
            "u.review_status = 'approved' AND u.returned_at IS NULL",
        )
        return (chunks, principles)

    @property
    def items(self) -> str:
        """The item table, for a corpus that has one (every corpus but the precedents')."""
        if self.item_table is None:
            raise InvalidInput(f"corpus {self.key!r} has no items")
        return self.item_table

    @property
    def images(self) -> str:
        """The page-images partition, for a corpus that keeps page images."""
        if self.image_table is None:
            raise InvalidInput(f"corpus {self.key!r} keeps no page images")
        return self.image_table

    @property
    def scoped_by(self) -> str:
        """The item column that pins the corpus, for a corpus that shares its item table."""
        if self.scope_column is None:
            raise InvalidInput(f"corpus {self.key!r} has no scope column")
        return self.scope_column

    @property
    def default_doc_type(self) -> str:
        return self.doc_types[0]

    def scope(self, alias: str) -> sql.Composable:
        """The mandatory scope predicate on the item table aliased `alias`; its value is the
        named parameter `corpus_scope` (see `scope_params`)."""
        if self.scope_column is None:
            return sql.SQL("TRUE")
        return sql.SQL("{}.{} = %(corpus_scope)s").format(
            sql.Identifier(alias), sql.Identifier(self.scope_column)
        )

    def scope_params(self) -> dict[str, str | None]:
        return {"corpus_scope": self.scope_value} if self.scope_column else {}

    def scope_values(self) -> dict[str, str | None]:
        """Columns (and values) that pin a new row of this corpus."""
        return {self.scope_column: self.scope_value} if self.scope_column else {}


_DOC_COLUMNS = ("title", "case_number", "practice_area")
_CASE_LAW_COLUMNS = (
    "title",
    "case_number",
    "court",
    "decided_on",
    "judges",
    "chair_name",
    "is_binding",
    "headnote",
    "summary",
    "tags",
    "practice_area",
    "law_title",
    "section_num",
    "eid",
    "aliases",
)
_DIGEST_COLUMNS = ("title", "points_to", "publisher", "published_on", "practice_area")

CORPORA: dict[str, Corpus] = {
    c.key: c
    for c in (
        Corpus(
            "case",
            "a case's documents (pleadings, protocols, exhibits)",
            "documents",
            "document_chunks_case",
            "document_chunks",
            "document_id",
            "corpus",
            "case",
            ("document",),
            _DOC_COLUMNS,
            image_table="document_page_images_case",
        ),
        Corpus(
            "style",
            "the chair's signed final decisions (style corpus)",
            "documents",
            "document_chunks_style",
            "document_chunks",
            "document_id",
            "corpus",
            "style",
            ("document",),
            (*_DOC_COLUMNS, "decided_on"),
            image_table="document_page_images_style",
        ),
        Corpus(
            "external",
            "authoritative external sources: court rulings and legislation",
            "case_law",
            "case_law_chunks_external",
            "case_law_chunks",
            "case_law_id",
            "source_kind",
            "external_upload",
            ("ruling", "legislation", "reference"),
            _CASE_LAW_COLUMNS,
            principle_table="case_law_principles_external",
            image_table="case_law_page_images_external",
        ),
        Corpus(
            "internal",
            "the committee's own decisions",
            "case_law",
            "case_law_chunks_internal",
            "case_law_chunks",
            "case_law_id",
            "source_kind",
            "internal_committee",
            ("decision",),
            _CASE_LAW_COLUMNS,
            principle_table="case_law_principles_internal",
            image_table="case_law_page_images_internal",
        ),
        Corpus(
            "digests",
            "secondary summaries pointing at rulings (never cited)",
            "digests",
            "digest_chunks",
            "digest_chunks",
            "digest_id",
            None,
            None,
            ("digest",),
            _DIGEST_COLUMNS,
            citable=False,
        ),
    )
}

# The citations the chair attached to her cases: searchable, never ingested into.
PRECEDENTS = Corpus(
    "case_precedents",
    "citations the chair attached to her cases",
    None,
    "case_precedents",
    "case_precedents",
    "id",
    None,
    None,
    (),
    ("case_number",),
)

SEARCHABLE: dict[str, Corpus] = {**CORPORA, PRECEDENTS.key: PRECEDENTS}


def get_corpus(key: str, *, searchable: bool = False) -> Corpus:
    """The registered corpus `key`, or a clear error listing the valid keys. Ingestion takes
    the five document corpora; search also takes `case_precedents`."""
    registry = SEARCHABLE if searchable else CORPORA
    try:
        return registry[key]
    except KeyError:
        raise InvalidInput(
            f"unknown corpus {key!r}; choose one of: {', '.join(registry)}",
            code="corpus.unknown",
            field="corpus",
        ) from None
