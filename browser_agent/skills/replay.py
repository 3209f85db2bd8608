"""Replaying a skill in a fresh browser context and checking its recorded end state."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playwright.async_api import Browser

from browser_agent.browser.awaiting import paced
from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.failure_kinds import BROKEN, classify
from browser_agent.harvest.tokens import strip_tokens
from browser_agent.secrets import configured, how_to_set, missing, placeholders
from browser_agent.settings import Settings
from browser_agent.skills.loader import SkillFunction, SkillLoadError, load_skill

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from browser_agent.store.models import Skill
    from browser_agent.store.rows import SkillRow

NEEDS_SECRET = "needs a secret (a password) that is never stored"


@dataclass
class Replay:
    """How one replay went; ``step`` and ``selector`` locate a stale step."""

    passed: bool
    final_url: str | None = None
    step: int | None = None
    selector: str | None = None
    error: str | None = None
    screenshot: str | None = None
    seconds: float = 0.0
    trace: str | None = None  # a Playwright trace of the failed replay, when one was kept
    kind: str = ""  # of a failure: late, not_applicable or broken (see failure_kinds)

    def findings(self) -> dict[str, Any]:
        """Where it failed, what it saw and how long it took, as a verdict or a stored
        validation keeps them."""
        return {
            "step": self.step,
            "selector": self.selector,
            "error": self.error,
            "screenshot": self.screenshot,
            "final_url": self.final_url,
            "seconds": round(self.seconds, 3),
        }


def relative(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def example_arguments(skill: Skill | SkillRow, start_url: str | None) -> dict[str, str]:
    """The arguments the skill was learnt with (secrets as their ``{NAME}`` placeholders)."""
    arguments = json.loads(skill.example_args or "{}")
    if start_url:
        arguments["start_url"] = start_url
    return arguments


def lacking_secret(skill: Skill | SkillRow, secrets: Mapping[str, str]) -> str | None:
    """Why the skill cannot be replayed for want of a secret, naming it; None if it can."""
    arguments = example_arguments(skill, None)
    if any(value == "" for value in arguments.values()):  # masked when it was learnt
        return NEEDS_SECRET
    names = missing(arguments, secrets)
    if not names:
        return None
    return f"needs a secret: {', '.join(names)} is not configured ({how_to_set(names[0])})"


def waits_for_secret(error: str | None) -> bool:
    """Whether a replay verdict only says a secret was missing (the skill was not judged)."""
    return (error or "").startswith("needs a secret")


async def replay(
    skill: Skill | SkillRow,
    settings: Settings,
    browser: Browser | None = None,
    *,
    start_url: str | None = None,
    screenshot_dir: Path | None = None,
    secrets: Mapping[str, str] | None = None,
    trace_path: Path | None = None,
    pace: float = 0.0,
    logins: Engine | None = None,
) -> Replay:
    """Run ``skill`` with its example arguments in a fresh context; passed means it reached
    its recorded end state (same path and query, tokens aside). Secrets come from ``secrets``
    (the configured ones when None); a skill needing one that is not there is not run. With
    ``trace_path``, a failed replay keeps a Playwright trace there, unless the skill types a
    secret (a trace holds every value typed). With ``logins`` (the store), a replay that
    met the site's login page because the kept session expired logs in again through the
    site's login skill and starts over (the profile is left as it was)."""
    started = time.perf_counter()
    secrets = configured() if secrets is None else secrets
    lacking = lacking_secret(skill, secrets)
    if lacking:
        return Replay(False, error=lacking)
    arguments = example_arguments(skill, start_url)
    try:
        function = load_skill(skill, settings.workspace)
    except SkillLoadError as exc:
        return Replay(False, error=str(exc))
    traced = trace_path is not None and not types_secret(arguments)
    async with browser_session(settings, browser) as active:
        active.use_secrets(dict(secrets))
        if traced:
            await active.context.tracing.start(screenshots=True, snapshots=True)
        outcome = await _run(function, arguments, active, skill, screenshot_dir, pace)
        if not outcome.passed and logins is not None and await _logged_in_again(logins, skill):
            outcome = await _run(function, arguments, active, skill, screenshot_dir, pace)
        if traced:
            kept = None if outcome.passed else trace_path
            if kept:
                kept.parent.mkdir(parents=True, exist_ok=True)
            await active.context.tracing.stop(path=kept)
            outcome.trace = str(kept) if kept else None
    outcome.seconds = time.perf_counter() - started
    return outcome


async def _logged_in_again(logins: Engine, skill: Skill | SkillRow) -> bool:
    """Whether the replay stopped on the site's login page and logged in again."""
    from browser_agent.planner.login_renewal import landed_on_login, renew_login
    from browser_agent.store.connection import Store

    store = Store.of(logins)
    login = await landed_on_login(store, skill)
    return login is not None and (await renew_login(store, login, keep=False))[0]


def types_secret(arguments: Mapping[str, str]) -> bool:
    """Whether the arguments name a secret to type (as a ``{NAME}`` placeholder)."""
    return any(placeholders(str(value)) for value in arguments.values())


async def _run(
    function: SkillFunction,
    arguments: dict[str, str],
    active: BrowserSession,
    skill: Skill | SkillRow,
    screenshot_dir: Path | None,
    pace: float = 0.0,
) -> Replay:
    """Call the skill in ``active``'s context, its steps paced as the site's recorded steps
    (``pace``: the slowest, in seconds), and judge where it ended."""
    try:
        with paced(pace):
            await function(**arguments)
    except (ActionError, BrowserError) as exc:
        return Replay(
            False,
            final_url=active.page.url,
            step=getattr(exc, "step", None) if isinstance(exc, ActionError) else None,
            selector=getattr(exc, "selector", None),
            error=str(exc),
            screenshot=await _screenshot(active.page, screenshot_dir, skill),
            kind=classify(exc),
        )
    final = active.current_page().url
    if skill.expected_end and relative(strip_tokens(final)) != skill.expected_end:
        return Replay(
            False,
            final_url=final,
            error=f"ended on {relative(final)} instead of {skill.expected_end}",
            screenshot=await _screenshot(active.page, screenshot_dir, skill),
            kind=BROKEN,
        )
    return Replay(True, final_url=final)


async def _screenshot(page, directory: Path | None, skill: Skill | SkillRow) -> str | None:  # type: ignore[no-untyped-def]
    if directory is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{skill.name}-v{skill.version}-{int(time.time())}.png"
    try:
        await page.screenshot(path=str(path))
    except Exception:  # a screenshot is a courtesy; the failure itself is what counts
        return None
    return str(path)
