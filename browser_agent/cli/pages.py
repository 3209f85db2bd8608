"""Commands about pages: the bundled demo shop served, and a page's distilled DOM as the
planner sees it."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

import typer

from browser_agent.cli.browser_options import AllowDomainOption
from browser_agent.errors import BrowserError, one_line
from browser_agent.sites.policy import openable


def demo_site(
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0 picks a free one).")
    ] = 8811,
    variant: Annotated[
        str, typer.Option(help="'normal', or 'redesign' to rename ids and move elements.")
    ] = "normal",
    latency_ms: Annotated[
        int, typer.Option(min=0, help="Hold every response back this long, as a far site would.")
    ] = 0,
) -> None:
    """Serve the bundled demo shoe shop until stopped (Ctrl-C)."""
    from browser_agent.demo_site import start_demo_site

    site = start_demo_site(port=port, variant=variant, latency_ms=latency_ms)
    try:  # printed inside: a Ctrl-C right after the address is read still stops cleanly
        typer.echo(f"Demo shop ({site.variant}) at {site.url} - press Ctrl-C to stop.")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        typer.echo("Stopped.")
    finally:
        site.stop()


def dom(
    url: Annotated[str, typer.Argument(help="The page to look at.")],
    content_type: Annotated[
        str, typer.Option("--content-type", "-t", help="text_only, input_fields or all_fields.")
    ] = "all_fields",
    allow_domain: AllowDomainOption = None,
) -> None:
    """Print the distilled DOM of a page, as the planner sees it."""
    from browser_agent.browser.observe import observe_page
    from browser_agent.browser.session import browser_session
    from browser_agent.settings import load_settings
    from browser_agent.skills.primitive.open_url import open_url

    settings = load_settings().with_overrides(allowed_domains=allow_domain or None)
    target = openable(url, settings)

    async def show() -> str:
        async with browser_session(settings) as active:
            await open_url(target)
            return (await observe_page(active, content_type)).text

    try:
        typer.echo(asyncio.run(show()))
    except (BrowserError, ValueError) as exc:
        typer.secho(f"Error: {one_line(exc)}", fg="red", err=True)
        raise typer.Exit(2) from exc
    except Exception as exc:  # an ActionError from open_url or the page read, for people
        typer.secho(f"Error: {one_line(exc)}", fg="red", err=True)
        raise typer.Exit(1) from exc
