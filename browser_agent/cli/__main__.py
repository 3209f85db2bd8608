"""``python -m browser_agent.cli``: the same command line as ``browser-agent``."""

from browser_agent.cli.app import entry

entry()
