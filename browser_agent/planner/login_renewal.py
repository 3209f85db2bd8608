"""A run the planner does on a page of a site with a login skill logs in again first when
that page sends to the site's login page because the kept session expired (see
skills.logins): no model call, and the renewed session kept in the run's profile."""

from __future__ import annotations

from urllib.parse import urlsplit

from browser_agent.browser.session import session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.planner.skill_call import counted_login
from browser_agent.skills.logins import login_skill, on_login_page, renew_login
from browser_agent.skills.primitive.open_url import open_url
from browser_agent.store.connection import Store


async def renewed_at_start(store: Store, start_url: str | None) -> bool:
    """Before the planner starts on ``start_url`` (a page of a site with a login skill, not
    its login page): when the page sends to the login page because the kept session
    expired, log in again first. Whether it did."""
    login = login_skill(store, start_url) if start_url else None
    if login is None or urlsplit(start_url or "").path == urlsplit(login.start_url).path:
        return False
    try:
        await open_url(start_url or "")
    except (ActionError, BrowserError):  # the planner will meet it, and say so
        return False
    if not await on_login_page(session().current_page(), login):
        return False
    return (await renew_login(store, login, run=counted_login(store)))[0]
