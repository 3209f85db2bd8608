"""Dialogs and cookie banners: which button answers one the way the command says, and
closing a modal that covers the page before the task's own target is looked for."""

from __future__ import annotations

from browser_agent.llm.offline.outcome import Action, Situation
from browser_agent.llm.offline.page import Element, Page
from browser_agent.llm.offline.tasks import Press, Task
from browser_agent.llm.offline.words import covers, precision, words

_ACCEPT = ("accept", "agree", "allow", "ok", "got it")
_REJECT = ("reject", "decline", "deny", "refuse", "necessary only")
_CLOSE = ("close", "dismiss", *_REJECT, "no thanks", "not now", "cancel", *_ACCEPT)
#: Buttons that close a dialog, by the verb of the command, in order of preference.
_CONSENT = {
    **dict.fromkeys(("accept", "allow"), _ACCEPT),
    **dict.fromkeys(("reject", "decline", "deny", "refuse"), _REJECT),
    **dict.fromkeys(("dismiss", "close"), _CLOSE),
}
_CONSENT_WORDS = frozenset(w for phrases in _CONSENT.values() for p in phrases for w in words(p))


def modal_first(task: Task, situation: Situation) -> Action | None:
    """A modal covers the page: close it first, unless the task's target is in it."""
    page = situation.page
    if not page.modal or "modal" in situation.prepared:
        return None
    if isinstance(task, Press) and any(set(words(p)) & _CONSENT_WORDS for p in task.phrases):
        return None
    button = consent_button(page, "dismiss")
    if button is None:
        return None
    return Action(
        "click",
        {"selector": button.selector},
        f"close the dialog that covers the page ({button.describe()})",
        "prepare",
        "modal",
    )


def consent_button(page: Page, choice: str) -> Element | None:
    """The button or link that answers a dialog the way ``choice`` says (accept, reject,
    dismiss), in order of preference."""
    buttons = [e for e in page.interactive() if e.role in ("button", "link")]
    for phrase in _CONSENT.get(choice, _CONSENT["dismiss"]):
        for button in buttons:
            if covers(button.name, phrase) and precision(phrase, button.name) >= 0.5:
                return button
    return None
