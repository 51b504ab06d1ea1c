"""Adapters to models: embedders now, chat models (LLM stages) later. Vendor SDKs are imported
lazily, so importing the CLI never loads them."""

from .embedders import CachedEmbedder, Embedder, make_embedder, text_hash

__all__ = ["CachedEmbedder", "Embedder", "make_embedder", "text_hash"]
