"""The product's errors, worded so they can be shown to a model or a person.

Every error the product raises is a :class:`BrowserAgentError`. A :class:`UserError` is a
mistake the person running the command can fix (a setting, a secret, the store, no
browser to launch): the command line says it in one line with exit code 2. The rest are
failures the part that meets them handles (an action the planner is told of, a skill
that no longer fits); one that reaches the command line is one line with exit code 1.
Each class keeps the builtin it always was (``ValueError``, ``RuntimeError``) as a second
base, so code catching those still does.
"""

from __future__ import annotations


class BrowserAgentError(Exception):
    """Any error of the product."""


class UserError(BrowserAgentError):
    """A mistake the person running the command can fix (an unknown run id or skill, an
    empty command): said in one line, exit code 2."""


class BrowserError(BrowserAgentError, RuntimeError):
    """The browser itself is unusable: not found, not started, crashed or closed."""


class NoBrowser(BrowserError, UserError):
    """No browser to launch: a setup problem the person must fix; the message says how."""


class ActionError(BrowserAgentError, RuntimeError):
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


def unreadable(exc: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read as text, said after its name: "cannot be read (No such
    file or directory)" or "is not UTF-8 text"; the same words wherever a file is read."""
    if isinstance(exc, UnicodeDecodeError):
        return "is not UTF-8 text"
    return f"cannot be read ({exc.strerror or exc})"


def one_line(exc: BaseException) -> str:
    """``exc`` said in one line: the first line of its message (Playwright's go on with a
    call log), else the name of its kind, so what is stored or shown is never empty."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
