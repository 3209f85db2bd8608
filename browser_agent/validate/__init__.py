"""Validation: replaying harvested skills, marking stale ones, writing their next versions."""
