"""legal-ai: research and drafting aid for an Israeli planning-and-building appeals committee.

Layers (one direction of dependency, see docs/architecture.md):
interfaces (cli, mcp) -> services (ingest, retrieval) -> adapters (store, providers) -> text.
"""

__version__ = "0.1.0"
