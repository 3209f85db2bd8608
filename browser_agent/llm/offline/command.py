"""Turning a command into a plan: an ordered list of small tasks, each done on some page.

The command is cut into clauses at a connector followed by a verb ("..., then sort
by ...", "... and add it to the cart"), never inside quotes. Each clause is read by
the first pattern that fits it. The plan holds what the command says; which element
serves each task is decided later, on the page, by matching words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from browser_agent.llm.offline.form_tasks import Order
from browser_agent.llm.offline.tasks import (
    ONLY,
    VIEW_LINKS,
    Assign,
    Dismiss,
    Explore,
    Goto,
    Plan,
    Press,
    Reach,
    Read,
    Search,
    Suggest,
    Task,
)
from browser_agent.llm.offline.verbs import read_verb, settle
from browser_agent.llm.offline.words import QUOTES, content_words, items, mask_quotes, unquote
from browser_agent.words.asks import read_clause

CAN_DO = (
    "I can open a site or a named page, search, sort, add a product to the cart, log in, "
    "fill a form, click a named button or link, dismiss a cookie banner, create, edit or "
    "remove a named thing (a page, an issue…), and read a price, a count or a text."
)
LOGIN_VIA = ("log in", "login", "sign in")
CHECKOUT_VIA = ("checkout", "check out")
PRONOUNS = frozenset({"it", "this", "that", "them", "one", "this one", "the product", "this shoe"})
SORT_SYNONYMS = {
    "cheapest": "price low to high",
    "cheapest first": "price low to high",
    "lowest price": "price low to high",
    "price ascending": "price low to high",
    "most expensive": "price high to low",
    "highest price": "price high to low",
    "price descending": "price high to low",
    "popularity": "best seller",
    "most popular": "best seller",
    "best selling": "best seller",
    "bestseller": "best seller",
    "bestsellers": "best seller",
    "best sellers": "best seller",
    "top rated": "customer rating",
    "highest rated": "customer rating",
    "rating": "customer rating",
}

_VERBS = (
    r"search|find|look|sort|sorted|order by|open|go|visit|navigate|browse|head|show|view|"
    r"take me|add|put|buy|purchase|log ?in|sign ?in|log on|fill|complete|enter|type|"
    r"check ?out|place|submit|confirm|send|write|leave|click|press|tap|hit|select|choose|"
    r"pick|accept|reject|decline|dismiss|close|deny|allow|refuse|tick|check|agree|"
    r"subscribe|sign up|read|tell me|what|how many|how much|create|publish|edit|change|"
    r"update|modify|rename|remove|delete|archive"
)
_SPLIT = re.compile(
    rf"\s*(?:[,;]|\.\s|\band\b|\bthen\b)\s*(?:(?:and|then|also|finally)\s+)*(?=(?:{_VERBS})\b)"
    r"|\s+(?=sorted by\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:please|and|then|also|now|first|finally|next)\s+", re.IGNORECASE)
_URL = re.compile(
    r"^(?:https?://\S+|(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|(?:[a-z0-9-]+\.)+[a-z]{2,})"
    r"(?::\d+)?(?:/\S*)?)$",
    re.IGNORECASE,
)


_ORDINAL_WORDS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
]
_ORDINAL = re.compile(
    r"\b(?:(?P<n>\d+)(?:st|nd|rd|th)|(?P<w>" + "|".join(_ORDINAL_WORDS) + r"))\b", re.I
)
#: Nouns a command uses for a kind of element, and the roles they mean.
ROLE_NOUNS = {
    "textbox": "textbox",
    "text box": "textbox",
    "text field": "textbox",
    "text input": "textbox",
    "input": "textbox",
    "field": "textbox",
    "checkbox": "checkbox",
    "check box": "checkbox",
    "radio button": "radio",
    "radio": "radio",
    "button": "button",
    "link": "link",
    "tab": "tab",
}
_ROLE_NOUN = re.compile(
    r"\b(?P<noun>"
    + "|".join(sorted(ROLE_NOUNS, key=len, reverse=True)).replace(" ", r"\s+")
    + r")(?:es|s)?\b",
    re.IGNORECASE,
)


def ordinal(text: str) -> int:
    """The position an ordinal in ``text`` names ("3rd", "third"), or 0 when none does."""
    match = _ORDINAL.search(text)
    if not match:
        return 0
    if match["n"]:
        return int(match["n"])
    return _ORDINAL_WORDS.index(match["w"].lower()) + 1


def role_noun(text: str) -> str:
    """The role the last element noun of ``text`` names ("the input textbox" -> textbox)."""
    found = list(_ROLE_NOUN.finditer(text))
    if not found:
        return ""
    return ROLE_NOUNS[" ".join(found[-1]["noun"].lower().split())]


def quoted_values(text: str) -> list[str]:
    """The quoted parts of ``text``, without their quotes, in order."""
    return [unquote(m.group(0)) for m in QUOTES.finditer(text)]


def make_plan(command: str, start_url: str | None) -> Plan:
    """The plan of ``command``; it starts by opening the named site or the start URL."""
    tasks: list[Task] = []
    for clause in split_clauses(command):
        parsed = parse_clause(clause)
        if parsed is None:
            return Plan(problem=f'I could not understand "{clause}". {CAN_DO}')
        tasks.extend(parsed)
    tasks = settle(_resolve_pronouns(tasks))
    if not tasks:
        return Plan(problem=f"I could not find anything to do in the command. {CAN_DO}")
    if not isinstance(tasks[0], Goto):
        if not start_url:
            return Plan(
                problem="I could not tell which site to open: name it in the command "
                "(e.g. 'open example.com and ...') or give a start URL."
            )
        tasks.insert(0, Goto(start_url))
    return Plan(tasks)


def split_clauses(command: str) -> list[str]:
    """The clauses of a command, cut at connectors before verbs but never inside quotes."""
    masked = mask_quotes(command)
    cuts = [(m.start(), m.end()) for m in _SPLIT.finditer(masked)]
    clauses, start = [], 0
    for begin, end in cuts:
        clauses.append(command[start:begin])
        start = end
    clauses.append(command[start:])
    cleaned = [_LEAD.sub("", clause.strip()).strip().rstrip(".!") for clause in clauses]
    return [clause for clause in cleaned if clause]


def is_url(text: str) -> bool:
    return _URL.match(text.strip()) is not None


def _url(text: str) -> str:
    text = text.strip().rstrip(".,")
    return text if "://" in text else f"https://{text}"


def _resolve_pronouns(tasks: list[Task]) -> list[Task]:
    """'open it' means the last thing searched for or opened; with nothing before, drop it."""
    resolved: list[Task] = []
    subject = ""
    for task in tasks:
        if isinstance(task, Reach) and task.phrase.lower() in PRONOUNS:
            if subject:
                resolved.append(Reach(subject, task.search, task.kind))
            continue
        if isinstance(task, Search | Reach):
            subject = task.query if isinstance(task, Search) else task.phrase
        resolved.append(task)
    return resolved


# ---- clause patterns -------------------------------------------------------------------

Handler = Callable[[re.Match[str]], list[Task] | None]
_PATTERNS: list[tuple[re.Pattern[str], Handler]] = []


def _pattern(regex: str) -> Callable[[Handler], Handler]:
    """Register a clause pattern (case-insensitive, whole clause) and its handler."""

    def register(handler: Handler) -> Handler:
        _PATTERNS.append((re.compile(rf"^(?:{regex})$", re.IGNORECASE), handler))
        return handler

    return register


def parse_clause(clause: str) -> list[Task] | None:
    """The tasks of one clause, or None when no pattern reads it (create, edit and remove
    clauses first, see :mod:`browser_agent.llm.offline.verbs`)."""
    made = read_verb(clause)
    if made is not None:
        return made
    for regex, handler in _PATTERNS:
        match = regex.match(clause)
        if match:
            tasks = handler(match)
            if tasks is not None:
                return tasks
    return None


@_pattern(r"(?:on|at)\s+(?P<x>\S+)")
def _site(m: re.Match[str]) -> list[Task] | None:
    return [Goto(_url(m["x"]))] if is_url(m["x"]) else None


@_pattern(
    r"(?:what(?:'s|\s+is|\s+does)\s+the\s+(?:price|cost)\s+(?:of|for)"
    r"|how\s+much\s+(?:is|are|does|do|for|costs?)|(?:tell\s+me|get|find|read)\s+the\s+price\s+of)"
    r"\s+(?:the\s+|a\s+)?(?P<x>.+?)(?:\s+costs?)?\s*\??"
)
def _price(m: re.Match[str]) -> list[Task]:
    return [Read("price", unquote(m["x"]))]


@_pattern(
    r"how\s+many\s+(?P<noun>[\w-]+)(?:\s+(?:are\s+there|are|do\s+you\s+have|were\s+found|exist))?"
    r"(?:\s+(?:for|matching|that\s+match|match|about|named|called|when\s+(?:searching|i\s+search)"
    r"\s+for|in\s+a\s+search\s+for))?\s*(?P<q>.*?)\s*\??"
)
def _count(m: re.Match[str]) -> list[Task]:
    query = unquote(m["q"])
    search: list[Task] = [Search(query)] if query else []
    return [*search, Read("count", m["noun"])]


@_pattern(
    r"(?:what(?:'s|\s+is|\s+are)|tell\s+me|read(?:\s+me)?|report)\s+(?:the\s+)?(?P<x>.+?)\s*\??"
)
def _read_text(m: re.Match[str]) -> list[Task]:
    return [Read("text", unquote(m["x"]))]


@_pattern(r"(?:sort|order|sorted|ordered)(?:\s+(?:them|it|(?:the\s+)?[\w-]+))?\s+by\s+(?P<v>.+)")
def _sort(m: re.Match[str]) -> list[Task]:
    value = unquote(m["v"])
    ask = read_clause(m.group(0))
    column = ask.target if ask.kind == "sort" and ask.target else value
    return [Order(column, ask.view, SORT_SYNONYMS.get(value.lower(), value))]


@_pattern(r"(?:find|locate|look)(?:\s+(?:it|them))?")
def _lead_in(_m: re.Match[str]) -> list[Task]:
    """ "Find and click on X": the finding is part of doing the next clause."""
    return []


@_pattern(
    r"(?:switch|navigate|go|look|browse|move|click)\s+(?:between|through|across|among)\s+"
    r"(?:the\s+)?(?P<x>.+?)(?:\s+to\s+find(?:\s+it)?)?"
)
def _explore(m: re.Match[str]) -> list[Task]:
    return [Explore(m["x"])]


@_pattern(
    r"(?:enter|type|input|select|choose|pick|set)\s+(?P<v>.+?)\s+as\s+(?:the\s+|your\s+)?"
    r"(?P<f>[\w\s-]+?)"
)
def _as_the(m: re.Match[str]) -> list[Task]:
    return [Assign(keys=(m["f"],), value=unquote(m["v"]))]


@_pattern(r"(?:search|look)(?:\s+(?P<for>for|up))?\s+(?P<x>.+)|find\s+(?P<y>.+)")
def _search(m: re.Match[str]) -> list[Task]:
    if m["x"] and not m["for"]:  # "search the docs for asyncio.gather"
        scoped = re.match(r"^(?:the\s+|a\s+)?(?P<scope>[\w\s-]+?)\s+for\s+(?P<q>.+)$", m["x"])
        if scoped:
            return [Search(unquote(scoped["q"]), scoped["scope"], strict=False)]
    wanted = re.sub(
        r"\s+(?:on|in|at)\s+(?:the\s+)?(?:site|shop|store|website)$", "", m["x"] or m["y"]
    )
    scoped = re.match(
        r"^(?:the\s+)?(?:nearest\s+|closest\s+)?(?P<scope>[\w-]+)\s+"
        r"(?:near|around|close\s+to|in\s+the\s+area\s+of)\s+(?P<q>.+)$",
        wanted,
        re.IGNORECASE,
    )
    if scoped:
        return [Search(unquote(scoped["q"]), scoped["scope"])]
    return [Search(unquote(wanted))]


@_pattern(
    r"(?:add|put)\s+(?P<x>.+?)\s+(?:to|in|into)\s+(?:the\s+|my\s+)?(?:shopping\s+)?"
    r"(?:cart|basket|bag)\b(?P<rest>.*)|(?:buy|purchase)\s+(?P<y>.+)"
)
def _add(m: re.Match[str]) -> list[Task]:
    text = f"{m['x'] or m['y']} {m['rest'] or ''}"
    options: list[Task] = []
    size = re.search(r"\b(?:in\s+)?(?:a\s+)?size\s+(?P<v>[\w.]+)", text, re.IGNORECASE)
    quantity = re.search(
        r"\b(?:(?:quantity|qty)\s*(?:of\s+)?(?P<a>\d+)|(?P<b>\d+)\s+(?:pairs?|x|items?|units?)\b"
        r"(?:\s+of)?)",
        text,
        re.IGNORECASE,
    )
    for found, label in ((size, "size"), (quantity, "quantity")):
        if found:
            value = next(group for group in found.groups() if group)
            options.append(Assign(f"{label} {value}"))
            text = text.replace(found.group(0), " ")
    product = re.sub(r"^(?:(?:a|an|the|one|some)\s+)?(?:pair\s+of\s+)?", "", _squash(text))
    product = re.sub(r"\s+(?:with|in|and)$", "", product, flags=re.IGNORECASE)
    reach: list[Task] = [Reach(unquote(product))] if product else []
    button = Press(("add to cart", "add to basket", "add to bag"), role="button")
    return [*reach, *options, button]


@_pattern(
    r"(?:log\s*in|sign\s*in|log\s+on)(?:\s+(?:to|on)\s+(?:the\s+|my\s+)?(?:site|shop|account))?"
    r"(?:\s+as\s+(?P<user>\S+))?(?:\s+(?:with|using)\s+(?P<rest>.+))?"
)
def _login(m: re.Match[str]) -> list[Task]:
    keys = ("username", "user", "email", "login")
    user = [Assign(keys=keys, value=unquote(m["user"]), via=LOGIN_VIA)] if m["user"] else []
    fields = [Assign(item, via=LOGIN_VIA) for item in items(m["rest"] or "")]
    return [*user, *fields, Press(LOGIN_VIA, role="button", via=LOGIN_VIA)]


@_pattern(r"(?:check\s*out|pay)(?:\s+(?:with|using)\s+(?P<rest>.+))?")
def _checkout(m: re.Match[str]) -> list[Task]:
    if not m["rest"]:
        return [Reach("checkout", search=False)]
    return [Assign(item, via=CHECKOUT_VIA) for item in items(m["rest"])]


@_pattern(
    r"(?:fill(?:\s+(?:in|out))?|complete)\s+(?:the\s+|a\s+|my\s+)?(?P<form>[\w\s-]*?)\s*form"
    r"(?:\s+(?:with|using)\s+(?P<rest>.+))?"
)
def _fill_form(m: re.Match[str]) -> list[Task]:
    via = _via(m["form"])
    return [Assign(item, via=via) for item in items(m["rest"] or "")] or None


@_pattern(r"fill(?:\s+in|\s+out)?\s+(?:the\s+)?(?P<f>.+?)(?:\s+field)?\s+with\s+(?P<v>.+)")
def _fill_field(m: re.Match[str]) -> list[Task]:
    return [Assign(keys=(m["f"],), value=unquote(m["v"]))]


@_pattern(r"(?:send|write|leave)\s+(?:us\s+)?(?:a\s+|the\s+)?(?:message|note)\b\s*(?P<rest>.*)")
def _message(m: re.Match[str]) -> list[Task] | None:
    rest = m["rest"]
    via: tuple[str, ...] = ()
    form = re.search(
        r"\s*\b(?:through|via|using|with|in|on)\s+(?:the\s+)?(?P<f>[\w\s-]+?)\s+(?:form|page)\b",
        rest,
        re.IGNORECASE,
    )
    if form:
        via = _via(form["f"])
        rest = rest[: form.start()] + rest[form.end() :]
    quoted = QUOTES.search(rest)
    if quoted:
        message, rest = unquote(quoted.group(0)), rest[: quoted.start()] + rest[quoted.end() :]
    else:
        split = re.split(r"\s+(?:as|from)\s+", rest, maxsplit=1, flags=re.IGNORECASE)
        message, rest = unquote(split[0]), f"as {split[1]}" if len(split) > 1 else ""
    if not message:
        return None
    tasks: list[Task] = [Assign(keys=("message", "comment", "question"), value=message, via=via)]
    name = re.search(r"\b(?:as|from|with\s+(?:the\s+)?name|name)\s+(?P<n>.+)$", rest.strip(), re.I)
    if name:
        tasks.append(Assign(keys=("name", "full name"), value=unquote(name["n"]), via=via))
    return [*tasks, Press(("send", "submit"), role="button", via=via)]


@_pattern(
    r"(?:subscribe|sign\s+up)(?:\s+(?:to|for)\s+(?:the\s+)?(?:newsletter|deals|emails?))?"
    r"(?:\s+(?:with|using|as)\s+(?:(?:my|the)\s+)?(?:e-?mail(?:\s+address)?\s+)?(?P<email>\S+))?"
)
def _subscribe(m: re.Match[str]) -> list[Task]:
    email: list[Task] = [Assign(keys=("email", "e-mail"), value=m["email"])] if m["email"] else []
    return [*email, Press(("subscribe", "sign up"), role="button")]


@_pattern(
    r"(?:enter|type|input|pick|choose|select|find)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+)?"
    r"(?:that|which)\s+(?:starts|begins)\s+with\s+(?P<a>\"[^\"]*\"|\S+)"
    r"(?:\s+and\s+ends\s+with\s+(?P<b>\"[^\"]*\"|\S+))?"
)
def _autocomplete(m: re.Match[str]) -> list[Task]:
    """'Enter an item that starts with "Sa" and ends with "ino"': type the start, then
    choose the field's suggestion that fits."""
    prefix, suffix = unquote(m["a"]), unquote(m["b"] or "")
    return [Assign(keys=("text",), value=prefix), Suggest(prefix, suffix)]


_PAIR = re.compile(
    r"(?:^|\band\s+|,\s*)(?:the\s+|my\s+|your\s+)?(?P<label>[\w-]+(?:\s+[\w-]+){0,2})\s+"
    r"(?:of\s+|as\s+|is\s+|=\s*|:\s*)?"
    r"(?P<value>\"[^\"]*\"|\u201c[^\u201d]*\u201d|\{[A-Za-z_][A-Za-z0-9_]*\})",  # {NAME}: a secret
    re.IGNORECASE,
)


@_pattern(r"(?:type|enter|input|fill\s+in|put)\s+(?P<rest>.+?\S\s+[\"\u201c{].+)")
def _pairs(m: re.Match[str]) -> list[Task] | None:
    """'Enter the username "ada" and the password "x" into the fields': label-value pairs
    (a secret's placeholder, ``{PASSWORD}``, stands for a quoted value)."""
    rest = re.sub(
        r"\s+(?:in|into)\s+(?:the\s+)?(?:text\s+)?(?:fields?|boxe?s?|form|inputs?)$",
        "",
        m["rest"],
        flags=re.IGNORECASE,
    )
    pairs = list(_PAIR.finditer(rest))
    if not pairs or pairs[0].start() != 0:
        return None
    covered = "".join(rest[p.start() : p.end()] for p in pairs)
    if len(covered.strip()) < len(rest.strip()) - 2:
        return None  # words beside the pairs that they do not explain
    return [Assign(keys=(p["label"],), value=unquote(p["value"])) for p in pairs]


_LETTER_CASE = re.compile(
    r"^(?:in\s+)?(?:all\s+)?(?P<case>upper|lower)[\s-]*case(?:\s+letters)?\s+", re.IGNORECASE
)


@_pattern(
    r"(?:type|enter|write|input)\s+(?P<v>.+?)\s+(?:in|into)\s+(?:the\s+)?(?P<f>.+?)"
    r"(?:\s+(?:field|box|input))?"
)
def _type(m: re.Match[str]) -> list[Task]:
    value, field = unquote(m["v"]), m["f"]
    case = _LETTER_CASE.match(field)  # 'type "x" in all upper case letters in the box'
    if case:
        field = re.sub(r"^(?:in|into)\s+(?:the\s+)?", "", field[case.end() :], flags=re.I)
        value = value.upper() if case["case"].lower() == "upper" else value.lower()
    read = re.match(r"^the\s+(?:value|text|content|number)\s+(?:of|for)\s+(?P<x>.+)$", value, re.I)
    if read and not QUOTES.match(m["v"].strip()):  # 'enter the value of Language into ...'
        return [Assign(keys=(field,), read_from=unquote(read["x"]))]
    return [Assign(keys=(field,), value=value)]


@_pattern(
    r"(?P<verb>accept|reject|decline|dismiss|close|deny|allow|refuse)\s+(?:all\s+)?(?:the\s+)?"
    r"(?P<x>.*?)(?:\s+(?:on|at|in)\s+(?:the\s+)?(?P<where>.+?)(?:\s+page)?)?"
)
def _dismiss(m: re.Match[str]) -> list[Task]:
    verb, target = m["verb"].lower(), m["x"] or ""
    modal = re.search(r"cookie|banner|modal|pop-?up|dialog|consent|overlay|notice", target, re.I)
    if modal or not target:
        return [Dismiss(verb, _via(m["where"] or ""))]
    if verb in ("accept", "allow"):
        return [Assign(unquote(target), clicks=True)]
    return [Press((unquote(target),))]


@_pattern(
    r"(?:tick|check|agree\s+to|select|choose|pick)\s+(?:the\s+)?(?P<x>.+?)"
    r"(?:\s+(?:box|checkbox|option|radio(?:\s+button)?))?"
)
def _check(m: re.Match[str]) -> list[Task]:
    target = m["x"]
    if target.strip().lower() in ("nothing", "none", "no items", "no boxes"):
        return []  # "select nothing and click Submit"
    if ">" in target:  # a menu path: "File > Save as": point at each item, click the last
        steps = [unquote(step) for step in target.split(">") if step.strip()]
        return [Press((step,), hover=n < len(steps) - 1) for n, step in enumerate(steps)]
    return [Assign(unquote(item), clicks=True) for item in items(target)]


@_pattern(r"focus(?:\s+(?:on|into|in))?\s+(?:the\s+)?(?P<x>.+)")
def _focus(m: re.Match[str]) -> list[Task]:
    """Focusing a field is clicking it: 'focus into the 3rd input textbox'."""
    target, role = m["x"], role_noun(m["x"]) or "textbox"
    named = _ROLE_NOUN.sub(" ", target)
    if not ordinal(target) and not content_words(named):  # "the textbox": the only one
        return [Press((unquote(target),), role=role, nth=ONLY)]
    return [Press((unquote(target),), role=role, nth=ordinal(target))]


@_pattern(
    r"(?:click|press|tap|hit)(?:\s+on)?\s+(?:the\s+|an?\s+)?(?P<x>.+?)"
    r"(?:\s+(?P<role>button|link|tab|checkbox|icon|menu\s+item))?"
)
def _click(m: re.Match[str]) -> list[Task]:
    role = (m["role"] or "").lower().replace("menu item", "menuitem").replace("icon", "")
    target = m["x"]
    names = quoted_values(target)
    if names:  # 'click on the link "tempor."': the quotes hold the name, the rest its kind
        return [Press((names[0],), role=role or role_noun(QUOTES.sub(" ", target)))]
    if ordinal(target) and (role or role_noun(target)):  # "click the 3rd checkbox"
        return [Press((target,), role=role or role_noun(target), nth=ordinal(target))]
    lead = re.match(r"^(?P<noun>button|link|tab|checkbox)\s+(?P<name>\S.*)$", target, re.I)
    if lead and not role:  # "click button ONE"
        return [Press((unquote(lead["name"]),), role=lead["noun"].lower())]
    return [Press((unquote(target),), role=role)]


@_pattern(r"(?:place|submit|confirm|complete|finish)\s+(?:the\s+|my\s+|this\s+)?(?P<x>[\w\s]*)")
def _submit(m: re.Match[str]) -> list[Task] | None:
    what = (m["x"] or "").strip().lower()
    if what in ("order", "purchase", "payment"):
        phrases = ("place order", "confirm order", "submit order", "complete order", "buy now")
        return [Press(phrases, role="button")]
    if what in ("", "it", "form", "the form"):
        return [Press(("submit", "send", "save"), role="button")]
    return None


@_pattern(
    r"(?:(?:go|navigate|browse|head|return)\s+(?:back\s+)?to|open|visit|show(?:\s+me)?|view"
    r"|take\s+me\s+to|see)\s+(?P<x>.+)"
)
def _navigate(m: re.Match[str]) -> list[Task]:
    target = m["x"].strip()
    if is_url(target):
        return [Goto(_url(target))]
    asked = read_clause(m.group(0))  # "the page titled X": X, never the words around it
    if asked.kind == "open":
        return [Reach(asked.target)]
    if asked.kind == "view":
        views = VIEW_LINKS.get(asked.view, (asked.view,))
        return [Reach(asked.target), Press(views)]
    phrase = re.sub(
        r"^(?:the\s+)?(?:(?:product\s+)?(?:page|details)\s+(?:of|for)\s+)?", "", target, flags=re.I
    )
    phrase = re.sub(r"\s+(?:product\s+page|page|tab|section|product)$", "", phrase, flags=re.I)
    return [Reach(unquote(phrase))]


def _via(form: str) -> tuple[str, ...]:
    """Phrases of links that may lead to a named form or page: the name, then each word."""
    form = form.strip()
    if not form:
        return ()
    return (form, *(word for word in content_words(form) if word != form.lower()))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\s*,\s*", " ", text)).strip(" ,")
