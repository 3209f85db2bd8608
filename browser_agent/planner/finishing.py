"""How a planner run ends: the errors that end it, and a finish call checked against the
page it ends on (the values the command gave, the searches it asked for)."""

from __future__ import annotations

import json
from typing import Any

from browser_agent.browser.session import BrowserSession
from browser_agent.errors import BrowserAgentError, BrowserError
from browser_agent.llm.types import ToolCall
from browser_agent.planner.tool_calls import answer_message
from browser_agent.skills.end_state import end_state
from browser_agent.words.values import command_values, search_terms

TERMINATE = "##TERMINATE##"
MAX_REFUSED_FINISHES = 1  # an unverified finish said back; the next one ends the run
NOT_FINISHED = (
    "Not finished: {why} Do the part of the task that is missing, then call finish again."
)
UNSEARCHED = (
    " To search for {term!r}, type it into the site's search box with enter_text and "
    "press_enter true."
)


class RunFailed(BrowserAgentError):
    """The run ended without doing the task; the message says why."""

    def __init__(self, reason: str, answer: str | None = None) -> None:
        super().__init__(reason)
        self.answer = answer


class RunUnverified(BrowserAgentError):
    """The run ended, but its final page does not show the command done; the message says
    what it does not show."""

    def __init__(self, reason: str, answer: str) -> None:
        super().__init__(reason)
        self.answer = answer


def used_values(messages: list[dict[str, Any]]) -> list[str]:
    """The texts the run typed and the options it chose (from its tool calls, a list of
    fields to fill too)."""
    found: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            found.extend(value[k] for k in ("text", "option") if isinstance(value.get(k), str))
            for item in value.values():
                if isinstance(item, list | dict):
                    collect(item)

    for message in messages:
        for call in message.get("tool_calls") or []:
            try:
                collect(json.loads(call["function"]["arguments"] or "{}"))
            except (KeyError, TypeError, json.JSONDecodeError):
                continue
    return found


async def finished(
    active: BrowserSession,
    command: str,
    messages: list[dict[str, Any]],
    call: ToolCall,
    answer: str,
    say_back: bool,
) -> str | None:
    """End the run with a finish call ``execute`` accepted, answering the call in
    ``messages``: its answer; RunFailed when it says the task could not be done,
    RunUnverified when the page it ends on does not show the values the command gave, or a
    search it did not type (see end_state). With ``say_back`` such a finish is said back
    instead (None): the model may still do what is missing."""
    answer = answer.replace(TERMINATE, "").strip()
    if json.loads(call.arguments)["success"] is False:
        messages.append(answer_message(call, "Finished."))
        raise RunFailed(answer or "The model gave up.", answer=answer)
    used = used_values(messages)
    values = command_values(command, used)
    try:
        end = await end_state(
            active.current_page(),
            values,
            active.secrets,
            search_terms(command, used),
            command=command,
            refused=active.refused,
            acted=active.acted,
        )
    except BrowserError as exc:
        messages.append(answer_message(call, "Finished."))
        raise RunUnverified(f"the final page could not be read: {exc}", answer=answer) from exc
    if not end.shown and say_back:
        said = NOT_FINISHED.format(why=end.said())
        if end.unsearched:  # the way to what is missing, on any site with a search box
            said += UNSEARCHED.format(term=end.unsearched[0])
        messages.append(answer_message(call, said))
        return None
    messages.append(answer_message(call, "Finished."))
    if end.wrong or end.status is not None:
        said = f"The end state is wrong: {end.said()}"
        raise RunFailed(said, answer=f"{answer} {said}".strip())
    if not end.shown:
        raise RunUnverified(end.said(), answer=answer)
    return answer
