"""Finding a Chromium executable and the launch flags that work on a headless server."""

from __future__ import annotations

import shutil
from pathlib import Path

from browser_agent.errors import NoBrowser

# Flags that let Chromium run as root in a container and keep it off the network
# except for the pages it is asked to load.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
]

SYSTEM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Chromium's headless-only build (Debian's ``chromium-headless-shell``, the one Playwright
#: itself runs headless): a page costs it about a fifth of the CPU the full browser's
#: headless mode spends, which is most of what a batch or a validation costs.
HEADLESS_SHELLS = ("chromium-headless-shell", "chrome-headless-shell")


def find_chromium(
    configured: str | None = None, bundled: str | None = None, *, headless: bool = False
) -> str | None:
    """Path of the Chromium to launch, or None to let Playwright use its own download.

    Order: an explicitly configured path, Playwright's own browser when it is on disk,
    then a system Chromium on PATH (for a ``headless`` launch its headless shell first).
    """
    if configured:
        if not Path(configured).exists():
            raise NoBrowser(
                f"The configured Chromium {configured!r} does not exist: set "
                "BROWSER_AGENT_CHROMIUM to a Chromium executable, or unset it to use "
                "Playwright's own or the system's."
            )
        return configured
    if bundled and Path(bundled).exists():
        return None
    for name in (*HEADLESS_SHELLS, *SYSTEM_CANDIDATES) if headless else SYSTEM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise NoBrowser(
        "No Chromium found. Run scripts/setup.sh (as root it installs Debian's 'chromium'), "
        "install one with your package manager, or set BROWSER_AGENT_CHROMIUM to its path."
    )
