"""What generated skills call around each primitive: find the recorded element, check the
recorded effect. A selector that now finds nothing, several elements, or another control
is stale: the skill stops with SkillStale instead of clicking the wrong thing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.errors import ActionError
from browser_agent.browser.session import session
from browser_agent.dom.library import run_on_element


class SkillStale(ActionError):
    """A harvested step no longer fits the page; ``step`` and ``selector`` say where."""

    def __init__(self, message: str, *, step: int, selector: str) -> None:
        super().__init__(message, kind="stale", selector=selector)
        self.step = step


@dataclass
class Target:
    """An element a skill acts on, as recorded when the skill was harvested."""

    step: int
    selector: str
    role: str
    name: str
    tag: str = ""
    text: str = ""
    attributes: dict[str, str] = field(default_factory=dict)
    xpath: str = ""
    intent: str = ""


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def by_role(role: str, name: str) -> str:
    """A Playwright selector for the element with this role and exact accessible name."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'role={role}[name="{escaped}"s]'


async def find(target: Target, name: str | None = None) -> str:
    """The selector to act on: it must match exactly one visible element whose role and
    name are still the recorded ones (``name`` overrides the recorded name)."""
    expected = target.name if name is None else name
    selector = target.selector if name is None else by_role(target.role, expected)
    active = session()
    locator = active.current_page().locator(selector)
    timeout = active.settings.action_timeout_ms
    try:
        await locator.first.wait_for(state="visible", timeout=timeout)
        count = await locator.count()
    except PlaywrightError as exc:
        raise SkillStale(
            f"Step {target.step}: no visible element matches {selector} "
            f"(waited {timeout / 1000:g} s).",
            step=target.step,
            selector=selector,
        ) from exc
    if count != 1:
        raise SkillStale(
            f"Step {target.step}: {count} elements match {selector}; it must be exactly one.",
            step=target.step,
            selector=selector,
        )
    _tag, role, found_name, _secret = await run_on_element(locator, "identity")
    if role != target.role or (expected and not _same(found_name, expected)):
        raise SkillStale(
            f"Step {target.step}: {selector} now names a {role or 'element'} {found_name!r}, "
            f"not the {target.role} {expected!r} it was recorded on.",
            step=target.step,
            selector=selector,
        )
    return selector


async def expect(
    target: Target | None, said: str, *, navigated_to: str | None = None, appeared: bool = False
) -> None:
    """Check that a step had its recorded effect: a navigation to the same path, or new
    elements on the page."""
    step = target.step if target else 0
    selector = target.selector if target else ""
    page = session().current_page()
    if navigated_to is not None:
        want = urlsplit(navigated_to).path
        have = urlsplit(page.url).path
        if have != want:
            raise SkillStale(
                f"Step {step}: expected to reach {want}, but the page is {page.url}.",
                step=step,
                selector=selector,
            )
    elif appeared and not re.search(r"new elements? appeared", said):
        raise SkillStale(
            f"Step {step}: expected new elements to appear, but the page said: {said}",
            step=step,
            selector=selector,
        )


async def done(template: str, **values: str) -> str:
    """The skill's answer: what it did (the template filled in) and where the browser is."""
    said = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)
    said = said.replace("{{", "{").replace("}}", "}")
    page = session().current_page()
    return f"{said} Final page: {page.url} (title {await page.title()!r})."
