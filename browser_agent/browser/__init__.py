"""Browser layer: launching or connecting Chromium (chromium, session), the per-task
session, locating elements (locate) and observing the page through it (observe, find: the
engines of get_dom and find_elements); the errors actions raise are in
:mod:`browser_agent.errors`.

Nothing is imported here, so a module that needs only the launch flags does not load
Playwright."""
