"""Harvesting: from run logs to typed async skills (read, decide, generate, register)."""
