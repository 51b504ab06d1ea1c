"""Text layer: Hebrew normalization and analysis, extraction, Akoma Ntoso, chunking."""
