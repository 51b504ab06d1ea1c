"""`python -m legal_ai.cli` runs the `legal-ai` command."""

from . import main

main()
