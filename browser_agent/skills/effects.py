"""A step's recorded effect, awaited after the step: the page moving on (or showing the
step's work in place), new elements, the typed value in its field, the box ticked, the
option chosen. An effect that comes late is late (SkillLate); one that never comes, or
another one, is stale (SkillStale)."""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.browser.awaiting import deadline_s, left, new_elements, note_late, until
from browser_agent.browser.effects import ASKED_NOT_COME
from browser_agent.browser.held import editor_text, same_text
from browser_agent.browser.session import session
from browser_agent.browser.values import field_value
from browser_agent.failure_kinds import SkillLate
from browser_agent.secrets import filled
from browser_agent.skills.naming import same
from browser_agent.skills.run_state import skill_run
from browser_agent.skills.targets import SkillStale, Target

# What a page says without moving on: its visible notices (alerts, status lines, live
# regions, outputs) and which of ``values`` its text shows (outside the fields).
_PAGE_SAYS_JS = """values => {
  const shown = el => el.checkVisibility() && el.getBoundingClientRect().width > 0;
  const notices = [...document.querySelectorAll(
    '[role=alert], [role=status], [aria-live=polite], [aria-live=assertive], output')]
    .filter(shown).map(el => el.innerText.trim().slice(0, 200)).filter(Boolean);
  const text = document.body ? document.body.innerText : '';
  return [notices, values.filter(value => text.includes(value))];
}"""


async def page_says(page: Page) -> tuple[list[str], list[str]] | None:
    """The page's visible notices and the values typed by the skill its text shows; None
    when the page cannot say (it is being replaced)."""
    typed = [v for v in skill_run().typed if len(v.strip()) >= 3]
    try:
        notices, shown = await page.evaluate(_PAGE_SAYS_JS, typed)
    except PlaywrightError:
        return None
    return list(notices), list(shown)


async def _changed_in_place(page: Page, step: int) -> str:
    """How the page showed a step's work without moving on ("" when it did not, or when
    what it showed before the step is not known): a notice that was not there when the
    step began, or a value the skill typed now shown as text."""
    before = skill_run().says.get(step)
    now = await page_says(page)
    if before is None or now is None:
        return ""
    new = [n for n in now[0] if n not in before[0]]
    if new:
        return f"showed {new[0]!r}"
    values = [v for v in now[1] if v not in before[1]]
    return f"now shows {values[0]!r}" if values else ""


async def expect(
    target: Target | None,
    said: str,
    *,
    navigated_to: str | None = None,
    navigated: bool = False,
    appeared: bool = False,
    value: str | None = None,
    checked: bool | None = None,
    selected: str | None = None,
    added: bool = False,
) -> None:
    """Wait for a step's recorded effect on the page: a navigation (to the same path), new
    elements, the typed value in the field (at its end when ``added`` after what it
    held), the box ticked, the option chosen. Each is
    awaited up to a deadline that follows the site's pace (see browser.awaiting); a page
    on its way after the deadline is waited for once more, then the step is late
    (SkillLate); an effect that did not come, or another one, is stale (SkillStale)."""
    step = target.step if target else 0
    selector = target.selector if target else ""
    active = session()
    page = active.current_page()
    now = (page.url, time.monotonic())
    before, began = skill_run().began.get(step, now) if target is not None else now
    seconds = deadline_s(active.settings, time.monotonic() - began)
    moved = "navigated to" in said
    if (navigated or navigated_to is not None) and not moved:
        moved = await _await_leaving(step, selector, page, before, seconds, said)
        page = active.current_page()
    if target is not None and not moved and (value, checked, selected) != (None, None, None):
        await _expect_on_element(target, value, checked, selected, seconds, added)
    if value is not None and filled(value, active.secret_values) == value:
        typed = skill_run().typed
        typed[:] = [*typed[-19:], value]  # never a secret; the last few
    if navigated_to is not None or navigated:
        # the page moved on (or showed the step's work in place): where it went is the end
        # state's to judge, as one page may be reached by several addresses
        want = urlsplit(navigated_to or "").path
        if moved and want and urlsplit(page.url).path != want:
            skill_run().notes.append(f"Step {step} reached {page.url}, recorded as {want}.")
    elif (
        appeared
        and not moved
        and not re.search(r"new elements? appeared", said)
        and not await new_elements(page, seconds)
    ):
        raise SkillStale(
            f"Step {step}: expected new elements to appear within {seconds:.1f} s, but "
            f"the page said: {said}",
            step=step,
            selector=selector,
        )


async def _await_leaving(
    step: int, selector: str, page: Page, before: str, seconds: float, said: str
) -> bool:
    """Wait for the page to move on from ``before``; a second deadline when it was asked
    to and had not yet (late, then noted); SkillLate or SkillStale when it never did."""
    gone, asked = await left(page, before, seconds)
    asked = asked or ASKED_NOT_COME in said
    if not gone and asked:  # on its way: the step is retried in place, once
        gone, _ = await left(page, before, seconds)
        if gone:
            note_late(step)
            skill_run().notes.append(
                f"Step {step} was late: the page moved on after {seconds:.1f} s."
            )
    if gone:
        session().observed.clear()
        session().page_version += 1
        return True
    change = "" if asked else await _changed_in_place(page, step)
    if change:
        skill_run().notes.append(f"Step {step}: the page stayed on {page.url} and {change}.")
        return False
    if asked:
        raise SkillLate(
            f"Step {step}: expected the page to move on; a new page was asked for but had not "
            f"come after {2 * seconds:.1f} s, the browser is still on {page.url}.",
            step=step,
            selector=selector,
        )
    raise SkillStale(
        f"Step {step}: expected the page to move on, but it stayed on {page.url} for "
        f"{seconds:.1f} s.",
        step=step,
        selector=selector,
    )


async def _expect_on_element(
    target: Target,
    value: str | None,
    checked: bool | None,
    selected: str | None,
    seconds: float,
    added: bool = False,
) -> None:
    """The element the step acted on comes to hold what the step put there (at its end,
    when ``added``), within ``seconds``."""
    run = skill_run()
    frame, selector = run.found.get(target.step, (session().current_page(), target.selector))
    pinned = run.pinned.get(target.step)
    locator = pinned if pinned is not None else frame.locator(selector)
    try:
        if value is not None:
            await _expect_value(locator, target, selector, value, seconds, added)
        if checked is not None:
            await _expect_checked(locator, target, selector, checked, seconds)
        if selected is not None:
            await _expect_selected(locator, target, selector, selected, seconds)
    except PlaywrightError as exc:
        said = f"its element could not be checked after the step: {str(exc).splitlines()[0]}"
        raise _stale(target, selector, said) from exc


def _stale(target: Target, selector: str, said: str) -> SkillStale:
    """The staleness of ``target``'s step, found on its element at ``selector``: ``said``
    after the step's number (what should be and what is)."""
    return SkillStale(f"Step {target.step}: {said}", step=target.step, selector=selector)


async def _expect_value(
    locator: Any, target: Target, selector: str, value: str, seconds: float, added: bool
) -> None:
    """The field (or editor box) comes to hold ``value`` as its type keeps it (at its end,
    when ``added`` after what it held); a secret is never shown in the message."""
    kind = await locator.get_attribute("type") or "text"
    typed = filled(value, session().secret_values)  # the step typed the secret
    try:
        wanted = field_value(kind, typed)
    except ValueError:
        wanted = typed

    async def holds() -> tuple[bool, str]:
        editor = await editor_text(locator)  # an editor box holds text, not a value
        held = editor if editor is not None else await locator.input_value()
        kept = held == wanted or (editor is not None and same_text(editor, wanted))
        if added:  # what it held before stays in front of it
            kept = " ".join(held.split()).endswith(" ".join(wanted.split()))
        return kept, held

    ok, held = await until(holds, seconds)
    if not ok:
        secret = kind.lower() == "password" or typed != value
        shown = "the password typed" if secret else f"{wanted!r}; it holds {held!r}"
        raise _stale(
            target, selector, f"the field should now hold {shown} (waited {seconds:.1f} s)."
        )


async def _expect_checked(
    locator: Any, target: Target, selector: str, checked: bool, seconds: float
) -> None:
    """The box comes to be ticked (or clear) as the step left it."""

    async def ticked() -> tuple[bool, None]:
        return await locator.is_checked() == checked, None

    if not (await until(ticked, seconds))[0]:
        state = "ticked" if checked else "clear"
        said = f"the {target.role} should now be {state}, but it is not (waited {seconds:.1f} s)."
        raise _stale(target, selector, said)


async def _expect_selected(
    locator: Any, target: Target, selector: str, selected: str, seconds: float
) -> None:
    """The list comes to have ``selected`` chosen, by its value or its option's text."""

    async def chosen() -> tuple[bool, list[str]]:
        seen = await locator.evaluate(
            "el => [el.value, (el.selectedOptions[0] || {}).textContent || '']"
        )
        return any(_same_option(selected, str(option)) for option in seen), seen

    ok, seen = await until(chosen, seconds)
    if not ok:
        said = f"{selected!r} should now be chosen, but {seen[1].strip()!r} is"
        raise _stale(target, selector, f"{said} (waited {seconds:.1f} s).")


def _same_option(wanted: str, option: str) -> bool:
    """An option named as select_option takes it: as written, or by its letters and
    digits ("price low to high" for "Price: low to high")."""
    plain = ["".join(c for c in text.lower() if c.isalnum()) for text in (wanted, option)]
    return same(wanted, option) or (bool(plain[0]) and plain[0] == plain[1])
