"""A kept login that expired, told and renewed through the site's login skill: with no
model call, the secrets typed from ``--secret`` or ``BROWSER_AGENT_SECRET_<NAME>``, and
the renewed cookies saved to the run's profile when asked.

The site's login skill is told by what it does, not by its name: a current, complete
skill of the same site (scheme, host and port) one of whose steps types into a password
field. A page is that site's login page when it shows a password field and either is the
page the login skill starts from or holds the field the login skill types its password in.
Who runs the login skill is the caller's (:data:`RunLogin`): the planner counts it as a
use of the skill, a replay runs its steps as they are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.browser.awaiting import paced
from browser_agent.browser.profiles import keep_profile
from browser_agent.browser.session import session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.secrets import how_to_set, missing
from browser_agent.skills.loader import SkillFunction
from browser_agent.skills.stored import load_skill
from browser_agent.store.connection import Store
from browser_agent.store.health import recorded_pace
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills, loads

if TYPE_CHECKING:
    from browser_agent.skills.replay_session import Relogin

#: Runs the login skill (its row, loaded function and arguments); whether it finished.
RunLogin = Callable[[SkillRow, SkillFunction, dict[str, str]], Awaitable[bool]]

_PASSWORD_FIELD = "input[type=password i]:visible"


def password_targets(skill: SkillRow) -> list[str]:
    """The selectors of the password fields ``skill`` types into."""
    targets = loads(skill.selectors)
    return [
        str(t.get("selector", ""))
        for t in (targets if isinstance(targets, list) else [])
        if isinstance(t, dict)
        and str((t.get("attributes") or {}).get("type", "")).lower() == "password"
        and t.get("selector")
    ]


def is_login_skill(skill: SkillRow) -> bool:
    """Whether ``skill`` logs in: one of its steps types into a password field."""
    return bool(password_targets(skill))


def _origin(url: str) -> str:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


def login_skill(store: Store, url: str) -> SkillRow | None:
    """The login skill of the site ``url`` is on: the newest complete current skill of that
    site that types a password, healthy or waiting only for its secret."""
    site = _origin(url)
    found = [
        s
        for s in current_skills(store)
        if site and _origin(s.start_url) == site and s.routable and is_login_skill(s)
    ]
    found.sort(key=lambda s: (s.status == "healthy", s.created_at), reverse=True)
    return found[0] if found else None


async def on_login_page(page: Page, login: SkillRow) -> bool:
    """Whether ``page`` is the login page of ``login``'s site (see the module's docstring)."""
    try:
        if not await page.locator(_PASSWORD_FIELD).count():
            return False
        if urlsplit(page.url).path == urlsplit(login.start_url).path:
            return True
        for selector in password_targets(login):
            if await page.locator(selector).count() == 1:
                return True
    except PlaywrightError:  # the page moved on meanwhile: not a page to log in on
        return False
    return False


async def landed_on_login(store: Store, skill: SkillRow) -> SkillRow | None:
    """The site's login skill when ``skill`` (not a login itself) is on its login page;
    None outside a browser session (no page to be on)."""
    if is_login_skill(skill):
        return None
    try:
        page = session().current_page()
    except BrowserError:
        return None
    login = login_skill(store, page.url)
    return login if login is not None and await on_login_page(page, login) else None


async def renew_login(
    store: Store, login: SkillRow, *, keep: bool = True, run: RunLogin | None = None
) -> tuple[bool, str]:
    """Log in again with ``login`` from the page it was learnt on, with its example
    arguments (the password as its secret's placeholder), run by ``run`` (its steps as
    they are when None); on success the run's profile keeps the new session, when
    ``keep``. Whether it worked, and what happened, said."""
    active = session()
    arguments = loads(login.example_args)
    arguments = dict(arguments) if isinstance(arguments, dict) else {}
    absent = missing(arguments, active.secret_values)
    if absent:
        return False, (
            f"The session had expired and the login skill {login.name} needs the secret "
            f"{absent[0]} ({how_to_set(absent[0])})."
        )
    arguments["start_url"] = login.start_url  # a fresh form (and token) where it was learnt
    function = load_skill(login, active.settings.workspace)
    done = await (run or _steps(store))(login, function, arguments)
    if not done or await on_login_page(active.current_page(), login):
        return False, f"The session had expired and logging in again with {login.name} failed."
    if keep:
        await keep_profile(active.settings, active.context)
    return True, f"The session had expired: logged in again with {login.name}."


def _steps(store: Store) -> RunLogin:
    """Running a login skill's steps as they are, paced as its site's recorded steps were."""

    async def run(login: SkillRow, function: SkillFunction, arguments: dict[str, str]) -> bool:
        try:
            with paced(recorded_pace(store, login)):
                await function(**arguments)
        except (ActionError, BrowserError):
            return False
        return True

    return run


def relogin(store: Store) -> Relogin:
    """The hook a replay takes (see skills.replay): when the replayed skill stopped on its
    site's login page, log in again with the site's login skill, leaving the profile as it
    was. Whether it did."""

    async def again(skill: SkillRow) -> bool:
        login = await landed_on_login(store, skill)
        return login is not None and (await renew_login(store, login, keep=False))[0]

    return again
