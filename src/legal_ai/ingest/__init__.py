"""Ingestion: sources (files, JSONL, Akoma Ntoso) -> chunks -> embeddings -> one transaction."""

from .pipeline import Ingestor, IngestReport
from .sources import IngestItem

__all__ = ["IngestItem", "IngestReport", "Ingestor"]
