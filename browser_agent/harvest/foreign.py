"""Other agents' logs in the harvester's terms: their tools mapped onto the primitives.

Agent-E (EmergenceAI/Agent-E) is AutoGen based: its logs are message lists like this
project's, with its own tool names and argument names (``openurl(url, timeout)``,
``entertext(entry={query_selector, text})``, ``enter_text_and_click(text_selector,
text_to_enter, click_selector, wait_before_click_execution)``, ...). Its tool answers quote
the acted-on element's opening tag, and ``get_dom_with_content_type`` answers with a JSON
accessibility tree whose nodes carry the mmid.

browser-use (browser-use/browser-use) saves an ``AgentHistoryList``: per step the model's
actions (``{"click_element_by_index": {"index": 5}}``), their results, and the browser
state before them, with the attributes of each element an action used. Its elements are
numbered per observation like mmids, so an index is written as an mmid selector here.

Every call is either mapped onto a primitive with the primitive's own parameter names, or
dropped with a reason the harvest report shows. Nothing in here raises on odd input
except LogError for a history that is not one.
"""

from __future__ import annotations

import html
import inspect
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from browser_agent.harvest.calls import Call, ChatLog, LogError, problem_with
from browser_agent.harvest.elements import Tag, find_tags, role_of
from browser_agent.secrets import MASK
from browser_agent.skills.primitive import PRIMITIVES

# Calls that only look at the page (or wait): nothing to replay, nothing to report.
OBSERVING = frozenset({"get_dom", "get_url", "extract_text", "tell_user"})


@dataclass(frozen=True)
class ToolMap:
    """How one tool of another agent maps onto a primitive: the primitive, their argument
    names for its parameters, and their arguments that only tune timing."""

    primitive: str
    renames: Mapping[str, str]
    ignored: frozenset[str] = frozenset()


@dataclass
class Mapped:
    """Calls in the primitives' terms, and why some of the other agent's calls are not."""

    calls: list[Call] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def drop(self, where: str, why: str) -> None:
        """Record that the call ``where`` names was left out of the skill, and why."""
        self.dropped.append(f"{where} dropped: {why}")


def required_parameters(primitive: str) -> set[str]:
    """The parameters a primitive cannot do without."""
    signature = inspect.signature(PRIMITIVES[primitive])
    return {n for n, p in signature.parameters.items() if p.default is inspect.Parameter.empty}


def _apply(tool: ToolMap, name: str, arguments: Mapping[str, Any]) -> dict[str, Any] | str:
    """The arguments in the primitive's names, or why the call cannot be mapped."""
    unknown = sorted(set(arguments) - set(tool.renames) - tool.ignored)
    if unknown:
        listed = ", ".join(repr(u) for u in unknown)
        return f"{name} was called with {listed}, which the harvester does not know"
    mapped = {tool.renames[k]: v for k, v in arguments.items() if k in tool.renames}
    missing = sorted(required_parameters(tool.primitive) - set(mapped))
    if missing:
        return f"{name} was called without {', '.join(repr(m) for m in missing)}"
    return problem_with(tool.primitive, mapped) or mapped


# ---------------------------------------------------------------------------- Agent-E

AGENT_E_TOOLS: dict[str, ToolMap] = {
    "openurl": ToolMap("open_url", {"url": "url"}, frozenset({"timeout"})),
    "geturl": ToolMap("get_url", {}),
    "get_dom_with_content_type": ToolMap("get_dom", {"content_type": "content_type"}),
    "click": ToolMap("click", {"selector": "selector"}, frozenset({"wait_before_execution"})),
    "entertext": ToolMap("enter_text", {"query_selector": "selector", "text": "text"}),
    "enter_text_and_click": ToolMap(
        "enter_text_and_click",
        {
            "text_selector": "text_selector",
            "text_to_enter": "text",
            "click_selector": "click_selector",
        },
        frozenset({"wait_before_click_execution"}),
    ),
    "press_key_combination": ToolMap("press_key_combination", {"key_combination": "keys"}),
    "hover_on_element": ToolMap("hover", {"selector": "selector"}),
}
_BULK_ENTRY = ToolMap("enter_text", {"query_selector": "selector", "text": "text"})
# Tool and argument names only Agent-E uses: a log with any of them is an Agent-E log.
AGENT_E_ONLY_TOOLS = frozenset(
    {"openurl", "geturl", "get_dom_with_content_type", "entertext", "hover_on_element"}
)
AGENT_E_ARGUMENTS = frozenset(
    {
        "entry",
        "query_selector",
        "text_to_enter",
        "key_combination",
        "wait_before_execution",
        "wait_before_click_execution",
    }
)
AGENT_E_END = "##TERMINATE TASK##"
_CURRENT_PAGE = re.compile(r"Current Page:\s*(https?://[^\s,]+)")
# Agent-E's answer to a click on an <option> ("Success: " first when new elements appeared;
# its script click names the option's text after a colon)
_OPTION_CHOSEN = re.compile(r'^(?:Success:\s*)?Select menu option(?: "([^"]*)"|: (.*?)) selected')
_OPTION_TAG = re.compile(r"<option\b[^>]*>", re.IGNORECASE)
_MMID_SELECTOR = re.compile(r"""^\[\s*mmid\s*=\s*["']?(\d+)["']?\s*\]$""")


def speaks_agent_e(calls: list[Call], final_answer: str | None) -> bool:
    """Whether a message list was written by Agent-E (its tool or argument names, or its
    end marker), rather than by this project's planner."""
    for call in calls:
        if call.name in AGENT_E_ONLY_TOOLS or AGENT_E_ARGUMENTS & set(call.arguments):
            return True
    return AGENT_E_END in (final_answer or "")


def from_agent_e(calls: list[Call]) -> Mapped:
    """Agent-E's calls as primitive calls: arguments renamed, a bulk entry split into one
    enter_text per field, a click on an <option> made the select_option it was, the DOM
    tree written as get_dom lines, and navigations its get_url calls reveal attributed to
    the action before them."""
    mapped = Mapped()
    options: dict[str, tuple[str, dict[str, Any]]] = {}  # option mmid -> (select mmid, option)
    for number, call in enumerate(calls, start=1):
        where = f"call {number} ({call.name})"
        arguments = call.arguments
        if "__invalid__" in arguments:
            mapped.calls.append(call)  # the plan says why the stretch ends here
            continue
        if call.name == "bulk_enter_text":
            _bulk(mapped, where, call)
            continue
        tool = AGENT_E_TOOLS.get(call.name)
        if tool is None:
            mapped.drop(where, f"{call.name} is not a tool the harvester knows")
            continue
        if call.name == "entertext":
            entry = arguments.get("entry")
            if set(arguments) != {"entry"} or not isinstance(entry, dict):
                mapped.drop(where, "entertext was not called with one entry object")
                continue
            arguments = entry
        result = _apply(tool, call.name, arguments)
        if isinstance(result, str):
            mapped.drop(where, result)
            continue
        primitive, response = tool.primitive, call.response
        if primitive == "open_url":
            options = {}
        elif primitive == "get_dom":
            if _dom_nodes(response):  # a tree; a text-only look keeps the options known
                options = _options_of(response)
            response = agent_e_dom(response)
        elif (
            primitive == "enter_text_and_click"
            and result["text_selector"] == (result["click_selector"])
        ):  # Agent-E presses Enter instead of clicking the field it typed into
            primitive = "enter_text"
            result = {"selector": result["text_selector"], "text": result["text"]}
            result["press_enter"] = True
        elif primitive == "click":
            primitive, result, response = _option_click(result, response, options)
        mapped.calls.append(Call(primitive, result, response))
    _attribute_navigations(mapped.calls)
    return mapped


def _bulk(mapped: Mapped, where: str, call: Call) -> None:
    """One enter_text per entry of a bulk_enter_text, each with its own answer."""
    entries = call.arguments.get("entries")
    if set(call.arguments) != {"entries"} or not isinstance(entries, list):
        mapped.drop(where, "bulk_enter_text was not called with a list of entries")
        return
    results = _bulk_results(call.response)
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            mapped.drop(f"{where} entry {index + 1}", "the entry is not an object")
            continue
        result = _apply(_BULK_ENTRY, call.name, entry)
        if isinstance(result, str):
            mapped.drop(f"{where} entry {index + 1}", result)
            continue
        response = results.get(str(result["selector"]), call.response)
        mapped.calls.append(Call("enter_text", result, response))


def _bulk_results(response: str | None) -> dict[str, str]:
    """Agent-E answers bulk_enter_text with a JSON list of {query_selector, result}."""
    try:
        items = json.loads(response or "")
    except json.JSONDecodeError:
        return {}
    if not isinstance(items, list):
        return {}
    return {
        str(item["query_selector"]): str(item.get("result", ""))
        for item in items
        if isinstance(item, dict) and "query_selector" in item
    }


def _dom_nodes(response: str | None) -> list[dict[str, Any]]:
    """Every node of an Agent-E DOM answer (a JSON tree or list), depth first."""
    try:
        tree = json.loads(response or "")
    except json.JSONDecodeError:
        return []
    found: list[dict[str, Any]] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(reversed(node))
        elif isinstance(node, dict):
            found.append(node)
            pending.extend(reversed(node.get("children") or []))
    return found


def agent_e_dom(response: str | None) -> str | None:
    """Agent-E's DOM tree as get_dom lines (``[21] searchbox ""``); a text-only answer
    is kept as it is.

    Agent-E puts an input's name attribute where the accessible name was, so the name of
    a form field is left empty: the field is found by its attributes and checked by role.
    """
    nodes = [n for n in _dom_nodes(response) if str(n.get("mmid", "")).isdigit()]
    if not nodes:
        return response
    lines = []
    for node in nodes:
        tag = str(node.get("tag") or "")
        role = str(node.get("role") or "") or role_of(
            Tag(tag or "generic", {"type": str(node.get("tag_type") or "text")})
        )
        name = "" if tag in {"input", "textarea"} else str(node.get("name") or "")
        lines.append(f"[{node['mmid']}] {role} {json.dumps(name, ensure_ascii=False)}")
    return "\n".join(lines)


def _options_of(response: str | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """Option mmid -> (its select's mmid, the option) from an Agent-E DOM answer."""
    found = {}
    for node in _dom_nodes(response):
        for option in node.get("options") or []:
            if isinstance(option, dict) and "mmid" in option and "mmid" in node:
                found[str(option["mmid"])] = (str(node["mmid"]), option)
    return found


def _option_click(
    arguments: dict[str, Any], response: str | None, options: dict[str, tuple[str, dict]]
) -> tuple[str, dict[str, Any], str | None]:
    """Agent-E clicks an <option> to choose it (and then selects it in its <select>): that
    is a select_option on the select the DOM showed it in, or, when no DOM answer showed
    the option, on the <select> holding the option its answer quotes."""
    chosen = _OPTION_CHOSEN.match(response or "")
    if not chosen:
        return "click", arguments, response
    mmid = _MMID_SELECTOR.match(str(arguments.get("selector", "")))
    if mmid and mmid.group(1) in options:
        select, option = options[mmid.group(1)]
        value = str(option.get("value", chosen.group(1) or ""))
        label = str(option.get("text") or value)
        said = f"Selected option {value!r} ({label}) in <select>. {response}"
        return "select_option", {"selector": f"[mmid='{select}']", "option": value}, said
    quoted = _OPTION_TAG.search(response or "")
    value = find_tags(quoted.group(0))[0].attributes.get("value") if quoted else chosen.group(1)
    if not value:
        return "click", arguments, response
    said = f"Selected option {value!r} ({chosen.group(2) or value}) in the menu holding it."
    selector = f'select:has(option[value="{_css_string(value)}"])'
    return "select_option", {"selector": selector, "option": value}, said


def _css_string(value: str) -> str:
    """``value`` inside a double-quoted CSS string."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _attribute_navigations(calls: list[Call]) -> None:
    """Agent-E's actions do not say where the page went; its later get_url does. A new
    URL there is where the last action before it led."""
    known = ""
    last_action: Call | None = None
    for call in calls:
        if call.name == "open_url":
            known, last_action = str(call.arguments.get("url", "")), None
            loaded = re.search(r"Page loaded:\s*(\S+?),? Title", call.response or "")
            known = loaded.group(1) if loaded else known
        elif call.name == "get_url":
            current = _CURRENT_PAGE.search(call.response or "")
            if current and current.group(1) != known:
                known = current.group(1)
                if last_action is not None and "navigated to" not in (last_action.response or ""):
                    last_action.response = (
                        f"{last_action.response or ''} Page navigated to {known}."
                    )
        elif call.name not in OBSERVING:
            last_action = call


# ------------------------------------------------------------------------- browser-use

BROWSER_USE_TOOLS: dict[str, ToolMap] = {
    # 0.1.x names, then the names of later releases
    "go_to_url": ToolMap("open_url", {"url": "url"}),
    "navigate": ToolMap("open_url", {"url": "url"}),
    "click_element_by_index": ToolMap("click", {"index": "selector"}),
    "click_element": ToolMap("click", {"index": "selector"}),
    "click": ToolMap("click", {"index": "selector"}),
    "input_text": ToolMap("enter_text", {"index": "selector", "text": "text"}),
    "input": ToolMap("enter_text", {"index": "selector", "text": "text"}),
    "select_dropdown_option": ToolMap("select_option", {"index": "selector", "text": "option"}),
    "select_dropdown": ToolMap("select_option", {"index": "selector", "text": "option"}),
    "send_keys": ToolMap("press_key_combination", {"keys": "keys"}),
    "go_back": ToolMap("go_back", {}),
    "extract_content": ToolMap("extract_text", {}, frozenset({"goal", "should_strip_link_urls"})),
    "extract_structured_data": ToolMap("extract_text", {}, frozenset({"query", "extract_links"})),
    "extract": ToolMap("extract_text", {}, frozenset({"query", "extract_links"})),
}
# Arguments that change nothing when they hold these values (a plain left click, say).
_HARMLESS = {
    "xpath": (None,),
    "right_click": (False,),
    "while_holding_ctrl": (False,),
    "new_tab": (False,),
    "clear": (True,),
}
_BROWSER_USE_LOOKING = frozenset({"get_dropdown_options", "wait", "scroll_to_text"})
_SCROLLS = {"scroll_down": "down", "scroll_up": "up"}
_SECRET_PLACEHOLDER = re.compile(r"^<secret>[^<>]*</secret>$")
_CLICKED_TEXT = re.compile(r"Clicked (?:button|element) with index \d+: (.+)$", re.DOTALL)


def is_browser_use_history(data: Any) -> bool:
    """Whether parsed JSON is a saved browser-use AgentHistoryList."""
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        return False
    steps = data["history"]
    return bool(steps) and all(
        isinstance(s, dict) and {"model_output", "result", "state"} <= set(s) for s in steps
    )


def browser_use_task(data: dict[str, Any], meta: dict[str, Any]) -> str | None:
    """The command of a browser-use run: browser-use keeps the task outside the history,
    so it comes from the metadata beside the file (``command`` or ``task``), or from a
    ``task`` key a wrapper stored with the history."""
    for value in (meta.get("command"), meta.get("task"), data.get("task")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def read_browser_use(data: dict[str, Any], path: Path | str, meta: dict[str, Any]) -> ChatLog:
    """A browser-use history as a ChatLog: one call per action, the element each acted
    on quoted in its answer, navigations read off the next step's URL."""
    command = browser_use_task(data, meta)
    if command is None:
        sidecar = Path(path).with_suffix(".meta.json").name
        raise LogError(
            path,
            "is a browser-use history, which does not record its task; put the command "
            f'in {sidecar} beside it, as {{"command": "..."}}',
        )
    mapped, final, success = Mapped(), None, None
    steps = data["history"]
    for position, step in enumerate(steps):
        output = step.get("model_output")
        state = step.get("state") if isinstance(step.get("state"), dict) else {}
        actions = output.get("action") if isinstance(output, dict) else None
        if not isinstance(actions, list):
            continue
        results = step.get("result") if isinstance(step.get("result"), list) else []
        elements = state.get("interacted_element")
        elements = elements if isinstance(elements, list) else []
        done_here = len(mapped.calls)
        for index, action in enumerate(actions):
            where = f"step {position + 1} action {index + 1}"
            if index >= len(results):
                break  # browser-use stopped this step's actions early (the page changed)
            result = results[index] if isinstance(results[index], dict) else {}
            element = elements[index] if index < len(elements) else None
            if not isinstance(action, dict) or len(action) != 1:
                mapped.drop(where, "the action is not one named call")
                continue
            ((name, params),) = action.items()
            if name == "done":
                params = params if isinstance(params, dict) else {}
                final = str(params.get("text") or result.get("extracted_content") or "")
                success = params.get("success", result.get("success", True)) is not False
                continue
            _browser_use_call(mapped, f"{where} ({name})", name, params, result, element)
        _navigation(mapped.calls[done_here:], state, steps[position + 1 :])
    status = meta.get("status")  # trusted only with a done action that says so
    succeeded = success is True and (status == "succeeded" if status else True)
    first_open = next((c for c in mapped.calls if c.name == "open_url"), None)
    return ChatLog(
        path=str(path),
        command=command,
        calls=mapped.calls,
        final_answer=final,
        succeeded=succeeded,
        run_id=meta.get("id"),
        start_url=meta.get("start_url") or (first_open.arguments["url"] if first_open else None),
        meta=meta,
        dropped=mapped.dropped,
    )


def _browser_use_call(
    mapped: Mapped,
    where: str,
    name: str,
    params: Any,
    result: dict[str, Any],
    element: Any,
) -> None:
    """Map one browser-use action (with its result and element) onto a primitive call."""
    if name in _BROWSER_USE_LOOKING:
        return
    params = params if isinstance(params, dict) else {}
    if name in _SCROLLS:
        if params.get("amount") is not None:
            mapped.drop(where, "scrolling by a number of pixels has no primitive")
        else:
            mapped.calls.append(Call("scroll", {"direction": _SCROLLS[name]}, _said(result)))
        return
    tool = BROWSER_USE_TOOLS.get(name)
    if tool is None:
        mapped.drop(where, f"{name} is not an action the harvester knows")
        return
    kept = {k: v for k, v in params.items() if v not in _HARMLESS.get(k, ())}
    arguments = _apply(tool, name, kept)
    if isinstance(arguments, str):
        mapped.drop(where, arguments)
        return
    response = _said(result)
    if "selector" in arguments:
        index = arguments["selector"]
        arguments["selector"] = f"[mmid='{index}']"  # an index per observation, like mmid
        described = _element_html(element, result)
        response = f"{response} Element [mmid='{index}']: {described}" if described else response
    if isinstance(arguments.get("text"), str) and _SECRET_PLACEHOLDER.match(arguments["text"]):
        arguments["text"] = MASK  # browser-use already kept the secret out of the file
    mapped.calls.append(Call(tool.primitive, arguments, response))


def _said(result: dict[str, Any]) -> str:
    """What browser-use reported for an action; a failed action reads as an error."""
    if result.get("error"):
        return f"Error: {result['error']}"
    return str(result.get("extracted_content") or "")


def _element_html(element: Any, result: dict[str, Any]) -> str:
    """The element an action used, written as HTML: browser-use 0.1 records tag_name,
    xpath and attributes; later releases node_name, x_path, attributes and node_value.
    Visible text comes from the click's report when the record has none."""
    if not isinstance(element, dict):
        return ""
    tag = str(element.get("tag_name") or element.get("node_name") or "").lower()
    if not re.fullmatch(r"[a-z][a-z0-9-]*", tag):
        return ""
    attributes = element.get("attributes") if isinstance(element.get("attributes"), dict) else {}
    text = str(element.get("node_value") or element.get("ax_name") or "").strip()
    clicked = _CLICKED_TEXT.search(str(result.get("extracted_content") or ""))
    if not text and clicked:
        text = clicked.group(1).strip()
    return render_tag(tag, {str(k): str(v) for k, v in attributes.items()}, text)


def render_tag(tag: str, attributes: Mapping[str, str], text: str = "") -> str:
    """An element as HTML, every value escaped, as a tool answer would quote it."""
    quoted = "".join(
        f' {name}="{html.escape(value, quote=True)}"'
        for name, value in attributes.items()
        if re.fullmatch(r"[a-zA-Z_:][-a-zA-Z0-9_:.]*", name)
    )
    if tag in {"input", "img", "br", "hr", "meta", "link"}:
        return f"<{tag}{quoted}>"
    return f"<{tag}{quoted}>{html.escape(text)}</{tag}>"


def _navigation(calls: list[Call], state: dict[str, Any], later: list[Any]) -> None:
    """browser-use records each step's URL before its actions; when the next step starts
    elsewhere, the step's last action led there."""
    actions = [c for c in calls if c.name not in OBSERVING]
    if not actions or not later or not isinstance(later[0], dict):
        return
    after = later[0].get("state") if isinstance(later[0].get("state"), dict) else {}
    before, url = str(state.get("url") or ""), str(after.get("url") or "")
    last = actions[-1]
    moved = url.startswith(("http://", "https://")) and url != before
    if moved and "navigated to" not in (last.response or "").lower():
        last.response = f"{last.response or ''} Page navigated to {url}.".strip()
