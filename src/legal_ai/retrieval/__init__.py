"""Retrieval: the corpus registry, the semantic and lexical legs, RRF fusion and the search tools."""

from ..corpora import CORPORA, Corpus, get_corpus

__all__ = ["CORPORA", "Corpus", "get_corpus"]
