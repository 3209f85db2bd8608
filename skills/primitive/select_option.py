"""select_option: choose an entry of a drop-down."""

from __future__ import annotations

from typing import Annotated

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.dom.library import run_on_element
from browser_agent.errors import ActionError
from browser_agent.skills.primitive._common import Selector, attempt


async def select_option(
    selector: Selector,
    option: Annotated[str, "The option to choose: its value or its visible label."],
) -> str:
    """Choose an option of a <select> by value or label and report what changed."""
    active = session()
    target = await locate(active, selector)
    choices = await attempt(
        run_on_element(target.locator, "options"), f"read the options of {target.tag}", selector
    )
    wanted = option.strip()
    match = next((v for v, label in choices if wanted in (v, label)), None)
    if match is None:  # "price low to high" for "Price: low to high"
        key = _plain(wanted)
        match = next((v for v, label in choices if key in (_plain(v), _plain(label))), None)
    if match is None:
        listed = ", ".join(f"{v!r} ({label})" for v, label in choices[:20]) or "none"
        raise ActionError(
            f"{target.tag} has no option {option!r}. Its options: {listed}.",
            kind="invalid",
            selector=selector,
        )
    async with watching(active) as changes:
        try:
            await target.locator.select_option(value=match)
        except PlaywrightError as exc:
            raise ActionError(
                f"Could not select {option!r} in {target.tag}: {str(exc).splitlines()[0]}",
                kind="failed",
                selector=selector,
            ) from exc
    label = dict(choices)[match]
    return f"Selected option {match!r} ({label}) in {target.tag}. {changes.summary()}".strip()


def _plain(text: str) -> str:
    """Only the letters and digits of ``text``, lower-cased."""
    return "".join(c for c in text.lower() if c.isalnum())
