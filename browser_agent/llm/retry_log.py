"""Each retry the openai SDK makes, logged with its reason: the SDK retries (bounded, with
backoff, honouring ``Retry-After`` and ``retry-after-ms``) but says why only at debug
level, so an HTTP transport notes how each attempt of a call failed and logs it when the
SDK sends the request again (the request's ``x-stainless-retry-count`` header)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from time import monotonic

import httpx2

logger = logging.getLogger("browser_agent.llm")

RETRY_COUNT_HEADER = "x-stainless-retry-count"


@dataclass
class Attempts:
    """The attempts of one model call: how many were sent, and why the last one failed."""

    sent: int = 0
    failure: str | None = None
    failed_at: float = 0.0


_call: ContextVar[Attempts | None] = ContextVar("browser_agent_llm_call", default=None)


@contextmanager
def attempts_of_call() -> Iterator[Attempts]:
    """The attempts the transport records for the model call made inside this block."""
    attempts = Attempts()
    token = _call.set(attempts)
    try:
        yield attempts
    finally:
        _call.reset(token)


class RetryLogTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport that logs every retry of a model call with why the attempt before
    it failed (HTTP status, timeout, connection error) and how long the SDK waited."""

    def __init__(self, label: str, max_retries: int, timeout_s: float) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.label = label
        self._max_retries = max_retries
        self._timeout_s = timeout_s

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        attempts = _call.get()
        if attempts is None:  # not a call of ours (the SDK asked nothing else yet)
            return await self._inner.handle_async_request(request)
        attempts.sent += 1
        if attempts.failure and request.headers.get(RETRY_COUNT_HEADER, "0") != "0":
            logger.warning(
                "%s: %s; retry %s/%d after %.2fs",
                self.label,
                attempts.failure,
                request.headers[RETRY_COUNT_HEADER],
                self._max_retries,
                monotonic() - attempts.failed_at,
            )
        attempts.failure = None
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TimeoutException:
            self._failed(attempts, f"timed out after {self._timeout_s}s")
            raise
        except httpx2.TransportError as exc:
            self._failed(attempts, f"connection error ({exc})")
            raise
        if response.status_code >= 400:
            why = _status_reason(response.status_code) + _asked_wait(response.headers)
            self._failed(attempts, why)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _failed(self, attempts: Attempts, why: str) -> None:
        attempts.failure, attempts.failed_at = why, monotonic()


def _asked_wait(headers: httpx2.Headers) -> str:
    """What the server asked the client to wait (``retry-after-ms`` or ``Retry-After`` in
    seconds), as the SDK reads it; "" when it asked nothing readable."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return f"; the server asked to wait {float(headers[name]) / scale:g} s"
        except (KeyError, ValueError):
            continue
    return ""


def _status_reason(status: int) -> str:
    """A few words for an HTTP error status of the model server."""
    if status == 429:
        return "rate limited (HTTP 429)"
    if status >= 500:
        return f"server error (HTTP {status})"
    return f"HTTP {status}"
