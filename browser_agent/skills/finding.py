"""Finding the element a generated step acts on: the recorded selector must match exactly
one visible element whose role and name are still the recorded ones (or the name the
command gives, or the element at the place it asks for). A selector that now finds
nothing, several elements, or another control is stale: the skill stops with SkillStale
instead of clicking the wrong thing, unless it is healed inside ``repairing()``."""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from browser_agent.browser.locate import Located, frame_for, vouch
from browser_agent.browser.session import session
from browser_agent.browser.tracing import step_group
from browser_agent.dom.library import count_and_run
from browser_agent.failure_kinds import SkillLate
from browser_agent.skills.choosing import choose, is_shown, on_a_later_page, wait_visible
from browser_agent.skills.effects import page_says
from browser_agent.skills.healing import (
    ask_helper,
    heal,
    heal_stages,
    placed_submit,
    relabelled,
    same_address,
    same_text,
)
from browser_agent.skills.naming import (
    by_marks,
    by_name,
    holds,
    marked,
    named,
    named_by_value,
    role_and_name,
    same_words,
    within_name,
)
from browser_agent.skills.run_state import repair_scope, skill_run
from browser_agent.skills.selectors import ANY_ROLE
from browser_agent.skills.step_values import ordinal_value
from browser_agent.skills.targets import SkillNotApplicable, SkillStale, StepHeld, Target


async def find(
    target: Target, name: str | None = None, nth: str | None = None, within: bool = False
) -> str:
    """The selector to act on: it must match exactly one visible element whose role and
    name are still the recorded ones (``name`` overrides the recorded name; ``within``:
    the element's name holds ``name`` among words of its item's own, its number or
    status; ``nth``, an ordinal such as "3rd", picks the element by its place among
    those of its role). Several elements holding a name ``within`` are never chosen
    among: which one is meant is a guess.

    Inside ``repairing()`` a selector that no longer fits is healed (or the step helper is
    asked); waiting then ends as soon as the element shows up by any healing stage, so a
    changed page costs no full timeout per step. A name that several visible elements
    share is decided by what was recorded (see ``choose``).
    """
    active = session()
    top = active.current_page()
    run = skill_run()
    run.began[target.step] = (top.url, time.monotonic())
    run.says[target.step] = await page_says(top)
    if nth is not None:
        return _unless_held(target, await _find_nth(top, target, nth))
    expected = target.name if name is None else name
    doing = target.intent if name is None else f"the {target.role or 'element'} {name!r}"
    await step_group(active.context, f"Step {target.step}: {doing or expected}")
    selector = target.selector if name is None else by_name(target, expected)
    if name is not None and named(target, expected) and marked(target.name):
        selector = by_marks(target.role, expected)  # "count ▼" was recorded: marks or none
    if within and name is not None and named(target, expected):
        selector = within_name(target.role, expected)
    page = await frame_for(top, selector)  # the iframe that holds it, if one does
    repairs = repair_scope().repairs
    healing = repairs is not None and name is None
    waited = 0.0
    look = await _look(page, selector)  # the element is usually there, shown and alone
    if look is None or look[0] != 1 or not look[1][-1]:
        look = None  # else: not yet there, several, hidden or not to be found this way
        if not await is_shown(page, selector):  # only then wait, for it or any healing stage
            selector, waited = await _await_any(page, target, selector, name, healing)
        if (name is not None or selector.startswith("role=")) and not within:
            selector = await choose(page, target, selector, expected)  # several of one name
    loose = name is not None
    problem = await _mismatch(page, target, selector, expected, waited, loose, look, within)
    reworded = await _reworded(page, target, expected) if problem and loose and not within else None
    if reworded is not None:  # the value asked for, among the site's words in another language
        selector, now = reworded
        run.notes.append(
            f"Step {target.step}: the {target.role} {expected!r} is named {now!r} here (the "
            "same value; the site's words around it changed)."
        )
        problem = await _mismatch(page, target, selector, now, waited, loose)
    if problem and loose and not within and problem.startswith("no visible element"):
        turned = await on_a_later_page(top, target, selector, expected)
        if turned is not None:  # the thing named is listed further on in the results
            page = turned
            selector = await choose(page, target, selector, expected)
            problem = await _mismatch(page, target, selector, expected, 0.0, loose)
    if problem is None:
        run.found[target.step] = (page, selector)
        if name is not None:
            run.named[target.step] = (top.url, selector)
        await _pin_editor(page, target, selector)
        return _unless_held(target, selector)
    stale = await _unfit(top, target, selector, problem, name)
    if repairs is None:
        raise stale
    repair = await heal(page, target, stale) if healing else None
    if repair is None and repairs.helper is not None and not repair_scope().end_address:
        repair = await ask_helper(repairs.helper, top, target, stale)
    if repair is None or (repairs.renamed_only and not repair.renamed):
        raise stale
    repairs.done.append(repair)
    found = repair.found
    renamed = role_and_name(found) if repair.renamed else None
    if renamed:  # several may bear the new name: chosen among as the next version will
        found = await choose(page, target, found, renamed[1])
    run.found[target.step] = (page, found)
    return _unless_held(target, found)


def _unless_held(target: Target, selector: str) -> str:
    """``selector``, unless its step is one the running skill only finds (StepHeld)."""
    held_from = repair_scope().held_from
    if held_from and target.step >= held_from:
        raise StepHeld(target.step, selector)
    return selector


async def _reworded(page: Page | Frame, target: Target, asked: str) -> tuple[str, str] | None:
    """(selector, name) of the one visible element of the target's role whose name holds the
    part of ``asked`` that differs from the recorded example's name, with as many words as
    ``asked`` has: the site's words around a value the command gave, in another language
    ("Meilenstein Sprint 22" for "Milestone Sprint 22", recorded "Milestone Sprint 31").
    None when no such element is alone, or the names have no words in common to change."""
    recorded, wanted = target.name.split(), asked.split()
    if not named(target, asked) or len(recorded) != len(wanted) or len(wanted) < 2:
        return None
    same = [a.casefold() == b.casefold() for a, b in zip(recorded, wanted, strict=True)]
    head = same.index(False) if False in same else len(same)
    tail = same[::-1].index(False) if False in same else 0
    spans = sorted(
        ((k, len(wanted) - j) for k in range(head + 1) for j in range(tail + 1) if k or j),
        key=lambda span: span[0] - span[1],
    )
    for start, end in spans:
        if end - start < 1:
            continue
        selector = within_name(target.role, " ".join(wanted[start:end]))
        try:
            found = [
                (index, " ".join((await element.inner_text()).split()))
                for index, element in enumerate(await page.locator(selector).all())
                if await element.is_visible()
            ]
        except PlaywrightError:
            continue
        fitting = [(i, n) for i, n in found if len(n.split()) == len(wanted)]
        if len(fitting) == 1:  # several are a guess (and so are they for a shorter part)
            return f"{selector} >> nth={fitting[0][0]}", fitting[0][1]
    return None


async def _await_any(
    page: Page | Frame, target: Target, selector: str, name: str | None, healing: bool
) -> tuple[str, float]:
    """Wait for ``selector`` or any other way to the element to show it: a healing stage
    (when healing), the name asked for with marks, the link to the same address, the
    button that sends the form. The selector to go on with, and the seconds waited."""
    expected = target.name if name is None else name
    stages = [s for _how, s in heal_stages(target)] if healing else []
    repairs = repair_scope().repairs
    if healing and repairs is not None:  # what earlier runs healed it to: no full wait
        known = repairs.known.get(str(target.step), {})
        stages += [known[target.selector]] if target.selector in known else []
    asked = name is not None and named(target, expected)
    marks = by_marks(target.role, expected) if asked else None
    texted = same_text(target) if name is None else None
    address = same_address(target) if name is None else None
    placed = await placed_submit(page, target) if name is None else None
    extra = [s for s in (marks, texted, address, placed) if s]
    timeout = session().settings.action_timeout_ms
    await wait_visible(page, [selector, *stages, *extra], timeout)
    if marks and not await is_shown(page, selector) and await is_shown(page, marks):
        selector = marks  # the name asked for, with marks added ("count ▼")
    elif texted and not await is_shown(page, selector) and await _alone(page, texted):
        selector = texted  # the text shown, where an icon's alt is part of the name
    elif address and not await is_shown(page, selector) and await is_shown(page, address):
        selector = await _one_address(page, target, address)  # relabelled or not
    elif placed and not await is_shown(page, selector) and await is_shown(page, placed):
        selector = placed  # the button that sends the form the skill filled
    return selector, timeout / 1000


async def _one_address(page: Page | Frame, target: Target, address: str) -> str:
    """Of the visible links to the recorded address (a menu's, an icon's and a tab's), the
    one whose text holds the recorded name, else the first: they all lead to one page."""
    try:
        if await page.locator(address).count() < 2:
            return address
        showing = same_address(target, showing=target.name) if target.name else None
        if showing and await page.locator(showing).count() == 1:
            return showing
    except PlaywrightError:
        return address
    skill_run().notes.append(
        f"Step {target.step}: several links go to {target.attributes['href']!r}, none alone "
        f"named {target.name!r}; the first was taken (they lead to the same page)."
    )
    return f"{address} >> nth=0"


async def _unfit(
    top: Page, target: Target, selector: str, problem: str, name: str | None
) -> SkillStale:
    """The stale step for ``problem``, to heal or raise; SkillNotApplicable when the
    command named an element the page does not have, SkillLate when the page was still
    loading."""
    if name is not None and problem.startswith("no visible element"):
        raise SkillNotApplicable(
            f"Step {target.step}: there is no {target.role} named {name!r} on {top.url}, so "
            "this skill does not apply to the command as given.",
            step=target.step,
            selector=selector,
        )
    if problem.startswith("no visible element") and await _still_loading(top):
        raise SkillLate(
            f"Step {target.step}: {problem} The page was still loading.",
            step=target.step,
            selector=selector,
        )
    return SkillStale(f"Step {target.step}: {problem}", step=target.step, selector=selector)


async def _pin_editor(page: Page | Frame, target: Target, selector: str) -> None:
    """Hold on to the editor box (contenteditable) a step found, for its check."""
    pinned = skill_run().pinned
    pinned.pop(target.step, None)
    editable = target.attributes.get("contenteditable")
    if editable is None or editable.lower() not in ("", "true", "plaintext-only"):
        return
    with suppress(PlaywrightError):
        pinned[target.step] = await page.locator(selector).element_handle(timeout=1000)


async def _still_loading(page: Page) -> bool:
    """Whether the page has not finished loading: an element missing then is late."""
    try:
        return await page.evaluate("document.readyState") != "complete"
    except PlaywrightError:
        return True  # it is being replaced by the next page


async def _find_nth(top: Page, target: Target, nth: str) -> str:
    """The visible element at place ``nth`` among those of the target's role."""
    position = ordinal_value(nth)
    base = f"role={target.role}" if target.role and target.role != ANY_ROLE else target.tag
    if position is None or not base:
        raise SkillNotApplicable(
            f"Step {target.step}: {nth!r} is not a position such as 1st or third.",
            step=target.step,
        )
    page = await frame_for(top, base)
    shown = page.locator(base).filter(visible=True)
    with suppress(PlaywrightError):
        await shown.first.wait_for(timeout=session().settings.action_timeout_ms)
    count = await shown.count()
    if count < position:
        raise SkillNotApplicable(
            f"Step {target.step}: the page shows {count} {target.role or target.tag} "
            f"element(s), so there is no {nth}.",
            step=target.step,
            selector=base,
        )
    selector = f"{base} >> visible=true >> nth={position - 1}"
    skill_run().found[target.step] = (page, selector)
    return selector


async def _alone(page: Page | Frame, selector: str) -> bool:
    """Whether ``selector`` matches exactly one element now (no waiting)."""
    try:
        return await page.locator(selector).count() == 1
    except PlaywrightError:
        return False


async def _look(page: Page | Frame, selector: str) -> tuple[int, Any] | None:
    """How many elements ``selector`` matches and the library's inspection of the one it
    matches (None for no or several), in one round trip; None when the page cannot use it."""
    try:
        return await count_and_run(page.locator(selector), "inspect")
    except PlaywrightError:
        return None


async def _mismatch(
    page: Page | Frame,
    target: Target,
    selector: str,
    expected: str,
    waited: float,
    loose: bool = False,
    look: tuple[int, Any] | None = None,
    within: bool = False,
) -> str | None:
    """Why ``selector`` does not name the recorded element now, or None when it does
    (``loose``: names compared case aside, as a command says them; ``look``: the one just
    taken, else one is taken). When it does, the element is vouched for, so the step's
    primitive acts on it without locating it again."""
    locator = page.locator(selector)
    try:
        count, seen = look or await count_and_run(locator, "inspect")
    except PlaywrightError as exc:
        return f"{selector} cannot be used on this page: {str(exc).splitlines()[0]}"
    if count > 1:
        return f"{count} elements match {selector}; it must be exactly one."
    if seen is None or not seen[-1]:  # the last: visible as Playwright's visible=true has it
        return f"no visible element matches {selector} (waited {waited:.1f} s)."
    _tag, role, found_name, is_password, opening, usable, point, _shown = seen
    if target.role != ANY_ROLE:  # else a selector the model wrote: one visible element
        if loose and by_name(target, expected).startswith("role=button[name=/"):
            expected = found_name  # an "x" that named the close button
        if loose and named_by_value(target) and not found_name:
            expected = found_name  # the selector matched its value, the name it goes by
        renamed = bool(expected) and not same_words(found_name, expected)
        if within:
            renamed = not holds(found_name, expected)
        if renamed and role == target.role and not loose:
            kept = await relabelled(page, locator, target)
            if kept:
                renamed = False
                skill_run().notes.append(
                    f"Step {target.step}: the {role} {expected!r} is now labelled "
                    f"{found_name!r} (the same {kept})."
                )
        if role != target.role or renamed:
            return (
                f"{selector} now names a {role or 'element'} {found_name!r}, "
                f"not the {target.role} {expected!r} it was recorded on."
            )
    if usable:  # else the primitive's own look says why it cannot be used
        vouch(session(), selector, Located(locator, opening, is_password, point, role, found_name))
    return None
