"""A deterministic shoe shop for driving the agent against: ``start_demo_site()``.

See :mod:`browser_agent.demo_site.pages` for the pages, :mod:`browser_agent.demo_site.variants`
for the redesign and swapped variants, and :mod:`browser_agent.demo_site.catalog` for the
products and the search rule.
"""

from browser_agent.demo_site.server import DemoSite, start_demo_site

__all__ = ["DemoSite", "start_demo_site"]
