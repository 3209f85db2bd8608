"""Skills the agent can call and the runtime that runs them.

The primitives (hand-written) and the harvested skills (generated) sit at the top of the
repository, in ``skills/primitive/`` and ``skills/harvested/``, and install here as
``browser_agent.skills.primitive`` and ``browser_agent.skills.harvested`` (pyproject.toml's
``package-dir``), so no top-level ``skills`` module is installed.
"""
