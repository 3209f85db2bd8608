"""Browser layer: launching or connecting Chromium (chromium, session), the per-task
session, locating elements (locate) and the errors actions raise (errors).

Nothing is imported here, so a module that needs only the launch flags or the errors does
not load Playwright."""
