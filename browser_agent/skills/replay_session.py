"""One replay of a skill in a fresh browser context: its boundary, its secrets, its trace
kept when it failed, writes held back from a removal's last step, and the verdict on where
it ended (:class:`Replay`). Which values a skill is replayed with is
:mod:`browser_agent.skills.replay`'s."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, Route

from browser_agent.browser.awaiting import paced
from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.browser.tracing import tracing_started, tracing_stopped
from browser_agent.errors import ActionError, BrowserError
from browser_agent.failure_kinds import BROKEN, classify
from browser_agent.secrets import masked_address, placeholders, redact
from browser_agent.settings import Settings
from browser_agent.sites.boundary import Boundary
from browser_agent.sites.request_tokens import strip_tokens
from browser_agent.skills.end_address import same_end, shows_the_same
from browser_agent.skills.fresh import example_arguments
from browser_agent.skills.loader import SkillFunction
from browser_agent.skills.run_state import holding_from
from browser_agent.skills.targets import StepHeld

if TYPE_CHECKING:
    from browser_agent.store.rows import SkillRow

#: Asked when a replay of the skill failed: log in again if it stopped on its site's login
#: page because the kept session expired (see skills.logins); whether it did.
Relogin = Callable[["SkillRow"], Awaitable[bool]]


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
    arguments: dict[str, Any] | None = None  # the values it was replayed with
    made_by: str | None = None  # the skill that made the state it was replayed on
    fresh: bool = False  # it passed on values other than the example's
    fresh_tried: bool = False  # it was run on values other than the example's
    # parameters naming an element that did the command only with the example's value
    only_example: list[str] = field(default_factory=list)
    held: int | None = None  # the step it found the element of and held back (a removal)

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


async def session_run(
    function: SkillFunction,
    arguments: dict[str, str],
    skill: SkillRow,
    settings: Settings,
    browser: Browser | None,
    secrets: Mapping[str, str],
    trace_path: Path | None,
    screenshot_dir: Path | None,
    pace: float,
    relogin: Relogin | None,
    held_from: int = 0,
) -> Replay:
    """One replay with ``arguments`` in a fresh browser context, traced when asked; with no
    allow-list it stays on the sites its arguments and command templates name (or else
    the first one it opens), and nobody is asked about another; once more from the start
    when it failed on the login page and ``relogin`` logged in again. With ``held_from``,
    that step and later ones only find their elements, and no request but a GET or HEAD
    leaves the browser."""
    traced = trace_path is not None and not types_secret(arguments)
    named = [str(value) for key, value in arguments.items() if key != "start_url"]
    boundary = Boundary.of(arguments.get("start_url"), [*named, skill.command_templates])
    async with browser_session(settings, browser, boundary=boundary) as active:
        writes: list[str] = []  # the requests held back
        if held_from:
            await active.context.route("**/*", partial(_reads_only, writes))
        active.use_secrets(dict(secrets))
        if traced:
            await active.context.tracing.start(screenshots=True, snapshots=True)
            tracing_started(active.context)
        with holding_from(held_from):
            outcome = await _run(function, arguments, active, skill, screenshot_dir, pace)
        if writes and not outcome.passed:  # it did all it could without changing anything
            outcome = Replay(True, final_url=outcome.final_url, held=outcome.step)
        if held_from and not outcome.passed:
            outcome.error = (
                f"replayed with its removing step {held_from} held back: {outcome.error}"
            )
        trace = None
        if not outcome.passed and relogin is not None and not held_from:
            if traced:  # logging in types a secret, which a trace would hold: it ends here
                trace, traced = await _end_trace(active, trace_path, False), False
            if await relogin(skill):
                outcome = await _run(function, arguments, active, skill, screenshot_dir, pace)
        if traced:
            trace = await _end_trace(active, trace_path, outcome.passed)
        if trace and outcome.passed:  # passed once logged in again: nothing to look at
            Path(trace).unlink(missing_ok=True)
            trace = None
        outcome.arguments, outcome.trace = arguments, trace
    return outcome


async def _reads_only(writes: list[str], route: Route) -> None:
    """Let a GET or HEAD go on (to the session's own checks), hold back any other and
    note it in ``writes``."""
    if route.request.method in ("GET", "HEAD"):
        await route.fallback()
    else:
        writes.append(f"{route.request.method} {route.request.url}")
        await route.abort("blockedbyclient")


async def _end_trace(active: BrowserSession, path: Path | None, passed: bool) -> str | None:
    """Stop tracing ``active``'s context, keeping the trace at ``path`` when it failed."""
    kept = None if passed else path
    if kept:
        kept.parent.mkdir(parents=True, exist_ok=True)
    tracing_stopped(active.context)
    await active.context.tracing.stop(path=kept)
    return str(kept) if kept else None


def types_secret(arguments: Mapping[str, str]) -> bool:
    """Whether the arguments name a secret to type (as a ``{NAME}`` placeholder)."""
    return any(placeholders(str(value)) for value in arguments.values())


async def _run(
    function: SkillFunction,
    arguments: dict[str, str],
    active: BrowserSession,
    skill: SkillRow,
    screenshot_dir: Path | None,
    pace: float = 0.0,
) -> Replay:
    """Call the skill in ``active``'s context, its steps paced as the site's recorded steps
    (``pace``: the slowest, in seconds), and judge where it ended."""
    try:
        with paced(pace):
            await function(**arguments)
    except StepHeld as held:  # found its element, and changed nothing
        final = masked_address(active.current_page().url, active.secrets, active.secret_values)
        return Replay(True, final_url=final, held=held.step)
    except (ActionError, BrowserError) as exc:
        return Replay(
            False,
            final_url=masked_address(active.page.url, active.secrets, active.secret_values),
            step=getattr(exc, "step", None) if isinstance(exc, ActionError) else None,
            selector=getattr(exc, "selector", None),
            error=redact(str(exc), active.secrets, active.secret_values),
            screenshot=await _screenshot(active.page, screenshot_dir, skill),
            kind=classify(exc),
        )
    # a secret the skill sent in the address (a login sent by GET) is its placeholder there
    final = masked_address(active.current_page().url, active.secrets, active.secret_values)
    example = example_arguments(skill, None)
    given = " ".join(str(value) for value in arguments.values())  # values, not tokens
    ended = relative(strip_tokens(final, given))
    if skill.expected_end and not same_end(ended, skill.expected_end, example, arguments):
        if await shows_the_same(
            active.current_page(), ended, skill.expected_end, example, arguments
        ):
            return Replay(True, final_url=final)
        return Replay(
            False,
            final_url=final,
            error=f"ended on {relative(final)} instead of {skill.expected_end}",
            screenshot=await _screenshot(active.page, screenshot_dir, skill),
            kind=BROKEN,
        )
    return Replay(True, final_url=final)


async def _screenshot(page, directory: Path | None, skill: SkillRow) -> str | None:  # type: ignore[no-untyped-def]
    if directory is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{skill.name}-v{skill.version}-{int(time.time())}.png"
    try:
        await page.screenshot(path=str(path))
    except Exception:  # a screenshot is a courtesy; the failure itself is what counts
        return None
    return str(path)
