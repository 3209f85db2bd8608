"""Browser layer: launching or connecting Chromium (chromium, session), the per-task
session and locating elements (locate); the errors actions raise are in
:mod:`browser_agent.errors`.

Nothing is imported here, so a module that needs only the launch flags does not load
Playwright."""
