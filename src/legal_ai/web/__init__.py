"""The HTTP API (FastAPI): the chair's uploads, review and feedback (DESIGN §2)."""
