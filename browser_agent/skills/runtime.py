"""What generated skills call around each primitive: find the recorded element, check the
recorded effect. A selector that now finds nothing, several elements, or another control
is stale: the skill stops with SkillStale instead of clicking the wrong thing.

Inside ``repairing()`` (a run, not a validation) a stale selector is healed at the
smallest scope first: the element is looked for again from what was recorded about it
(role and name, visible text, static attributes, XPath) and accepted only when exactly
one visible element has the recorded role and name. When that fails, an optional step
helper (the planner) names the element for that one step. Every repair is collected in
the ``Repairs`` of the block, so the caller can record it and mark the skill.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit
from weakref import WeakKeyDictionary

from playwright.async_api import BrowserContext, Frame, Page
from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.awaiting import deadline_s, left, new_elements, note_late, until
from browser_agent.browser.effects import ASKED_NOT_COME
from browser_agent.browser.held import editor_text, same_text
from browser_agent.browser.locate import Located, frame_for, vouch
from browser_agent.browser.session import session
from browser_agent.browser.values import field_value
from browser_agent.dom.library import count_and_run, run_on_element
from browser_agent.errors import ActionError
from browser_agent.failure_kinds import SkillLate
from browser_agent.secrets import filled, filled_address
from browser_agent.skills.end_state import EndNotShown, end_state, skill_values
from browser_agent.skills.identity import best_match
from browser_agent.skills.primitive import open_url
from browser_agent.skills.selectors import ANY_ROLE, CLOSE_MARKS, text_selector

# Static attributes that may still name the element after its id changed, in the order
# they are tried; the first stages are role + name and visible text, the last the XPath.
HEAL_ATTRIBUTES = ("name", "placeholder", "aria-label", "data-testid", "title", "alt", "id")


class SkillStale(ActionError):
    """A harvested step no longer fits the page; ``step`` and ``selector`` say where."""

    def __init__(self, message: str, *, step: int, selector: str) -> None:
        super().__init__(message, kind="stale", selector=selector)
        self.step = step


class SkillNotApplicable(ActionError):
    """The skill fits the page, but not this command: a value it was given (a label, a
    name) is not on the page, or does not fit its parameter. The skill stays healthy;
    the planner takes over."""

    def __init__(self, message: str, *, step: int, selector: str = "") -> None:
        super().__init__(message, kind="not_applicable", selector=selector)
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
    near: str = ""  # the nearest text before it when recorded, to tell it from its equals
    among: int = 0  # its place among the elements of its role and name when recorded
    intent: str = ""


# Given the target whose element could not be found, the current page and why it was not
# found: the selector of the element that does the step instead ("[mmid='12']"), or None.
StepHelper = Callable[[Target, Page, str], Awaitable[str | None]]


@dataclass
class Repair:
    """One step whose recorded selector failed and the element that was used instead.

    ``kept`` says whether ``found`` is a stable selector worth a next version (healing),
    or a one-off choice of the planner (an mmid).
    """

    step: int
    recorded: str
    found: str
    how: str
    problem: str
    kept: bool = True

    def said(self) -> str:
        """The repair in plain words, for the planner and the run's log."""
        return f"{self.problem} The step went on with {self.found}, found by {self.how}."


@dataclass
class Repairs:
    """The repairs made while a skill ran, and the helper it may ask (None: heal only)."""

    helper: StepHelper | None = None
    done: list[Repair] = field(default_factory=list)

    def kept(self) -> dict[str, dict[str, str]]:
        """Healed selectors for the skill's next version: step -> {recorded: healed}."""
        healed: dict[str, dict[str, str]] = {}
        for repair in self.done:
            if repair.kept:
                healed.setdefault(str(repair.step), {})[repair.recorded] = repair.found
        return healed


_repairs: ContextVar[Repairs | None] = ContextVar("browser_agent_repairs", default=None)
# The address a running skill falls back on (see by_address): the planner is not asked
# for a step the address does without.
_end_address: ContextVar[str] = ContextVar("browser_agent_end_address", default="")


# Per browser context (one run or replay each, several may run at once): the element each
# step acted on, and what the skill decided on its own, for its answer.
_found_in: WeakKeyDictionary[BrowserContext, dict[int, tuple[Page | Frame, str]]] = (
    WeakKeyDictionary()
)
_notes_in: WeakKeyDictionary[BrowserContext, list[str]] = WeakKeyDictionary()
# step -> the editor box it found, held as the element itself: editors relabel a box
# once it holds text, so its selector no longer finds it when the text is checked
_pinned_in: WeakKeyDictionary[BrowserContext, dict[int, Any]] = WeakKeyDictionary()
# step -> (the page's address, the clock) when the step found its element: what its
# effect is awaited from
_began_in: WeakKeyDictionary[BrowserContext, dict[int, tuple[str, float]]] = WeakKeyDictionary()
# step -> (the page's address, the selector) of an element found by a value the command
# gave: what a removing command must leave gone
_named_in: WeakKeyDictionary[BrowserContext, dict[int, tuple[str, str]]] = WeakKeyDictionary()


# step -> (notices, values typed earlier shown as text) on the page when the step began;
# and the values the running skill typed, in order
_says_in: WeakKeyDictionary[BrowserContext, dict[int, tuple[list[str], list[str]] | None]] = (
    WeakKeyDictionary()
)
_typed_in: WeakKeyDictionary[BrowserContext, list[str]] = WeakKeyDictionary()
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


def _found() -> dict[int, tuple[Page | Frame, str]]:
    """Step -> (frame, selector) of the element each step of the running skill acted on."""
    return _found_in.setdefault(session().context, {})


def _notes() -> list[str]:
    """What the running skill decided on its own (which of two same-named buttons)."""
    return _notes_in.setdefault(session().context, [])


def _began() -> dict[int, tuple[str, float]]:
    """Step -> (page address, clock) when each step of the running skill began."""
    return _began_in.setdefault(session().context, {})


async def _page_says(page: Page) -> tuple[list[str], list[str]] | None:
    """The page's visible notices and the values typed by the skill its text shows; None
    when the page cannot say (it is being replaced)."""
    typed = [v for v in _typed_in.get(session().context, []) if len(v.strip()) >= 3]
    try:
        notices, shown = await page.evaluate(_PAGE_SAYS_JS, typed)
    except PlaywrightError:
        return None
    return list(notices), list(shown)


async def _changed_in_place(page: Page, step: int) -> str:
    """How the page showed a step's work without moving on ("" when it did not, or when
    what it showed before the step is not known): a notice that was not there when the
    step began, or a value the skill typed now shown as text."""
    before = _says_in.get(session().context, {}).get(step)
    now = await _page_says(page)
    if before is None or now is None:
        return ""
    new = [n for n in now[0] if n not in before[0]]
    if new:
        return f"showed {new[0]!r}"
    values = [v for v in now[1] if v not in before[1]]
    return f"now shows {values[0]!r}" if values else ""


@contextmanager
def repairing(helper: StepHelper | None = None) -> Iterator[Repairs]:
    """Skills called inside the block heal stale selectors (and ask ``helper`` when healing
    fails); outside it, as in validation, a stale selector always stops the skill."""
    repairs = Repairs(helper)
    token = _repairs.set(repairs)
    try:
        yield repairs
    finally:
        _repairs.reset(token)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def by_role(role: str, name: str) -> str:
    """A Playwright selector for the element with this role and exact accessible name."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'role={role}[name="{escaped}"s]'


def _bare(text: str) -> str:
    """A label without the marks around its words (sort arrows, bullets, colons): "count
    ▼" and "count" are one label, as a column header's name changes once sorted."""
    words = " ".join(text.split()).casefold()
    start, end = 0, len(words)
    while start < end and not words[start].isalnum():
        start += 1
    while end > start and not words[end - 1].isalnum():
        end -= 1
    return words[start:end]


def _marked(label: str) -> bool:
    """Whether ``label`` has marks around its words ("count ▼", "• Home")."""
    return bool(_bare(label)) and _bare(label) != " ".join(label.split()).casefold()


def _same_words(a: str, b: str) -> bool:
    return _same(a, b) or (bool(_bare(b)) and _bare(a) == _bare(b))


_REGEX_SYNTAX = set("^$\\.*+?()[]{}|/")


def by_marks(role: str, name: str) -> str:
    """A selector for the element with this role whose name is ``name`` up to marks around
    its words and case (see ``_bare``)."""
    words = _bare(name).split(" ")
    escaped = ["".join(f"\\{c}" if c in _REGEX_SYNTAX else c for c in w) for w in words]
    other = "[^\\p{L}\\p{N}]*"
    spaced = "\\s+".join(escaped)
    return f"role={role}[name=/^{other}{spaced}{other}$/iu]"


def by_name(target: Target, name: str) -> str:
    """The selector for the element of the target's role that a command names: the name
    exact but for case; an "x" names a close button; an element with no role by its text."""
    if target.role == "button" and name.strip().lower() in CLOSE_MARKS:
        return "role=button[name=/^\\s*(close|dismiss|x|\u00d7|\u2715|\u2716)\\s*$/i]"
    if not target.role or target.role == ANY_ROLE:
        return text_selector(target.tag, name)
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    if named_by_value(target):
        group = target.attributes.get("name", "").replace("\\", "\\\\").replace('"', '\\"')
        within = f'[name="{group}"]' if group else ""
        return f'input[type="{target.role}"]{within}[value="{escaped}" i]'
    return f'role={target.role}[name="{escaped}"i]'


def named_by_value(target: Target) -> bool:
    """Whether the target is a box with no label, recorded by its value (a list's row
    checkbox: see harvest.elements.by_value); a command names it by that value."""
    value = target.attributes.get("value")
    return target.role in ("checkbox", "radio") and bool(value) and value == target.name


async def find(target: Target, name: str | None = None, nth: str | None = None) -> str:
    """The selector to act on: it must match exactly one visible element whose role and
    name are still the recorded ones (``name`` overrides the recorded name; ``nth``, an
    ordinal such as "3rd", picks the element by its place among those of its role).

    Inside ``repairing()`` a selector that no longer fits is healed (or the step helper is
    asked); waiting then ends as soon as the element shows up by any healing stage, so a
    changed page costs no full timeout per step. A name that several visible elements
    share is decided by what was recorded (see ``_choose``).
    """
    active = session()
    top = active.current_page()
    _began()[target.step] = (top.url, time.monotonic())
    _says_in.setdefault(active.context, {})[target.step] = await _page_says(top)
    if nth is not None:
        return await _find_nth(top, target, nth)
    expected = target.name if name is None else name
    selector = target.selector if name is None else by_name(target, expected)
    if name is not None and _named(target, expected) and _marked(target.name):
        selector = by_marks(target.role, expected)  # "count ▼" was recorded: marks or none
    page = await frame_for(top, selector)  # the iframe that holds it, if one does
    repairs = _repairs.get()
    healing = repairs is not None and name is None
    waited = 0.0
    look = await _look(page, selector)  # the element is usually there, shown and alone
    if look is None or look[0] != 1 or not look[1][-1]:
        look = None  # else: not yet there, several, hidden or not to be found this way
        if not await _shown(page, selector):  # only then wait, for it or any healing stage
            stages = [s for _how, s in heal_stages(target)] if healing else []
            asked = name is not None and _named(target, expected)
            marks = by_marks(target.role, expected) if asked else None
            address = same_address(target) if name is None else None
            placed = await placed_submit(page, target) if name is None else None
            extra = [s for s in (marks, address, placed) if s]
            timeout = active.settings.action_timeout_ms
            await _wait_visible(page, [selector, *stages, *extra], timeout)
            waited = timeout / 1000
            if marks and not await _shown(page, selector) and await _shown(page, marks):
                selector = marks  # the name asked for, with marks added ("count ▼")
            elif address and not await _shown(page, selector) and await _shown(page, address):
                selector = address  # the link to the same address, relabelled or not
            elif placed and not await _shown(page, selector) and await _shown(page, placed):
                selector = placed  # the button that sends the form the skill filled
        if name is not None or selector.startswith("role="):  # several of one name
            selector = await _choose(page, target, selector, expected)
    loose = name is not None
    problem = await _mismatch(page, target, selector, expected, waited, loose, look)
    if problem is None:
        _found()[target.step] = (page, selector)
        if name is not None:
            _named_in.setdefault(active.context, {})[target.step] = (top.url, selector)
        await _pin_editor(page, target, selector)
        return selector
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
    stale = SkillStale(f"Step {target.step}: {problem}", step=target.step, selector=selector)
    if repairs is None:
        raise stale
    repair = await _heal(page, target, stale) if healing else None
    if repair is None and repairs.helper is not None and not _end_address.get():
        repair = await _ask_helper(repairs.helper, top, target, stale)
    if repair is None:
        raise stale
    repairs.done.append(repair)
    _found()[target.step] = (page, repair.found)
    return repair.found


async def _pin_editor(page: Page | Frame, target: Target, selector: str) -> None:
    """Hold on to the editor box (contenteditable) a step found, for its check."""
    pinned = _pinned_in.setdefault(session().context, {})
    pinned.pop(target.step, None)
    editable = target.attributes.get("contenteditable")
    if editable is None or editable.lower() not in ("", "true", "plaintext-only"):
        return
    with suppress(PlaywrightError):
        pinned[target.step] = await page.locator(selector).element_handle(timeout=1000)


def same_address(target: Target) -> str | None:
    """A selector for the visible link that goes where the recorded one went (the same
    ``href``), for a link found by its role and name: under another label it is still
    the same link if ``relabelled`` says so. None for a target that is no such link."""
    href = target.attributes.get("href", "")
    if target.role != "link" or not target.tag or not href or href.startswith("#"):
        return None
    if not target.selector.startswith("role="):
        return None
    return f"{target.tag}[href={json.dumps(href, ensure_ascii=False)}] >> visible=true"


async def placed_submit(page: Page | Frame, target: Target) -> str | None:
    """A selector for the one visible button that submits the form an earlier step acted
    in, for a submit button found by its role and name with nothing else to tell it by
    (no id, name or test id): under another label it is still the same button if
    ``relabelled`` says so. None for a target that is no such button, or no such form."""
    if not target.selector.startswith("role=") or target.role != "button":
        return None
    if any(target.attributes.get(a) for a in IDENTIFYING):
        return None
    placed = await _in_form_of_earlier_step(page, target)
    return placed[1] if placed else None


def _named(target: Target, name: str) -> bool:
    """Whether the step's element is found by its role and a name of words."""
    return bool(target.role) and target.role != ANY_ROLE and bool(_bare(name))


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
    _found()[target.step] = (page, selector)
    return selector


_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth")  # fmt: skip


def ordinal_value(text: str) -> int | None:
    """3 for "3rd", "third" or "3"; None when ``text`` is no position."""
    word = text.strip().lower()
    if word in _ORDINAL_WORDS:
        return _ORDINAL_WORDS.index(word) + 1
    match = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", word)
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


async def _choose(page: Page | Frame, target: Target, selector: str, name: str) -> str:
    """The one element to act on when several visible ones have the role and name the
    command asks for: the one after the recorded nearby text, else the one at the
    recorded place among its equals. The choice is noted for the skill's answer."""
    matches = page.locator(selector)
    try:
        count = await matches.count()
        if count < 2:
            return selector
        shown = [i for i in range(count) if await matches.nth(i).is_visible()]
    except PlaywrightError:
        return selector
    if len(shown) < 2:
        return f"{selector} >> nth={shown[0]}" if shown else selector
    chosen, how = await _by_address(matches, shown, target, name), ""
    if chosen is not None:
        how = "the one whose address is the recorded one's with the name asked for"
    if chosen is None and target.near:  # the one the recorded text stands closest before
        wanted = " ".join(target.near.split()).casefold()
        distances = {}
        for index in shown:
            before = " ".join((await run_on_element(matches.nth(index), "before", max=400)).split())
            found = before.casefold().rfind(wanted)
            if found >= 0:
                distances[index] = len(before) - found - len(wanted)
        if distances:
            chosen = min(distances, key=lambda index: distances[index])
            how = f"the one after {target.near!r}"
    if chosen is None:
        place = min(target.among, len(shown) - 1)
        chosen, how = shown[place], f"number {place + 1} in page order, as recorded"
    _notes().append(
        f"{len(shown)} visible {target.role or 'element'}s are named {name!r}; step "
        f"{target.step} used {how}."
    )
    return f"{selector} >> nth={chosen}"


async def _by_address(matches: Any, shown: list[int], target: Target, name: str) -> int | None:
    """Among same-named links, the one whose address is the recorded link's with the name
    asked for in place of the recorded one ("?_sort_desc=count" for "count" is
    "?_sort_desc=species" for "species"), or the recorded address itself for the recorded
    name; None when not exactly one is."""
    href, old, new = target.attributes.get("href", ""), _bare(target.name), _bare(name)
    if target.role != "link" or not href or not old or not new:
        return None
    spelled = [(old, new), (quote(old), quote(new)), (quote_plus(old), quote_plus(new))]
    wanted = {href} if old == new else {href.replace(a, b) for a, b in spelled if a in href}
    if not wanted:
        return None
    same = []
    for index in shown:
        with suppress(PlaywrightError):
            if (await matches.nth(index).get_attribute("href") or "") in wanted:
                same.append(index)
    return same[0] if len(same) == 1 else None


async def _shown(page: Page | Frame, selector: str) -> bool:
    """Whether ``selector`` already shows a visible element (no waiting)."""
    try:
        return await page.locator(selector).filter(visible=True).count() > 0
    except PlaywrightError:
        return False


async def _wait_visible(page: Page | Frame, selectors: list[str], timeout: float) -> None:
    """Wait until one of ``selectors`` shows a visible element (or the timeout passes)."""
    union = page.locator(selectors[0]).filter(visible=True)
    for selector in selectors[1:]:
        union = union.or_(page.locator(selector).filter(visible=True))
    with suppress(PlaywrightError):  # timed out, or a selector this page cannot parse
        await union.first.wait_for(state="visible", timeout=timeout)


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
        renamed = bool(expected) and not _same_words(found_name, expected)
        if renamed and role == target.role and not loose:
            kept = await relabelled(page, locator, target)
            if kept:
                renamed = False
                _notes().append(
                    f"Step {target.step}: the {role} {expected!r} is now labelled "
                    f"{found_name!r} (the same {kept})."
                )
        if role != target.role or renamed:
            return (
                f"{selector} now names a {role or 'element'} {found_name!r}, "
                f"not the {target.role} {expected!r} it was recorded on."
            )
    if usable:  # else the primitive's own look says why it cannot be used
        vouch(session(), selector, Located(locator, opening, is_password, point))
    return None


# What an element is, apart from its words: these recorded attributes must all be the
# same (those recorded), and one of IDENTIFYING must be among them.
IDENTITY_ATTRIBUTES = ("id", "name", "type", "data-testid", "role")
IDENTIFYING = ("id", "name", "data-testid")
_IDENTITY_JS = """el => {
  const href = el.getAttribute('href');
  return {tag: el.tagName.toLowerCase(), id: el.getAttribute('id'),
          name: el.getAttribute('name'), type: el.getAttribute('type'),
          'data-testid': el.getAttribute('data-testid'), role: el.getAttribute('role'),
          href: href === null ? null : new URL(href, document.baseURI).pathname};
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
    if href and urlsplit(href).path and seen.get("href") != urlsplit(href).path:
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
        if _named(target, target.name):
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


async def _heal(page: Page | Frame, target: Target, stale: SkillStale) -> Repair | None:
    """The first healing stage that finds exactly one visible element with the recorded
    role and name; else the one element its identity picks out clearly (a guess is
    stale, naming it). (A step located by a parameter is not healed: its role and given name
    are already the first stage, and the others describe the recorded example element,
    not the one asked for.)"""
    for how, selector in heal_stages(target):
        if selector != stale.selector and await _is_target(page, selector, target):
            return Repair(target.step, stale.selector, selector, how, str(stale))
    placed = await _in_form_of_earlier_step(page, target)
    if placed is not None:
        how, selector = placed
        return Repair(target.step, stale.selector, selector, how, str(stale), kept=False)
    match = await best_match(page, target)  # last: all it has recorded, scored together
    if match is not None and match.guess:
        guess = f"{stale} {match.guessed(target.name)}"
        raise SkillStale(guess, step=target.step, selector=stale.selector)
    if match is not None:
        how = match.said(target.name)
        return Repair(target.step, stale.selector, match.selector, how, str(stale))
    return None


# The controls that send a form when clicked, and the fields one types into.
_SUBMITS = "button:not([type]), button[type=submit], input[type=submit], input[type=image]"
_FIELDS_OF = {
    "textbox": "input:not([type]), input[type=text], input[type=email], input[type=url], "
    "input[type=tel], textarea",
    "searchbox": "input[type=search]",
    "spinbutton": "input[type=number]",
    "combobox": "select",
}


async def _in_form_of_earlier_step(page: Page | Frame, target: Target) -> tuple[str, str] | None:
    """(how, selector) of the control a step acts on found by its place when its selector
    and its name both changed: the one visible button that submits the form an earlier step
    of the skill acted in, or the one visible field of the target's role in that form."""
    if target.role == "button" and target.attributes.get("type", "submit") in ("submit", "image"):
        kind, inside = "the button that submits", _SUBMITS
    elif target.role in _FIELDS_OF:
        kind, inside = f"the only {target.role} in", _FIELDS_OF[target.role]
    else:
        return None
    for step in sorted((s for s in _found() if s < target.step), reverse=True):
        frame, selector = _found()[step]
        if frame != page:
            continue
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


async def _is_target(page: Page | Frame, selector: str, target: Target) -> bool:
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
    return _same_words(name, target.name) or bool(await relabelled(page, locator, target))


async def _ask_helper(
    helper: StepHelper, page: Page, target: Target, stale: SkillStale
) -> Repair | None:
    """The planner's choice of element for this one step, or None when it has none."""
    chosen = await helper(target, page, str(stale))
    if not chosen:
        return None
    return Repair(target.step, stale.selector, chosen, "the planner", str(stale), kept=False)


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
    before, began = _began().get(step, now) if target is not None else now
    seconds = deadline_s(active.settings, time.monotonic() - began)
    moved = "navigated to" in said
    if (navigated or navigated_to is not None) and not moved:
        moved = await _await_leaving(step, selector, page, before, seconds, said)
        page = active.current_page()
    if target is not None and not moved and (value, checked, selected) != (None, None, None):
        await _expect_on_element(target, value, checked, selected, seconds, added)
    if value is not None and filled(value, active.secret_values) == value:
        typed = _typed_in.setdefault(active.context, [])
        typed[:] = [*typed[-19:], value]  # never a secret; the last few
    if navigated_to is not None or navigated:
        # the page moved on (or showed the step's work in place): where it went is the end
        # state's to judge, as one page may be reached by several addresses
        want = urlsplit(navigated_to or "").path
        if moved and want and urlsplit(page.url).path != want:
            _notes().append(f"Step {step} reached {page.url}, recorded as {want}.")
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
            _notes().append(f"Step {step} was late: the page moved on after {seconds:.1f} s.")
    if gone:
        session().observed.clear()
        session().page_version += 1
        return True
    change = "" if asked else await _changed_in_place(page, step)
    if change:
        _notes().append(f"Step {step}: the page stayed on {page.url} and {change}.")
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
    frame, selector = _found().get(target.step, (session().current_page(), target.selector))
    pinned = _pinned_in.get(session().context, {}).get(target.step)
    locator = pinned if pinned is not None else frame.locator(selector)
    try:
        if value is not None:
            kind = await locator.get_attribute("type") or "text"
            typed = filled(value, session().secret_values)  # the step typed the secret
            try:
                wanted = field_value(kind, typed)
            except ValueError:
                wanted = typed

            async def holds() -> tuple[bool, str]:
                editor = await editor_text(locator)  # an editor box holds text, not a value
                held = editor if editor is not None else await locator.input_value()
                same = held == wanted or (editor is not None and same_text(editor, wanted))
                if added:  # what it held before stays in front of it
                    same = " ".join(held.split()).endswith(" ".join(wanted.split()))
                return same, held

            ok, held = await until(holds, seconds)
            if not ok:
                secret = kind.lower() == "password" or typed != value
                shown = "the password typed" if secret else f"{wanted!r}; it holds {held!r}"
                raise SkillStale(
                    f"Step {target.step}: the field should now hold {shown} "
                    f"(waited {seconds:.1f} s).",
                    step=target.step,
                    selector=selector,
                )
        if checked is not None:

            async def ticked() -> tuple[bool, None]:
                return await locator.is_checked() == checked, None

            if not (await until(ticked, seconds))[0]:
                raise SkillStale(
                    f"Step {target.step}: the {target.role} should now be "
                    f"{'ticked' if checked else 'clear'}, but it is not "
                    f"(waited {seconds:.1f} s).",
                    step=target.step,
                    selector=selector,
                )
        if selected is not None:

            async def chosen() -> tuple[bool, list[str]]:
                seen = await locator.evaluate(
                    "el => [el.value, (el.selectedOptions[0] || {}).textContent || '']"
                )
                return any(_same_option(selected, str(option)) for option in seen), seen

            ok, seen = await until(chosen, seconds)
            if not ok:
                raise SkillStale(
                    f"Step {target.step}: {selected!r} should now be chosen, but "
                    f"{seen[1].strip()!r} is (waited {seconds:.1f} s).",
                    step=target.step,
                    selector=selector,
                )
    except PlaywrightError as exc:
        raise SkillStale(
            f"Step {target.step}: its element could not be checked after the step: "
            f"{str(exc).splitlines()[0]}",
            step=target.step,
            selector=selector,
        ) from exc


def _same_option(wanted: str, option: str) -> bool:
    """An option named as select_option takes it: as written, or by its letters and
    digits ("price low to high" for "Price: low to high")."""
    plain = ["".join(c for c in text.lower() if c.isalnum()) for text in (wanted, option)]
    return _same(wanted, option) or (bool(plain[0]) and plain[0] == plain[1])


def with_case(text: str, case: str) -> str:
    """``text`` in the letter case a command asked for: "upper" or "lower"."""
    wanted = case.strip().lower()
    if wanted not in ("upper", "lower"):
        raise SkillNotApplicable(f"{case!r} is not a letter case (upper or lower).", step=0)
    return text.upper() if wanted == "upper" else text.lower()


@contextmanager
def answering_dialogs(accept: bool) -> Iterator[None]:
    """Answer confirm, prompt and leave-page dialogs raised inside the block as the
    recorded run did (accepted or dismissed); the session's own choice comes back after."""
    active = session()
    before = active.accept_dialogs
    active.accept_dialogs = accept
    try:
        yield
    finally:
        active.accept_dialogs = before


def path_items(path: str) -> list[tuple[str, bool]]:
    """The items of a menu path "File > Save as", each with whether it is the last."""
    items = [item.strip() for item in path.split(">") if item.strip()]
    return [(item, index == len(items) - 1) for index, item in enumerate(items)]


async def done(template: str, **values: str | list[str] | int) -> str:
    """The skill's answer: what it did (the template filled in), how it told apart
    same-named elements, and where the browser is; EndNotShown when the final page does
    not show the values it was given (see end_state), whatever its steps did."""

    def filled(match: re.Match[str]) -> str:
        value = values.get(match.group(1), match.group(0))
        return ", ".join(value) if isinstance(value, list) else str(value)

    said = re.sub(r"\{(\w+)\}", filled, template)
    said = said.replace("{{", "{").replace("}}", "}")
    notes = "".join(f" {note}" for note in _notes())
    _notes().clear()
    active = session()
    page = active.current_page()
    answer = f"{said}{notes} Final page: {page.url} (title {await page.title()!r})."
    named = _named_in.pop(active.context, {})
    if said.split(" ", 1)[0].lower() in REMOVING and named:
        gone = await _gone(page, named.values())
        if gone is not None:
            raise EndNotShown(gone, answer, ())
        return f"{answer} What it named is no longer on the page."
    end = await end_state(
        page, skill_values(values), active.secrets, command=said, refused=active.refused
    )
    if not end.shown:
        raise EndNotShown(end.said(), answer, end.missing, bool(end.wrong or end.status))
    return answer


class by_address:  # noqa: N801 - used as `async with by_address(url):` in skill code
    """Steps with the address they reach to fall back on: when one no longer fits the page
    (stale, and healing found nothing) while the skill runs for a command, that address,
    built from the command's values, is opened instead, and the skill goes on from there.
    The harvester wraps the steps of a run that reached its end sending nothing to the
    site (a search's results), and a button whose click went on by GET (a form's "Create
    this page"). It counts as a repair, so the skill is still marked stale; the planner
    is not asked for such a step; a replay (validation) gets no fallback and reports it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._set: Any = None

    async def __aenter__(self) -> None:
        self._set = _end_address.set(self.url)

    async def __aexit__(self, kind: type[BaseException] | None, exc: Any, _tb: Any) -> bool:
        _end_address.reset(self._set)
        repairs = _repairs.get()
        if not isinstance(exc, SkillStale) or repairs is None:
            return False
        await open_url(url=filled_address(self.url, session().secret_values))  # never kept
        repairs.done.append(
            Repair(
                exc.step or 0,
                exc.selector or "",
                self.url,
                "opening the address it went to, built from the command's values",
                str(exc),
                kept=False,
            )
        )
        return True


# A command that starts with one of these removes what it names: its end is done when
# what it named is gone from the page it was on, not when the page shows its name.
REMOVING = frozenset(
    {"remove", "delete", "drop", "erase", "trash", "discard", "uninstall", "unregister"}
)


async def _gone(page: Page, named: Iterable[tuple[str, str]]) -> str | None:
    """Why the final page does not show the elements found by the command's values gone
    (it is another page than theirs, an error page, or still shows one); None when it
    shows them gone."""
    status = 0
    with suppress(PlaywrightError):  # a page still on its way: judged by what it shows
        status = await page.evaluate(
            "() => (performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0"
        )
    if status >= 400:
        return f"the final page {page.url} is an error page (HTTP {status})."
    for url, selector in named:
        if urlsplit(url).path != urlsplit(page.url).path:
            return f"the final page {page.url} is not {url}, where what it removes was shown."
        if await (await frame_for(page, selector)).locator(selector).count():
            return f"the final page {page.url} still shows what it was to remove ({selector})."
    return None
