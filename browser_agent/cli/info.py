"""``info``: the workspace, store, browser and model in use, for a bug report, with every
secret masked."""

from __future__ import annotations

import platform
from typing import TYPE_CHECKING, Annotated

import typer

from browser_agent.browser.chromium import find_chromium
from browser_agent.cli.json_output import print_json
from browser_agent.errors import BrowserError
from browser_agent.llm.choose import OFFLINE_MODEL, is_offline

if TYPE_CHECKING:
    from browser_agent.settings import Settings


def info(
    as_json: Annotated[bool, typer.Option("--json", help="Print the values as JSON.")] = False,
) -> None:
    """Print the workspace, store, browser and model in use, for a bug report.

    Passwords and keys are never printed: a store or endpoint URL shows its password
    as ***, and the API key only as set or not set.
    """
    from browser_agent.settings import load_settings

    facts = environment_info(load_settings())
    if as_json:
        print_json(facts)
        return
    width = max(len(key) for key in facts)
    for key, value in facts.items():
        typer.echo(f"{key:<{width}}  {value}")


def environment_info(settings: Settings) -> dict[str, str]:
    """What this installation uses, with every secret masked."""
    from browser_agent.settings import config_path, mask_url

    offline = is_offline(settings)
    endpoint = settings.llm_base_url or "https://api.openai.com/v1 (OpenAI's default)"
    config = config_path()
    return {
        "browser-agent": package_version("browser-agent"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "playwright": package_version("playwright"),
        "config": str(config) if config.is_file() else f"none ({config} is not there)",
        "workspace": str(settings.workspace),
        "store": mask_url(settings.db_url),
        "browser": _browser_in_use(settings),
        "model": OFFLINE_MODEL if offline else settings.llm_model,
        "llm_endpoint": "none" if offline else mask_url(endpoint),
        "llm_api_key": "set" if settings.llm_api_key else "not set",
    }


def package_version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _browser_in_use(settings: Settings) -> str:
    """The remote endpoint, or the Chromium executable a run would launch, and how."""
    from browser_agent.settings import mask_url

    if settings.browser_endpoint:
        return f"remote: {mask_url(settings.browser_endpoint)}"
    bundled = None if settings.chromium_path else _playwright_chromium()
    try:
        found = find_chromium(settings.chromium_path, bundled, headless=settings.headless)
        found = found or bundled
    except BrowserError as exc:
        return f"none found: {exc}"
    return f"{found} ({'headed' if settings.headed else 'headless'})"


def _playwright_chromium() -> str | None:
    """Where Playwright keeps its own Chromium (it may not be downloaded)."""
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            return playwright.chromium.executable_path
    except Exception:  # a broken Playwright install: fall back to a system Chromium
        return None
