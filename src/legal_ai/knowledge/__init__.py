"""What the writer reads: approved knowledge only (DESIGN §2)."""
