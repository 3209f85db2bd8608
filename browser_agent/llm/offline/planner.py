"""The offline planner: a deterministic stand-in for an LLM that answers with tool calls.

Each call rebuilds everything from the messages: the plan from the command, how far
it got from the markers of its earlier answers, the page from the last get_dom
result. It then either looks at the page (after every page change), takes the next
step of the plan, or finishes: with the page title and URL, with the text it read,
or with a "could not" answer when nothing on the page matches well enough.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from browser_agent.dom.page_content import PAGE_START
from browser_agent.llm.offline.command import make_plan
from browser_agent.llm.offline.form_tasks import FormTask
from browser_agent.llm.offline.forms import do_form_task
from browser_agent.llm.offline.history import OBSERVING, History, Turn, read_history
from browser_agent.llm.offline.outcome import Action, Blocked, Done, Outcome, Situation, where
from browser_agent.llm.offline.page import Page, parse_page
from browser_agent.llm.offline.reading import read
from browser_agent.llm.offline.resolve import find_fill, resolve
from browser_agent.llm.offline.tasks import Assign, Goto, Plan, Read, Task
from browser_agent.llm.types import LLMReply, ToolCall

TERMINATE = "##TERMINATE##"
_ERROR = re.compile(
    r"\b(?:invalid|incorrect|error|failed|is required|must be|please (?:correct|enter|fill|"
    r"choose|select)|not found|could not|unable to|too many)\b",
    re.IGNORECASE,
)
_HTTP_ERROR = re.compile(r"\(HTTP [45]\d\d\)")
_MAX_NEWS = 6


class OfflinePlanner:
    """An LLM client with no model behind it; also a sync test-server policy when called."""

    name = "offline"

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """The next tool call for this conversation (the LLMClient protocol)."""
        return plan_next(messages, tools)

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """The same answer, synchronously (the test LLM server's policy signature)."""
        return plan_next(messages, tools)


@dataclass
class View:
    """The pages the history shows: the current one (None when stale) and the one before."""

    page: Page | None
    before: Page | None
    last_act: Turn | None
    looked_since_act: bool
    more: int = 0  # the window of the page below the one observed (0: none)


def plan_next(messages: list[dict], tools: list[dict]) -> LLMReply:
    """Decide the next step from the conversation alone."""
    history = read_history(messages)
    reply = _Reply(history, tools)
    if not history.command:
        return reply.finish(False, "I could not find the task in the conversation.")
    plan = make_plan(history.command, history.start_url)
    if plan.problem:
        return reply.finish(False, plan.problem)
    reply.total = len(plan.tasks)
    index, prepared, tried = _progress(history)
    view = _view(history)
    if view.last_act is not None and view.last_act.failed and not _tried_menu(view.last_act):
        task = _task_of(view.last_act, plan)
        return reply.finish(False, could_not(task, view.last_act.response))
    if index < len(plan.tasks) and isinstance(plan.tasks[index], Goto):
        return reply.act(index, index, resolve(plan.tasks[index], Situation(Page())))
    if view.page is None:
        return reply.look(min(index, len(plan.tasks) - 1), "all_fields")
    problem = _new_error(view, plan)
    if problem:
        return reply.finish(False, problem)
    final = history.turns[-1].marker
    if final is not None and final.phase == "final":
        return reply.finish(True, _answer(history, view, []))
    return _advance(plan, index, (prepared, tried), view, reply)


def _tried_menu(turn: Turn) -> bool:
    """A menu that would not open: passed over, as a person tries the next one."""
    return turn.marker is not None and turn.marker.kind == "menu"


def _advance(
    plan: Plan, index: int, steps: tuple[list[str], list[str]], view: View, reply: _Reply
) -> LLMReply:
    """Skip tasks already done on this page, then act on the first that needs a step
    (``steps``: the kinds of the prepare steps taken for it, and what each said)."""
    page = view.page or Page()
    notes: list[str] = []
    for position in range(index, len(plan.tasks)):
        task = plan.tasks[position]
        if isinstance(task, Read) and view.last_act is not None and not view.looked_since_act:
            return reply.look(position, "all_fields")  # a read needs the page after the act
        situation = Situation(page)
        if position == index:
            prepared, tried = steps
            said, read = _answers(view, reply.history)
            situation = Situation(page, prepared, said, read, tried, reply.history.visited())
        outcome = _step(task, situation)
        if isinstance(outcome, Done):
            if outcome.note:
                notes.append(outcome.note)
            continue
        if isinstance(outcome, Blocked) and view.more:  # what it needs may be further down
            return reply.look(position, "all_fields", window=view.more)
        if isinstance(outcome, Blocked):
            return reply.finish(False, _could_not(outcome.reason, reply.history))
        last = position
        if outcome.phase == "act" and outcome.tool == "enter_text":
            outcome, last = _batch(plan.tasks, position, page, outcome)
        return reply.act(position, last, outcome, notes)
    if view.last_act is not None and not view.looked_since_act:
        return reply.look(len(plan.tasks) - 1, "text_only", phase="final")
    return reply.finish(True, _answer(reply.history, view, notes))


def _step(task: Task, situation: Situation) -> Outcome:
    """The next step of ``task`` on the page: a create, edit or remove task's by its form, a
    read's by what the page says, any other's by the element it finds and uses."""
    if isinstance(task, FormTask):
        return do_form_task(task, situation)
    if isinstance(task, Read):
        return read(task, situation)
    return resolve(task, situation)


def _answers(view: View, history: History) -> tuple[str, str]:
    """The answer to the last action, and to a read the current task took since."""
    said = (view.last_act.response or "") if view.last_act is not None else ""
    last = history.turns[-1] if history.turns else None
    read = last.response or "" if last and last.name == "extract_text" else ""
    return said, read


def _batch(tasks: list[Task], first: int, page: Page, action: Action) -> tuple[Action, int]:
    """Fold the following text-field tasks on the same page into one bulk_enter_text call."""
    if action.arguments.get("press_enter"):
        return action, first
    entries = [{"selector": action.arguments["selector"], "text": action.arguments["text"]}]
    notes = [action.note]
    last = first
    for position in range(first + 1, len(tasks)):
        task = tasks[position]
        fill = find_fill(task, page) if isinstance(task, Assign) else None
        if fill is None or fill.how != "type":
            break
        entries.append({"selector": fill.element.selector, "text": fill.value})
        shown = "(the password)" if fill.element.is_password else fill.value
        notes.append(f'type "{shown}" into {fill.element.describe()}')
        last = position
    if last == first:
        return action, first
    return Action("bulk_enter_text", {"entries": entries}, "; ".join(notes)), last


def _progress(history: History) -> tuple[int, list[str], list[str]]:
    """The index of the current task, and the prepare steps already taken for it: their
    kinds, and what each said it did."""
    acting = [t for t in history.turns if t.marker and t.marker.phase in ("act", "prepare")]
    if not acting:
        return 0, [], []
    last = acting[-1].marker
    assert last is not None
    if last.phase == "act":
        return last.last + 1, [], []
    kinds, tried = [], []
    for turn in reversed(acting):
        if turn.marker and turn.marker.phase == "prepare" and turn.marker.first == last.first:
            kinds.append(turn.marker.kind)
            tried.append(turn.content)
        else:
            break
    return last.first, kinds, tried


def _view(history: History) -> View:
    """Walk the turns: which observation is current, and what the page was before the last act."""
    latest: Page | None = None
    before: Page | None = None
    stale = True
    last_act: Turn | None = None
    looked = False
    more = 0
    for turn in history.turns:
        if turn.name == "get_dom" and turn.response and not turn.failed:
            latest, stale, looked = parse_page(turn.response), False, True
            below = _BELOW.search(turn.response.partition(PAGE_START)[0])
            more = int(below["page"]) if below else 0
        elif turn.name not in OBSERVING:
            before, last_act, looked = latest, turn, False
            opened = turn.marker is not None and turn.marker.kind == "menu"
            if turn.changed_page or opened or turn.name in ("open_url", "go_back", "hover"):
                stale = True
    return View(None if stale else latest, before, last_act, looked, 0 if stale else more)


# The observation's line that says a later window of the page holds more elements.
_BELOW = re.compile(r"\d+ below \(get_dom page=(?P<page>\d+)")


def _new_error(view: View, plan: Plan) -> str:
    """A page that answered the last action with an error message, said as a "could not"
    (an action that only opened a menu is answered by none)."""
    act = view.last_act
    if act is None or not view.looked_since_act or view.page is None:
        return ""
    if act.marker is not None and act.marker.kind == "menu":  # a menu opened does no task:
        return ""  # a message shown meanwhile is the page's own (a panel loaded late)
    if act.name == "open_url":  # a page opened answers with its status, not its words
        if act.response and _HTTP_ERROR.search(act.response):
            return f"Could not {_task_of(act, plan)}: {act.response}"
        return ""
    seen = set(view.before.texts) if view.before else set()
    for text in view.page.texts:
        if text not in seen and _ERROR.search(text):
            return f'Could not {_task_of(act, plan)}: the page says "{text}" ({where(view.page)}).'
    return ""


def could_not(task: str, response: str | None) -> str:
    """``Could not TASK: WHY`` from a failed action's answer, said once: the answer's
    ``Error:`` mark goes, and an answer that already says it could not do the same thing
    ("Could not open URL: ...", as open_url fails) is the whole message."""
    why = (response or "").strip().removeprefix("Error:").strip()
    verb = task.split(maxsplit=1)[0] if task.strip() else ""
    if verb and why.lower().startswith(f"could not {verb.lower()}"):
        return why
    return f"Could not {task}: {why}"


def _task_of(turn: Turn, plan: Plan) -> str:
    if turn.marker is None or turn.marker.first >= len(plan.tasks):
        return f"do {turn.name}"
    return plan.tasks[turn.marker.first].describe()


def _answer(history: History, view: View, notes: list[str]) -> str:
    """The final answer: what was read, or what was done; and where the browser is now."""
    page = view.page or Page()
    read = [*history.notes(), *notes]
    if read:
        return f"{'; '.join(read)} (read on {where(page)})."
    done = [
        turn.content.split(": ", 1)[1].split("\n")[0].rstrip(".")
        for turn in history.turns
        if turn.marker and turn.marker.phase in ("act", "prepare") and ": " in turn.content
    ]
    news = ""
    if view.last_act is not None and not _navigated(view.last_act) and view.before is not None:
        seen = set(view.before.texts)
        fresh = [t.rstrip(".") for t in page.texts if t not in seen][:_MAX_NEWS]
        if fresh:
            news = f" The page now shows: {'; '.join(fresh)}."
    steps = "; ".join(done) if done else "nothing needed doing"
    return f"Done: {steps}. The page is now {where(page)}.{news}"


def _navigated(turn: Turn) -> bool:
    return turn.name in ("open_url", "go_back") or "Page navigated to" in (turn.response or "")


def _could_not(reason: str, history: History) -> str:
    """A "Could not ..." answer that also says when nothing on the page was touched."""
    touched = any(t.name not in OBSERVING | {"open_url"} for t in history.turns)
    untouched = "" if touched else " Nothing on the page was clicked or typed into."
    return f"{reason[0].upper()}{reason[1:]}.{untouched}"


class _Reply:
    """Builds the planner's answers: one tool call each, with a progress marker in the text."""

    def __init__(self, history: History, tools: list[dict]) -> None:
        self.history = history
        self.total = 0
        names = {t.get("function", {}).get("name") for t in tools}
        self.finish_tool = not tools or "finish" in names

    def act(
        self, first: int, last: int, action: Action, notes: list[str] | None = None
    ) -> LLMReply:
        phase = action.phase + (f" {action.kind}" if action.kind else "")
        return self._call(first, last, phase, action.note, action.tool, action.arguments, notes)

    def look(self, index: int, content_type: str, phase: str = "look", window: int = 0) -> LLMReply:
        note = "look at the page" if phase == "look" else "look at the page once more to report"
        arguments: dict[str, Any] = {"content_type": content_type}
        if window:
            note, arguments["page"] = f"look further down the page (window {window})", window
        return self._call(index, index, phase, note, "get_dom", arguments)

    def finish(self, success: bool, answer: str) -> LLMReply:
        if not self.finish_tool:
            return LLMReply(f"{answer} {TERMINATE}")
        arguments = json.dumps({"answer": answer, "success": success}, ensure_ascii=False)
        return LLMReply(
            "Finished." if success else "Giving up.",
            [ToolCall(self._id(), "finish", arguments)],
        )

    def _call(
        self,
        first: int,
        last: int,
        phase: str,
        note: str,
        tool: str,
        arguments: dict[str, Any],
        notes: list[str] | None = None,
    ) -> LLMReply:
        steps = f"{first + 1}-{last + 1}" if last > first else str(first + 1)
        plural = "s" if last > first else ""
        content = f"Plan step{plural} {steps}/{self.total} ({phase}): {note}."
        content += "".join(f"\nNoted: {n}" for n in notes or [])
        arguments_json = json.dumps(arguments, ensure_ascii=False)
        return LLMReply(content, [ToolCall(self._id(), tool, arguments_json)])

    def _id(self) -> str:
        return f"call_{self.history.answers + 1}"
