"""A browser-automation agent that learns reusable skills from its own runs."""

__version__ = "0.1.0"

APP_NAME = "browser-agent"  # the command, and the name of its data and cache folders
ENV_PREFIX = "BROWSER_AGENT_"  # of every setting's environment variable
