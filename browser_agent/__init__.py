"""A browser-automation agent that learns reusable skills from its own runs."""

__version__ = "0.1.0"
