"""The product's errors, worded so they can be shown to a model or a person."""

from __future__ import annotations


class UserError(Exception):
    """A mistake the person running the command can fix (an unknown run id or skill, an
    empty command): said in one line, exit code 2."""


class BrowserError(RuntimeError):
    """The browser itself is unusable: not found, not started, crashed or closed."""


class NoBrowser(BrowserError):
    """No browser to launch: a setup problem the person must fix; the message says how."""


class ActionError(RuntimeError):
    """An action could not be carried out on the page.

    ``kind`` names the failure (``not_found``, ``ambiguous``, ``hidden``, ``changed``,
    ``timeout``, ``navigation``, ``invalid``, ``refused`` for a site that may not be opened)
    and ``selector`` the locator involved, so callers such as the validator can record
    which selector went stale.
    """

    def __init__(self, message: str, *, kind: str, selector: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.selector = selector
