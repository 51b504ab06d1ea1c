"""One declared list of settings, read from `LEGAL_AI_*` environment variables (and a few
unprefixed names that DESIGN.md §8 fixes, such as `RRF_K`).

Build it once (`Settings()`) and pass it in; deep modules never read the environment.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("legal-ai", appauthor=False))


class Settings(BaseSettings):
    """Every setting of legal-ai, typed, defaulted and described (docs/configuration.md)."""

    model_config = SettingsConfigDict(env_prefix="LEGAL_AI_", extra="ignore")

    home: Path = Field(
        default_factory=_default_home,
        description="Data directory: the embedded PostgreSQL cluster lives in HOME/pgdata.",
    )
    database_url: str | None = Field(
        default=None,
        description="Connection URL of an external PostgreSQL (>= 15, pgvector >= 0.8). "
        "When unset, the embedded server under HOME is started and used.",
    )
    embedder: str = Field(
        default="e5-local",
        description="Embedder id: `e5-local` (offline, 384-d) or `voyage` (1024-d, needs "
        "VOYAGE_API_KEY).",
    )
    voyage_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VOYAGE_API_KEY", "LEGAL_AI_VOYAGE_API_KEY"),
        description="API key for Voyage embeddings.",
    )
    voyage_model: str = Field(default="voyage-3", description="Voyage model name (1024-d).")
    voyage_base_url: str | None = Field(
        default=None, description="Override of the Voyage API address (a proxy or a test server)."
    )
    multimodal_enabled: bool = Field(
        default=False,
        validation_alias=AliasChoices("MULTIMODAL_ENABLED", "LEGAL_AI_MULTIMODAL_ENABLED"),
        description="The image leg: embed PDF page images (Voyage multimodal) and search them.",
    )
    voyage_multimodal_model: str = Field(
        default="voyage-multimodal-3", description="Voyage multimodal model (1024-d)."
    )
    image_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="RRF weight of the image leg (the only weighted channel).",
    )
    chunk_tokens: int = Field(
        default=150,
        ge=64,
        le=480,
        description="Target chunk size in embedder tokens (150 beat 300 and 100 on the dev sets: "
        "docs/evaluation.md).",
    )
    chunk_overlap_tokens: int = Field(
        default=20, ge=0, le=200, description="Overlap carried from one chunk into the next."
    )
    max_file_mb: int = Field(
        default=50,
        ge=1,
        description="Files larger than this are rejected before they are read (bounded memory).",
    )
    pool_max_size: int = Field(default=4, ge=1, description="Connection pool size.")
    rrf_k: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices("RRF_K", "LEGAL_AI_RRF_K"),
        description="k of Reciprocal Rank Fusion (Cormack et al. 2009). 3 beat DESIGN's 60 and "
        "20 on all three dev sets and tied 5 (docs/evaluation.md).",
    )
    leg_window: int = Field(
        default=50, ge=1, le=1000, description="Hits each retrieval leg contributes to fusion."
    )
    bm25_hybrid_enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices("BM25_HYBRID_ENABLED", "LEGAL_AI_BM25_HYBRID_ENABLED"),
        description="When false, hybrid search falls back to the semantic leg alone.",
    )
    analyzer: str = Field(
        default="he-fold-prefix4-hspell-v1",
        description="Hebrew analyzer for the lexical index and queries (see docs/evaluation.md); "
        "changing it needs `legal-ai reindex` (no re-embedding). The default uses hspell's "
        "lemmas and falls back to he-fold-prefix4-v1 (with a warning) without hspell.",
    )
    lexical_synonyms: bool = Field(
        default=True,
        description="Lexical leg: add the statute's wording for colloquial phrases in the query "
        "(מס השבחה -> היטל השבחה, ...).",
    )
    lexical_candidate_budget: int = Field(
        default=2000,
        ge=1,
        description="Lexical leg: query terms are kept rarest first while their summed document "
        "frequency stays within this many units (bounds the rows BM25 scores).",
    )
    max_per_case_law: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices("MAX_PER_CASE_LAW", "LEGAL_AI_MAX_PER_CASE_LAW"),
        description="Diversity cap: at most this many hits per ruling or document.",
    )
    hnsw_max_scan_tuples: int = Field(
        default=20000,
        ge=1000,
        description="Bound on pgvector's iterative HNSW scan for filtered searches.",
    )
    committee_chair: str = Field(
        default='עו"ד רותם לוי',
        description="Default chair name for internal committee decisions without one.",
    )
    api_token: str | None = Field(
        default=None,
        description="Token the HTTP API (`legal-ai serve`) requires on every /api request "
        "(header `Authorization: Bearer <token>`); the server refuses to start without one.",
    )

    @field_validator("analyzer")
    @classmethod
    def _known_analyzer(cls, value: str) -> str:
        from .text.hebrew import get_analyzer

        get_analyzer(value)
        return value

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"
