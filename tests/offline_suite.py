"""The offline planner's command suite on the demo shop, shared by the tests and the bench.

Each case runs a command through ``run_command`` and is then checked against what the
shop and the browser really hold: the final URL, the form submissions the server
received, the cart and consent cookies, the store results in the shadow DOM. What
the planner says is only trusted for read commands, and there its answer is compared
with the shop's catalog. Refusals must end failed, with a "could not" answer, having
touched nothing but (at most) the site search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from playwright.async_api import Browser
from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.browser.session import session
from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.catalog import PRODUCTS, decode_cart, find_stores, search
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.models import Step

PRICES = {product.name: product.price_text for product in PRODUCTS}


@dataclass
class Probe:
    """The offline planner, plus a look at the real browser just before the run finishes."""

    planner: OfflinePlanner = field(default_factory=OfflinePlanner)
    name: str = "offline"
    cookies: dict[str, str] = field(default_factory=dict)
    stores: list[str] = field(default_factory=list)

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """Answer as the planner; when it finishes, record cookies and store results."""
        reply = await self.planner.complete(messages, tools)
        if any(call.name == "finish" for call in reply.tool_calls):
            active = session()
            self.cookies = {c["name"]: c["value"] for c in await active.context.cookies()}
            results = active.current_page().locator("[data-testid=store]")
            self.stores = await results.all_inner_texts()
        return reply

    def cart(self) -> list[tuple[str, int, int]]:
        """The cart cookie as (slug, size, quantity) lines."""
        lines = decode_cart(self.cookies.get("cart", ""))
        return [(line.product.slug, line.size, line.quantity) for line in lines]


@dataclass
class Outcome:
    """What a case gets to check: the run, the probe, the new form submissions, the store."""

    result: RunResult
    probe: Probe
    submissions: list[dict]
    demo: DemoSite
    store: Engine

    @property
    def path(self) -> str:
        return urlsplit(self.result.final_url or "").path

    @property
    def query(self) -> dict[str, str]:
        query = parse_qs(urlsplit(self.result.final_url or "").query)
        return {key: values[0] for key, values in query.items()}

    def submitted(self, form: str) -> dict[str, str]:
        [fields] = [s["fields"] for s in self.submissions if s["form"] == form]
        return fields


@dataclass(frozen=True)
class Case:
    """One command, where it starts, and how to check the shop afterwards.

    A refusal case names the start of the "could not" answer it expects instead.
    """

    command: str
    check: Callable[[Outcome], None]
    start: str = "/"
    variant: str = "normal"
    refusal: str = ""


def searched(query: str, sort: str | None = None) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert o.path == "/search"
        params = o.query
        assert params.get("q", params.get("query")) == query
        if sort:
            assert params.get("sort", params.get("order")) == sort

    return check


def on_page(path: str) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert o.path == path

    return check


def in_cart(*lines: tuple[str, int, int]) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert o.path == "/cart"
        assert o.probe.cart() == list(lines)

    return check


def logged_in(o: Outcome) -> None:
    assert o.path == "/account"
    assert o.probe.cookies.get("session") == o.demo.session_token
    assert o.submitted("login") == {"username": "demo", "password": "***"}


def ordered(o: Outcome) -> None:
    assert o.path == "/order/confirmation"
    number = o.query["order"]
    order = o.demo.order(number)
    assert order is not None
    assert [(line.product.slug, line.size, line.quantity) for line in order.lines] == [
        ("trail-blazer-2", 42, 1)
    ]
    assert o.submitted("checkout") == {
        "full_name": "Ada Lovelace",
        "email": "ada@example.com",
        "address": "12 Analytical Row",
        "city": "London",
        "postal_code": "N1 9GU",
        "country": "GB",
        "shipping": "express",
        "terms": "yes",
    }
    assert number in o.result.answer  # the order number it was asked to read is the real one


def consent(choice: str) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert o.probe.cookies.get("consent") == choice
        assert o.path == "/deals"

    return check


def dismissed_then_searched(o: Outcome) -> None:
    """The banner that covered the deals page was rejected, then the search was made."""
    assert o.probe.cookies.get("consent") == "rejected"
    searched("sandals")(o)


def answered_price(name: str) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert f"The price of {name} is {PRICES[name]}" in o.result.answer

    return check


def answered_count(query: str) -> Callable[[Outcome], None]:
    def check(o: Outcome) -> None:
        assert o.path == "/search" and o.query.get("q") == query
        assert f"{len(search(query))} results" in o.result.answer

    return check


def messaged(o: Outcome) -> None:
    assert o.submitted("contact") == {"name": "Ada Lovelace", "message": "Where is my order?"}
    assert "Thanks, Ada Lovelace! Your message has been sent" in o.result.answer


def found_stores(o: Outcome) -> None:
    expected = [store.name for store in find_stores("Berlin")]
    assert expected and [text.split(",")[0] for text in o.probe.stores] == expected
    assert all(name in o.result.answer for name in expected)


CHECKOUT = (
    "add Trail Blazer 2 to the cart, check out with name Ada Lovelace, email ada@example.com, "
    "address 12 Analytical Row, city London, postal code N1 9GU, country United Kingdom, "
    "express shipping, accept the terms and place the order, then tell me the order number"
)
MESSAGE = 'send the message "Where is my order?" as Ada Lovelace through the help contact form'

CASES = {
    "sort-price-asc": Case(
        "search for trail shoes and sort by price low to high",
        searched("trail shoes", "price_asc"),
    ),
    "sort-best-seller": Case(
        "search for running shoes, then sort by best seller",
        searched("running shoes", "best_seller"),
    ),
    "sort-price-desc": Case(
        "find hiking shoes sorted by price high to low", searched("hiking shoes", "price_desc")
    ),
    "sort-rating": Case(
        "search for sandals and sort by customer rating", searched("sandals", "rating")
    ),
    "open-linked-product": Case("open Trail Blazer 2", on_page("/product/trail-blazer-2")),
    "open-searched-product": Case(
        "open the product page of Summit Trail Runner", on_page("/product/summit-trail-runner")
    ),
    "add-size-quantity": Case(
        "add Road Glide 5 in size 44, quantity 2 to the cart", in_cart(("road-glide-5", 44, 2))
    ),
    "add-this-product": Case(
        "add it in size 40 to the cart", in_cart(("mud-dog", 40, 1)), start="/product/mud-dog"
    ),
    "log-in": Case("log in as demo with password secret123", logged_in),
    "add-and-check-out": Case(CHECKOUT, ordered),
    "accept-cookies": Case("go to deals and accept the cookies", consent("accepted")),
    "dismiss-cookies": Case("dismiss the cookie banner on the deals page", consent("rejected")),
    "modal-in-the-way": Case("go to deals and search for sandals", dismissed_then_searched),
    "read-listed-price": Case(
        "what is the price of Trail Blazer 2", answered_price("Trail Blazer 2")
    ),
    "read-searched-price": Case(
        "what is the price of Canyon Scout", answered_price("Canyon Scout")
    ),
    "read-count": Case("how many results are there for trail", answered_count("trail")),
    "contact-iframe": Case(MESSAGE, messaged),
    "stores-shadow-dom": Case("find stores near Berlin", found_stores),
    "redesign-add-to-cart": Case(
        "add Road Glide 5 in size 44, quantity 2 to the cart",
        in_cart(("road-glide-5", 44, 2)),
        variant="redesign",
    ),
}


def untouched(o: Outcome) -> None:
    """Nothing was clicked, chosen or submitted; at most the site search was typed into."""
    with Session(o.store) as db:
        steps = db.exec(select(Step).where(Step.run_id == o.result.run_id)).all()
    acted = [s for s in steps if s.tool not in ("open_url", "get_dom")]
    searches = [s for s in acted if s.tool == "enter_text" and 'id="search-box"' in s.response]
    assert acted == searches, [s.tool for s in acted]
    assert o.submissions == [] and o.probe.cart() == []


REFUSALS = {
    "nothing-to-buy": Case(
        "buy a flight to Paris", untouched, refusal='Could not find a link to "flight to Paris"'
    ),
    "no-such-button": Case(
        "click the unicorn button", untouched, refusal='Could not find a button named "unicorn"'
    ),
    "no-such-option": Case(
        "sort by distance",
        untouched,
        start="/search?q=trail",
        refusal='Could not find the option "distance" in the combobox "Sort by"',
    ),
    "not-understood": Case(
        "fly me to the moon", untouched, refusal='I could not understand "fly me to the moon"'
    ),
}


async def run_case(
    case: Case, settings: Settings, browser: Browser, demo: DemoSite, store: Engine
) -> Outcome:
    """Run the case's command from its demo page with the probing planner."""
    demo.variant = case.variant
    probe = Probe()
    before = len(demo.submissions)
    result = await run_command(
        case.command,
        probe,
        settings,
        start_url=f"{demo.url}{case.start}",
        browser=browser,
        engine=store,
        max_steps=25,
    )
    return Outcome(result, probe, demo.submissions[before:], demo, store)


def verify(case: Case, outcome: Outcome) -> None:
    """Raise AssertionError unless the run ended as the case expects."""
    result = outcome.result
    if case.refusal:
        assert result.status == "failed", result.answer
        assert result.answer.startswith(case.refusal), result.answer
    else:
        assert result.status == "succeeded", result.answer
        assert result.llm_calls == result.steps + 1  # one tool call per answer, then finish
    case.check(outcome)
