"""Telling someone about a watch's event: a command (run without a shell, its arguments
split as a shell would, the event as JSON on stdin and in environment variables) or an
http(s) URL (the event POSTed as JSON). A hook that fails is said, never raised: the
watch goes on."""

from __future__ import annotations

import json
import logging
import os
import shlex
import subprocess
import urllib.error
import urllib.request
from typing import Any

from browser_agent.errors import UserError

logger = logging.getLogger("browser_agent.watch")
TIMEOUT_S = 30
#: The event's fields a command also gets as environment variables, by variable.
ENV_FIELDS = {
    "WATCH_EVENT": "event",
    "WATCH_NAME": "watch",
    "WATCH_ID": "watch_id",
    "WATCH_STATUS": "status",
    "WATCH_MESSAGE": "message",
    "WATCH_FINAL_URL": "final_url",
    "WATCH_RUN_ID": "run_id",
}


class BadNotify(UserError):
    """A --notify that is neither a command nor an http(s) URL."""


def checked_target(target: str) -> str:
    """``target`` when it is an http(s) URL or a command line; BadNotify otherwise."""
    target = target.strip()
    if is_url(target):
        return target
    if "://" in target.split(" ", 1)[0]:
        raise BadNotify(f"--notify {target!r}: a URL to notify is http:// or https://")
    try:
        words = shlex.split(target)
    except ValueError as exc:
        raise BadNotify(f"--notify {target!r} is not a command line: {exc}") from None
    if not words:
        raise BadNotify("--notify is empty: give a command or an http(s) URL")
    return target


def is_url(target: str) -> bool:
    return target.lower().startswith(("http://", "https://"))


def notify(target: str, event: dict[str, Any]) -> str:
    """Send ``event`` to ``target``; ``sent``, or ``failed: WHY`` (also logged)."""
    try:
        said = _post(target, event) if is_url(target) else _run(target, event)
    except Exception as exc:  # any failure of the hook is reported, never raised
        said = f"{type(exc).__name__}: {exc}"
    if said:
        logger.warning("watch %s: notify %s failed: %s", event.get("watch"), target, said)
        return f"failed: {' '.join(said.split())[:300]}"
    return "sent"


def _run(target: str, event: dict[str, Any]) -> str:
    """Run the command; why it failed, or empty."""
    variables = {variable: str(event.get(name) or "") for variable, name in ENV_FIELDS.items()}
    try:
        done = subprocess.run(
            shlex.split(target),
            input=json.dumps(event),
            env={**os.environ, **variables},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        return f"no such command: {exc.filename}"
    except subprocess.TimeoutExpired:
        return f"the command did not end within {TIMEOUT_S} s"
    if done.returncode:
        error = done.stderr.strip().splitlines()
        return f"exit code {done.returncode}" + (f": {error[-1]}" if error else "")
    return ""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a place the event goes on to."""

    def redirect_request(self, *_args: Any, **_kwargs: Any) -> None:
        return None


def _post(url: str, event: dict[str, Any]) -> str:
    """POST the event; why it failed, or empty."""
    request = urllib.request.Request(
        url,
        data=json.dumps(event).encode(),
        headers={"Content-Type": "application/json", "User-Agent": "browser-agent-watch"},
        method="POST",
    )
    opener = urllib.request.build_opener(_NoRedirects)
    try:
        with opener.open(request, timeout=TIMEOUT_S) as answer:
            status = answer.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except urllib.error.URLError as exc:
        return f"cannot reach {url}: {exc.reason}"
    return f"HTTP {status} from {url}" if status >= 300 else ""
