"""``python -m browser_agent``: the same command line as ``browser-agent``."""

from browser_agent.cli import entry

entry()
