"""Harvested skills generated from successful runs (see browser_agent.harvest)."""
