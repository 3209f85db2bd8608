"""The product's names: its release, its command and folder name, its settings' prefix."""

from __future__ import annotations

__version__ = "0.1.0"  # as pyproject.toml's version (tests/test_layout.py checks it)

APP_NAME = "browser-agent"  # the command, and the name of its data and cache folders
ENV_PREFIX = "BROWSER_AGENT_"  # of every setting's environment variable
