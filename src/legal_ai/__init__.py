"""legal-ai: research and drafting aid for an Israeli planning-and-building appeals committee.

Layers (one direction of dependency, see docs/architecture.md):
interfaces (cli, mcp) -> services (ingest, retrieval) -> adapters (store, providers) -> text.
"""

# The release: bumped for each one, with its entry in CHANGELOG.md (tests/test_versions.py);
# the wheel's version (pyproject.toml reads it) and `legal-ai --version` print it.
__version__ = "0.2.0"
