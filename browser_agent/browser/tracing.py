"""A Playwright trace of each run (``trace.zip``, for ``playwright show-trace``), kept as
the ``trace`` setting says, with every secret of the run masked in it."""

from __future__ import annotations

import json
import logging
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus
from weakref import WeakKeyDictionary

from playwright.async_api import BrowserContext

logger = logging.getLogger("browser_agent.tracing")

# The contexts being traced, each with whether a step's group of actions is open in it.
_GROUPS: WeakKeyDictionary[BrowserContext, bool] = WeakKeyDictionary()


def tracing_started(context: BrowserContext) -> None:
    """Note that ``context`` records a trace: its steps group their actions from now on."""
    _GROUPS[context] = False


def tracing_stopped(context: BrowserContext) -> None:
    _GROUPS.pop(context, None)


async def step_group(context: BrowserContext, title: str | None) -> None:
    """Close the open step's group of actions in the trace and open one named ``title``
    (None: only close it), so that the trace reads step by step as the run's log does
    (``playwright show-trace`` folds each step's low-level actions under its name). Nothing
    when the context records no trace."""
    if context not in _GROUPS:
        return
    try:
        if _GROUPS[context]:
            _GROUPS[context] = False
            await context.tracing.group_end()
        if title:
            await context.tracing.group(title)
            _GROUPS[context] = True
    except Exception as exc:  # a closed context: the trace is kept as far as it went
        logger.debug("no step group in the trace: %s", exc)


MODES = ("off", "on-failure", "always")
MASK = b"********"
MIN_COOKIE_MASKED = 8  # shorter cookie values (flags, counters) would mask unrelated text


@dataclass
class RunTrace:
    """The trace of one run's browser context, recorded from ``start`` on (again a no-op)
    and kept by ``keep`` as the mode says for the run's outcome."""

    context: BrowserContext
    mode: str
    recording: bool = False

    async def start(self) -> None:
        """Start recording unless the mode is off or it already records."""
        if self.mode == "off" or self.recording:
            return
        try:
            await self.context.tracing.start(screenshots=False, snapshots=True)
        except Exception as exc:  # a remote browser that cannot trace: the run goes on
            logger.warning("no trace for this run: %s", exc)
            return
        self.recording = True
        tracing_started(self.context)

    async def keep(self, failed: bool, path: Path, secrets: Iterable[str]) -> Path | None:
        """Stop recording; the trace is written to ``path`` when the mode keeps it for
        this outcome, else dropped. The run's secrets and the values of its cookies (logins)
        are masked in it. None when no trace was kept."""
        if not self.recording:
            return None
        self.recording = False
        tracing_stopped(self.context)
        kept = self.mode == "always" or (self.mode == "on-failure" and failed)
        try:
            cookies = [c.get("value", "") for c in await self.context.cookies()] if kept else []
            await self.context.tracing.stop(path=path if kept else None)
        except Exception as exc:  # a closed or crashed browser: nothing to keep
            logger.warning("the run's trace could not be saved: %s", exc)
            path.unlink(missing_ok=True)
            return None
        if not kept:
            return None
        mask_secrets(path, [*secrets, *(c for c in cookies if len(c) >= MIN_COOKIE_MASKED)])
        return path


def secret_forms(secrets: Iterable[str]) -> list[bytes]:
    """Each secret as a trace may hold it: as typed, URL-encoded, escaped in JSON; longest
    first, so no shorter one masks part of a longer one."""
    forms: set[bytes] = set()
    for secret in secrets:
        if not secret:
            continue
        for text in (secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]):
            forms.add(text.encode())
    return sorted(forms, key=len, reverse=True)


def mask_secrets(path: Path, secrets: Iterable[str]) -> None:
    """Rewrite the trace with every form of every secret replaced by ``********``, in the
    events and in every resource (request bodies, DOM snapshots); owner-only."""
    forms = secret_forms(secrets)
    masked = path.with_name(path.name + ".masking")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(masked, "w", zipfile.ZIP_DEFLATED) as out:
        for entry in source.infolist():
            data = source.read(entry)
            for form in forms:
                data = data.replace(form, MASK)
            out.writestr(entry.filename, data)
    os.chmod(masked, 0o600)
    masked.replace(path)
