"""Healing a stale step at the smallest scope: the recorded element is looked for again
from what was recorded about it (role and name, visible text, static attributes, XPath, its
place in a form an earlier step filled) and accepted only when exactly one visible element
has the recorded role and name, or its identity shows it relabelled; else the step helper
(the planner) may name the element for that one step."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from browser_agent.dom.library import run_on_element
from browser_agent.skills.identity import best_match
from browser_agent.skills.naming import by_marks, by_role, named, same_words
from browser_agent.skills.run_state import Repair, skill_run
from browser_agent.skills.targets import SkillStale, StepHelper, Target

# Static attributes that may still name the element after its id changed, in the order
# they are tried; the first stages are role + name and visible text, the last the XPath.
HEAL_ATTRIBUTES = ("name", "placeholder", "aria-label", "data-testid", "title", "alt", "id")


# What an element is, apart from its words: these recorded attributes must all be the
# same (those recorded), and one of IDENTIFYING must be among them.
IDENTITY_ATTRIBUTES = ("id", "name", "type", "data-testid", "role")
IDENTIFYING = ("id", "name", "data-testid")
_IDENTITY_JS = """el => {
  const href = el.getAttribute('href');
  return {tag: el.tagName.toLowerCase(), id: el.getAttribute('id'),
          name: el.getAttribute('name'), type: el.getAttribute('type'),
          'data-testid': el.getAttribute('data-testid'), role: el.getAttribute('role'),
          href: href === null ? null : new URL(href, document.baseURI).href};
}"""


async def relabelled(page: Page | Frame, locator: Any, target: Target) -> str:
    """What shows that the element ``locator`` names, with the recorded role but another
    accessible name, is still the recorded control relabelled (another interface language,
    another theme's wording): its tag and every recorded identifying attribute (id, name,
    type, test id; a link's path) are the same, and no visible element still bears the
    recorded role and name (else that one is the control, and this another). "" when not."""
    try:
        seen = await locator.evaluate(_IDENTITY_JS)
        if (
            target.name
            and await page.get_by_role(target.role, name=target.name, exact=True)
            .filter(visible=True)
            .count()
        ):  # type: ignore[arg-type]
            return ""
    except PlaywrightError:
        return ""
    if target.tag and seen["tag"] != target.tag:
        return ""
    recorded = target.attributes
    if any(recorded.get(a) and recorded[a] != (seen.get(a) or "") for a in IDENTITY_ATTRIBUTES):
        return ""
    href = recorded.get("href")
    if href and urlsplit(href).path and not goes_to(seen.get("href") or "", href, page.url):
        return ""
    same = [a for a in IDENTIFYING if recorded.get(a)]
    if same:
        return f"{' and '.join(same)} {'attribute' if len(same) == 1 else 'attributes'}"
    # a link with nothing else to tell it by is the one that goes to the same address
    if href and target.role == "link":
        return f"address {urlsplit(href).path}"
    # a submit button with nothing else to tell it by is the one that sends the form
    placed = await placed_submit(page, target)
    if placed and await _same_element(page, locator, placed):
        return "place: the one button that submits the form the skill filled"
    return ""


def goes_to(seen: str, recorded: str, base: str) -> bool:
    """Whether the address ``seen`` is the recorded link's, read from ``base``: the same
    path, and every part of the recorded query (``?route=/server/databases``) in its own."""
    now, then = urlsplit(seen), urlsplit(urljoin(base, recorded))
    asked = set(parse_qsl(now.query, keep_blank_values=True))
    return now.path == then.path and set(parse_qsl(then.query, keep_blank_values=True)) <= asked


async def _same_element(page: Page | Frame, locator: Any, selector: str) -> bool:
    """Whether ``locator`` and ``selector`` name one and the same element."""
    try:
        other = await page.locator(selector).element_handle(timeout=1000)
        return bool(other) and await locator.evaluate("(el, other) => el === other", other)
    except PlaywrightError:
        return False


def heal_stages(target: Target) -> list[tuple[str, str]]:
    """(how, selector) to look for the recorded element again, smallest change first:
    role and name, visible text, static attributes, XPath."""
    stages = []
    if target.name:
        stages.append(("its role and name", by_role(target.role, target.name)))
        if named(target, target.name):
            stages.append(("its role and name, marks aside", by_marks(target.role, target.name)))
    if target.text:
        stages.append(("its visible text", f"text={json.dumps(target.text, ensure_ascii=False)}"))
    tag = target.tag or "*"
    for attribute in HEAL_ATTRIBUTES:
        value = target.attributes.get(attribute)
        if value:
            stages.append(
                (
                    f"its {attribute} attribute",
                    f"{tag}[{attribute}={json.dumps(value, ensure_ascii=False)}]",
                )
            )
    if target.xpath:
        stages.append(("its XPath", f"xpath={target.xpath}"))
    return stages


async def heal(page: Page | Frame, target: Target, stale: SkillStale) -> Repair | None:
    """The first healing stage that finds exactly one visible element with the recorded
    role and name; else the one element its identity picks out clearly (a guess is
    stale, naming it). (A step located by a parameter is not healed: its role and given name
    are already the first stage, and the others describe the recorded example element,
    not the one asked for.)"""
    for how, selector in heal_stages(target):
        if selector != stale.selector and await is_target(page, selector, target):
            return Repair(target.step, stale.selector, selector, how, str(stale))
    placed = await in_form_of_earlier_step(page, target)
    if placed is not None:
        how, selector = placed
        return Repair(target.step, stale.selector, selector, how, str(stale), kept=False)
    match = await best_match(page, target)  # last: all it has recorded, scored together
    if match is not None and match.guess:
        guess = f"{stale} {match.guessed(target.name)}"
        raise SkillStale(guess, step=target.step, selector=stale.selector)
    if match is not None:
        how, renamed = match.said(target.name), match.renamed(target.name)
        found = await _by_new_name(page, target, match.selector, match.name) if renamed else ""
        return Repair(
            target.step, stale.selector, found or match.selector, how, str(stale), renamed=renamed
        )
    return None


async def _by_new_name(page: Page | Frame, target: Target, found: str, name: str) -> str:
    """A relabelled control's selector as its step was recorded, by role and name, with the
    name it goes by now: the same whatever values the skill is given, where the selector
    that found it may hold the example's (a link's address); "" when the step was not
    recorded by role and name, or no element of that role and new name is the one found
    (several may bear it: the step chooses among them as it did under the old name)."""
    if not target.selector.startswith("role=") or not name.strip():
        return ""
    renamed = by_role(target.role, name)
    try:
        shown = page.locator(renamed).filter(visible=True)
        for index in range(await shown.count()):
            if await _same_element(page, shown.nth(index), found):
                return renamed
    except PlaywrightError:
        return ""
    return ""


# The controls that send a form when clicked, and the fields one types into.
_SUBMITS = "button:not([type]), button[type=submit], input[type=submit], input[type=image]"
_FIELDS_OF = {
    "textbox": "input:not([type]), input[type=text], input[type=email], input[type=url], "
    "input[type=tel], textarea",
    "searchbox": "input[type=search]",
    "spinbutton": "input[type=number]",
    "combobox": "select",
}


async def in_form_of_earlier_step(page: Page | Frame, target: Target) -> tuple[str, str] | None:
    """(how, selector) of the control a step acts on found by its place when its selector
    and its name both changed: the one visible button that submits the form an earlier step
    of the skill acted in, or the one visible field of the target's role in that form."""
    if target.role == "button" and target.attributes.get("type", "submit") in ("submit", "image"):
        kind, inside = "the button that submits", _SUBMITS
    elif target.role in _FIELDS_OF:
        kind, inside = f"the only {target.role} in", _FIELDS_OF[target.role]
    else:
        return None
    run = skill_run()
    found, here = run.found, run.began.get(target.step, ("", 0.0))[0]
    for step in sorted((s for s in found if s < target.step), reverse=True):
        frame, selector = found[step]
        if frame != page or run.began.get(step, ("", 0.0))[0] != here:
            continue  # a form of another page (the same selector finds its namesake here)
        try:
            index = await page.locator(selector).first.evaluate(
                "el => [...document.forms].indexOf(el.form || el.closest('form'))", timeout=1000
            )
        except PlaywrightError:
            continue
        if index < 0:
            continue
        candidate = f"form >> nth={index} >> {inside}"
        shown = page.locator(candidate).filter(visible=True)
        try:
            if await shown.count() != 1:
                return None
            _tag, role, _name, _secret = await run_on_element(shown, "identity")
        except PlaywrightError:
            return None
        if role != target.role:
            return None
        return f"its place: {kind} the form of step {step}", f"{candidate} >> visible=true"
    return None


async def is_target(page: Page | Frame, selector: str, target: Target) -> bool:
    """True when ``selector`` names exactly one element, visible, with the recorded identity."""
    locator = page.locator(selector)
    try:
        if await locator.count() != 1 or not await locator.is_visible():
            return False
        _tag, role, name, _secret = await run_on_element(locator, "identity")
    except PlaywrightError:  # a selector this page cannot parse, or the page moved on
        return False
    if role != target.role:
        return False
    return same_words(name, target.name) or bool(await relabelled(page, locator, target))


async def ask_helper(
    helper: StepHelper, page: Page, target: Target, stale: SkillStale
) -> Repair | None:
    """The planner's choice of element for this one step, or None when it has none."""
    chosen = await helper(target, page, str(stale))
    if not chosen:
        return None
    return Repair(target.step, stale.selector, chosen, "the planner", str(stale), kept=False)


def same_address(target: Target, showing: str = "") -> str | None:
    """A selector for the visible links that go where the recorded one went (the same
    ``href``; with ``showing``, those whose text holds it), for a link found by its role
    and name: under another label it is still the same link if ``relabelled`` says so.
    None for a target that is no such link."""
    href = target.attributes.get("href", "")
    if target.role != "link" or not target.tag or not href or href.startswith("#"):
        return None
    if not target.selector.startswith("role=") or href.lower().startswith("javascript:"):
        return None
    shown = f":has-text({json.dumps(showing, ensure_ascii=False)})" if showing else ""
    return f"{target.tag}[href={json.dumps(href, ensure_ascii=False)}]{shown} >> visible=true"


def same_text(target: Target) -> str | None:
    """A selector for the visible element of the recorded tag whose text is the recorded
    text, for a control found by its role and name: an icon's alt beside the text ("Databases"
    shown, "Databases Databases" its accessible name) leaves the name selector nothing."""
    if not target.selector.startswith("role=") or not target.tag or not target.text.strip():
        return None
    return f"{target.tag}:text-is({json.dumps(target.text, ensure_ascii=False)}) >> visible=true"


async def placed_submit(page: Page | Frame, target: Target) -> str | None:
    """A selector for the one visible button that submits the form an earlier step acted
    in, for a submit button found by its role and name with nothing else to tell it by
    (no id, name or test id): under another label it is still the same button if
    ``relabelled`` says so. None for a target that is no such button, or no such form."""
    if not target.selector.startswith("role=") or target.role != "button":
        return None
    if any(target.attributes.get(a) for a in IDENTIFYING):
        return None
    placed = await in_form_of_earlier_step(page, target)
    return placed[1] if placed else None
