"""The learning loop (DESIGN §7): drafts and finals, alignment and held-out style distance,
citations, lessons and their gate, methodology, chair feedback."""
