"""Which URLs the browser may open: http and https only (``file:`` when a setting says so)
and, when an allow-list of domains is set, only those domains and their subdomains."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol
from urllib.parse import urlparse, urlsplit

from browser_agent.errors import ActionError, UserError
from browser_agent.sites.allow_list import ANY_SITE
from browser_agent.sites.ports import checked_port

WEB_SCHEMES = ("http", "https")
EMPTY_PAGE = "about:blank"
ALLOW_DOMAIN_HELP = (
    "Open only this domain and its subdomains (repeatable; a comma-separated list too; '*' "
    "for every site); replaces BROWSER_AGENT_ALLOWED_DOMAINS for this command. Unset: the "
    "start site and the sites the command names."
)
# A scheme, but not a host name followed by a port ("localhost:8080").
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:(?!\d)")


class SiteRules(Protocol):
    """What the policy reads of the settings (browser_agent.settings.Settings holds it)."""

    @property
    def allowed_domains(self) -> tuple[str, ...]: ...

    @property
    def allow_file_urls(self) -> bool: ...


def refusal(url: str, settings: SiteRules) -> str | None:
    """Why the browser may not open ``url`` under these settings, in a sentence for the
    planner and for people; None when it may."""
    if url == EMPTY_PAGE:
        return None
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    if scheme == "file" and settings.allow_file_urls:
        return None
    if scheme not in WEB_SCHEMES:
        hint = " (BROWSER_AGENT_ALLOW_FILE_URLS=true allows file: URLs)" if scheme == "file" else ""
        return f"Refusing to open a {scheme}: URL: only http and https sites are opened{hint}."
    host = (parsed.hostname or "").lower()
    if settings.allowed_domains and not on_list(host, settings.allowed_domains):
        allowed = ", ".join(settings.allowed_domains)
        return (
            f"The navigation to {host or url} was refused: it is not an allowed site "
            f"(allowed: {allowed})."
        )
    return None


def on_list(host: str, domains: Iterable[str]) -> bool:
    """``host`` is one of ``domains`` or a subdomain of one (IP addresses match exactly);
    ``*`` is every host."""
    host = host.strip("[]").rstrip(".")
    return any(d == ANY_SITE or host == d.strip("[]") or host.endswith(f".{d}") for d in domains)


def normalize_url(url: str, settings: SiteRules) -> str:
    """Add a scheme to bare host names; refuse what the settings do not let the browser
    open (other schemes than http and https, sites off the allow-list)."""
    url = url.strip()
    if not url:
        raise ActionError("No URL was given.", kind="invalid")
    if not _SCHEME.match(url):
        local = url.startswith(("localhost", "127.", "[::1]"))
        url = ("http://" if local else "https://") + url
    why = refusal(url, settings)
    if why is not None:
        raise ActionError(why, kind="refused")
    return url


def openable(url: str, settings: SiteRules) -> str:
    """``url`` as open_url opens it; a URL that names no site, or one the settings refuse
    (a ``file:`` URL, a site off the allow-list), is a UserError (one line, exit code 2)."""
    try:
        target = normalize_url(url, settings)
        named = target.startswith("file:") or _site_name(target)
    except ActionError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:  # urllib: an unclosed [ of an IPv6 address and the like
        raise UserError(f"{url!r} is not a web address: {exc}") from None
    if not named:
        raise UserError(f"{url!r} names no site: give one like https://example.com")
    return target


#: A URL of the machine's own files or the browser's own pages, written in a command.
_LOCAL_URL = re.compile(r"\b(?:file:[^\s\"'<>]+|chrome://[^\s\"'<>]*)", re.IGNORECASE)


def command_urls_refused(command: str, settings: SiteRules) -> None:
    """A command that names a ``file:`` (or ``chrome:``) URL the settings do not let the
    browser open is the user's mistake, said before the browser starts (UserError: one
    line, exit code 2); the planner would only be refused it later."""
    for found in _LOCAL_URL.finditer(command):
        url = found[0].rstrip(".,;:!?)]}")
        why = refusal(url, settings)
        if why is not None:
            raise UserError(f"The command names {url}. {why}")


def _site_name(url: str) -> bool:
    """True when ``url`` has a host name that can be looked up (letters, digits, dots and
    dashes, or an IP address)."""
    host = urlsplit(url).hostname or ""
    return bool(host) and all(c.isalnum() or c in ".-:" for c in host)


def checked_start(command: str, url: str | None, settings: SiteRules, said: str = "url") -> None:
    """Refuse, with one line, a run the settings do not allow: a start address (``said``
    names it, ``--url`` on the command line) with a bad port or on a site not allowed,
    or a command that names one."""
    if url:
        try:
            checked_port(url)
        except ValueError as exc:
            raise UserError(f"{said} {url}: {exc}") from None
        openable(url, settings)
    command_urls_refused(command, settings)
