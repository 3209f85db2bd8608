"""Tests of the bundled demo shop: plain HTTP for the pages, one real browser for the JS."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser
from typing import Any

import pytest
from playwright.async_api import Browser
from playwright.async_api import Error as PlaywrightError

from browser_agent.demo_site import DemoSite, start_demo_site

TRAIL_SHOES = {
    "trail-blazer-2",
    "summit-trail-runner",
    "ridge-runner-gtx",
    "mud-dog",
    "canyon-scout",
    "forest-sprint",
    "ridgeline-hiker",
    "trail-sandal-pro",
}
VALID_CHECKOUT = {
    "full_name": "Ada Lovelace",
    "email": "ada@example.com",
    "address": "12 Analytical Street",
    "city": "London",
    "postal_code": "W1B 1AA",
    "country": "GB",
    "shipping": "express",
    "terms": "yes",
}
REDESIGN_CHECKOUT_NAMES = {
    "full_name": "customer_name",
    "email": "customer_email",
    "address": "street",
    "city": "town",
    "postal_code": "zip",
    "country": "country_code",
    "shipping": "delivery",
    "terms": "accept_terms",
}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class Reply:
    status: int
    headers: Message
    text: str

    def cookie(self, name: str) -> str | None:
        """The value this reply sets for cookie ``name``, if it sets one."""
        for header in self.headers.get_all("Set-Cookie") or []:
            key, _, rest = header.partition("=")
            if key == name:
                return rest.split(";")[0]
        return None


def fetch(url: str, form: dict[str, str] | None = None, cookie: str = "") -> Reply:
    """GET (or POST ``form``) without following redirects."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data, headers={"Cookie": cookie} if cookie else {})
    try:
        with _OPENER.open(request, timeout=5) as response:
            return Reply(response.status, response.headers, response.read().decode())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, error.headers, error.read().decode())


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {key: value or "" for key, value in attrs}))


def tags(html: str) -> list[tuple[str, dict[str, str]]]:
    """Every start tag of the page with its attributes, in document order."""
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def ids(html: str) -> list[str]:
    return [attrs["id"] for _, attrs in tags(html) if "id" in attrs]


def result_slugs(html: str) -> list[str]:
    return [attrs["data-slug"] for _, attrs in tags(html) if attrs.get("data-testid") == "result"]


@pytest.fixture
def site() -> Iterator[DemoSite]:
    with start_demo_site() as running:
        yield running


@pytest.fixture
def products(site: DemoSite) -> list[dict[str, Any]]:
    return json.loads(fetch(site.url + "/api/products").text)


def test_api_lists_the_catalog(products: list[dict[str, Any]]) -> None:
    assert len(products) == 24
    assert len({p["slug"] for p in products}) == 24
    assert {p["category"] for p in products} == {"Trail", "Running", "Hiking", "Sandals"}


def test_search_for_trail_shoes_finds_every_trail_word(site: DemoSite) -> None:
    reply = fetch(site.url + "/search?q=trail+shoes")
    assert reply.status == 200
    assert set(result_slugs(reply.text)) == TRAIL_SHOES
    assert '8 results for "trail shoes"' in reply.text.replace("&quot;", '"')
    assert 'href="/product/trail-blazer-2"' in reply.text
    assert "$89.00" in reply.text


def test_search_needs_every_word_and_says_when_nothing_matches(site: DemoSite) -> None:
    assert result_slugs(fetch(site.url + "/search?q=TRAIL+sandal").text) == ["trail-sandal-pro"]
    assert len(result_slugs(fetch(site.url + "/search?q=shoes").text)) == 24
    nothing = fetch(site.url + "/search?q=zebra")
    assert result_slugs(nothing.text) == []
    assert "No products match" in nothing.text


@pytest.mark.parametrize(
    ("sort", "key"),
    [
        ("best_seller", lambda p: (p["sales_rank"], p["slug"])),
        ("price_asc", lambda p: (p["price_cents"], p["slug"])),
        ("price_desc", lambda p: (-p["price_cents"], p["slug"])),
        ("rating", lambda p: (-p["rating"], p["slug"])),
    ],
)
def test_sort_orders_follow_the_catalog(
    site: DemoSite, products: list[dict[str, Any]], sort: str, key: Callable[[Any], tuple]
) -> None:
    matching = [p for p in products if p["slug"] in TRAIL_SHOES]
    expected = [p["slug"] for p in sorted(matching, key=key)]
    for param in ("sort", "order"):
        page = fetch(f"{site.url}/search?q=trail+shoes&{param}={sort}").text
        assert result_slugs(page) == expected
        assert f'<option value="{sort}" selected>' in page


def test_unsorted_search_keeps_catalog_order_with_featured_selected(
    site: DemoSite, products: list[dict[str, Any]]
) -> None:
    page = fetch(site.url + "/search?query=trail+shoes&sort=bogus").text
    assert result_slugs(page) == [p["slug"] for p in products if p["slug"] in TRAIL_SHOES]
    assert '<option value="featured" selected>Featured</option>' in page
    labels = re.findall(r'<option value="(\w+)"[^>]*>([^<]+)</option>', page)
    assert labels[1:] == [
        ("best_seller", "Best seller"),
        ("price_asc", "Price: low to high"),
        ("price_desc", "Price: high to low"),
        ("rating", "Customer rating"),
    ]


def test_product_page_and_404s(site: DemoSite) -> None:
    page = fetch(site.url + "/product/summit-trail-runner").text
    assert "<h1>Summit Trail Runner</h1>" in page
    assert '<p id="price" class="price">$129.00</p>' in page
    sizes = [a["value"] for tag, a in tags(page) if tag == "option"]
    assert sizes == [str(size) for size in range(38, 47)]
    assert '<input type="number" id="quantity" name="quantity" value="1" min="1"' in page
    assert '<button id="add-to-cart" type="submit">Add to cart</button>' in page
    for path in ("/product/no-such-shoe", "/nowhere", "/static/../server.py", "/cart/add"):
        reply = fetch(site.url + path)
        assert reply.status == 404
        assert "Page not found" in reply.text
    assert fetch(site.url + "/order/confirmation?order=DS-9999").status == 404


def test_cart_lives_in_a_cookie(site: DemoSite) -> None:
    added = fetch(site.url + "/cart/add", {"slug": "trail-blazer-2", "size": "42", "quantity": "2"})
    assert (added.status, added.headers["Location"]) == (303, "/cart")
    cookie = f"cart={added.cookie('cart')}"
    assert cookie == "cart=trail-blazer-2:42:2"
    again = fetch(site.url + "/cart/add", {"slug": "mud-dog", "size": "44", "qty": "1"}, cookie)
    cookie = f"cart={again.cookie('cart')}"
    cart = fetch(site.url + "/cart", cookie=cookie).text
    assert "Cart (3)" in cart
    assert "$178.00" in cart and "$74.50" in cart
    assert '<p id="cart-total">Total: $252.50</p>' in cart
    assert cart.count(">Remove</button>") == 2
    assert 'href="/checkout">Checkout</a>' in cart
    removed = fetch(site.url + "/cart/remove", {"line": "trail-blazer-2:42"}, cookie)
    assert removed.cookie("cart") == "mud-dog:44:1"
    fresh = fetch(site.url + "/cart").text
    assert "Your cart is empty." in fresh and "Cart (0)" in fresh


@pytest.mark.parametrize(
    "value", ["garbage", "mud-dog:44:1|mud-dog:44:2", "mud-dog:99:1", "<script>:42:1", "x" * 5000]
)
def test_malformed_cart_cookie_is_an_empty_cart(site: DemoSite, value: str) -> None:
    page = fetch(site.url + "/cart", cookie=f"cart={value}").text
    assert "Your cart is empty." in page
    assert "<script>" not in page


def test_invalid_add_to_cart_shows_errors(site: DemoSite) -> None:
    reply = fetch(site.url + "/cart/add", {"slug": "mud-dog", "size": "12", "quantity": "0"})
    assert reply.status == 200 and reply.cookie("cart") is None
    assert "Size must be from 38 to 46" in reply.text
    assert "Quantity must be a whole number from 1 to 99" in reply.text


def test_login_success_and_failure_with_masked_passwords(site: DemoSite) -> None:
    failed = fetch(site.url + "/login", {"username": "demo", "password": "wrong"})
    assert failed.status == 200 and "Invalid username or password" in failed.text
    ok = fetch(site.url + "/login", {"username": "demo", "password": "secret123"})
    assert (ok.status, ok.headers["Location"]) == (303, "/account")
    account = fetch(site.url + "/account", cookie=f"session={ok.cookie('session')}")
    assert "Welcome, demo" in account.text
    assert fetch(site.url + "/account").headers["Location"] == "/login"
    assert site.submissions == [
        {"form": "login", "fields": {"username": "demo", "password": "***"}},
        {"form": "login", "fields": {"username": "demo", "password": "***"}},
    ]


def test_checkout_validation_names_missing_fields(site: DemoSite) -> None:
    reply = fetch(site.url + "/checkout", {"full_name": "Ada", "email": "not-an-email"})
    assert reply.status == 200
    for error in (
        "Address is required",
        "City is required",
        "Postal code is required",
        "Country is required",
        "Shipping is required",
        "Terms must be accepted",
        "Email must be a valid email address",
    ):
        assert error in reply.text
    assert "Full name is required" not in reply.text
    assert 'id="full-name" name="full_name" value="Ada"' in reply.text


def test_checkout_confirms_with_sequential_order_numbers(site: DemoSite) -> None:
    cookie = "cart=canyon-scout:41:1"
    first = fetch(site.url + "/checkout", VALID_CHECKOUT, cookie)
    assert (first.status, first.headers["Location"]) == (303, "/order/confirmation?order=DS-1001")
    assert first.cookie("cart") == ""
    page = fetch(site.url + first.headers["Location"]).text
    assert '<strong id="order-number">DS-1001</strong>' in page
    assert "Thank you, Ada Lovelace!" in page
    assert '<span id="order-total">$114.00</span>' in page
    redesigned = {REDESIGN_CHECKOUT_NAMES[key]: value for key, value in VALID_CHECKOUT.items()}
    second = fetch(site.url + "/checkout?variant=redesign", redesigned)
    assert second.headers["Location"] == "/order/confirmation?order=DS-1002"
    assert [s["fields"] for s in site.submissions] == [VALID_CHECKOUT, VALID_CHECKOUT]


def test_contact_and_newsletter_submissions_are_recorded(site: DemoSite) -> None:
    frame = fetch(site.url + "/help/contact-frame", {"name": "Bo", "message": "Size 47?"})
    assert "Thanks, Bo! Your message has been sent." in frame.text
    news = fetch(site.url + "/newsletter", {"newsletter_email": "bo@example.com"})
    assert "Deals will go to bo@example.com" in news.text
    assert site.submissions == [
        {"form": "contact", "fields": {"name": "Bo", "message": "Size 47?"}},
        {"form": "newsletter", "fields": {"email": "bo@example.com"}},
    ]


def test_redesign_renames_and_moves_but_keeps_login_and_help(site: DemoSite) -> None:
    search = ids(fetch(site.url + "/search?query=trail&variant=redesign").text)
    assert {"q-input", "go", "order-by", "order-apply", "hit-count", "site-links"} <= set(search)
    assert not {"search-box", "search-submit", "sort", "result-count", "main-nav"} & set(search)
    assert search.index("site-links") > search.index("hit-count")
    product = ids(fetch(site.url + "/product/mud-dog?variant=redesign").text)
    assert product.index("buy-now") < product.index("shoe-size") < product.index("qty")
    assert not {"add-to-cart", "quantity", "size", "price"} & set(product)
    checkout = ids(fetch(site.url + "/checkout?variant=redesign").text)
    assert checkout.index("customer-email") < checkout.index("customer-name")
    assert not {"full-name", "email", "place-order"} & set(checkout)
    normal_login = fetch(site.url + "/login").text
    redesign_login = fetch(site.url + "/login?variant=redesign").text
    form = normal_login[normal_login.index('<form id="login-form"') :]
    assert form[: form.index("</form>")] in redesign_login
    assert '<iframe id="contact-frame" src="/help/contact-frame" title="Contact form"' in (
        fetch(site.url + "/help?variant=redesign").text
    )


def test_swapped_gives_old_ids_to_other_controls_and_the_server_records_which(
    site: DemoSite,
) -> None:
    product = fetch(site.url + "/product/mud-dog?variant=swapped").text
    assert '<button id="add-to-wishlist" type="submit">Add to cart</button>' in product
    assert (
        '<button id="add-to-cart" type="submit" formaction="/wishlist/add">Add to wishlist'
        in product
    )
    assert "Add to wishlist" not in fetch(site.url + "/product/mud-dog").text
    wished = fetch(site.url + "/wishlist/add", {"slug": "mud-dog", "size": "42", "quantity": "1"})
    assert (wished.status, wished.headers["Location"], wished.cookie("cart")) == (
        303,
        "/product/mud-dog",
        None,
    )
    carted = fetch(site.url + "/cart/add", {"slug": "mud-dog", "size": "42", "qty": "1"})
    assert carted.cookie("cart") == "mud-dog:42:1"
    assert fetch(site.url + "/wishlist/add", {"slug": "no-such-shoe"}).status == 404
    assert site.submissions == [
        {"form": "wishlist", "fields": {"slug": "mud-dog"}},
        {"form": "cart", "fields": {"slug": "mud-dog", "size": "42", "quantity": "1"}},
    ]
    # the sort select sends a parameter the server does not read: the results stay unsorted
    search = fetch(site.url + "/search?q=trail&variant=swapped").text
    assert '<select id="sort" name="sort_by"' in search
    ignored = fetch(site.url + "/search?q=trail&sort_by=price_asc&variant=swapped").text
    assert result_slugs(ignored) == result_slugs(fetch(site.url + "/search?q=trail").text)
    checkout = fetch(site.url + "/checkout?variant=swapped").text
    assert ids(checkout) == ids(fetch(site.url + "/checkout").text)


def test_variant_switches_the_live_site(site: DemoSite) -> None:
    assert 'id="search-box"' in fetch(site.url + "/").text
    site.variant = "redesign"
    assert 'id="q-input"' in fetch(site.url + "/").text
    assert 'id="search-box"' in fetch(site.url + "/?variant=normal").text
    with pytest.raises(ValueError):
        site.variant = "retro"


def test_query_text_is_escaped(site: DemoSite) -> None:
    nasty = "<script>\"'"
    page = fetch(site.url + "/search?" + urllib.parse.urlencode({"q": nasty})).text
    assert nasty not in page
    assert "&lt;script&gt;&quot;&#x27;" in page
    missing = fetch(site.url + "/" + urllib.parse.quote("<b>x</b>")).text
    assert "<b>x</b>" not in missing


def test_every_page_has_the_hidden_fixtures(site: DemoSite) -> None:
    expected = ["aria-hidden", "display-none", "visibility-hidden", "input-hidden", "zero-size"]
    paths = ["/", "/search?q=x", "/product/mud-dog", "/cart", "/login", "/checkout", "/deals"]
    for path in [*paths, "/help", "/stores", "/big?n=50", "/nope"]:
        page = tags(fetch(site.url + path).text)
        marks = [attrs["data-demo-hidden"] for _, attrs in page if "data-demo-hidden" in attrs]
        assert marks == expected, path


def test_big_page_has_about_n_elements(site: DemoSite) -> None:
    assert 9_500 <= len(tags(fetch(site.url + "/big?n=10000").text)) <= 10_500
    capped = len(tags(fetch(site.url + "/big?n=999999").text))
    assert 49_000 <= capped <= 51_000


def ctrl_c_as_on_a_terminal() -> None:
    """In the child: SIGINT does what Ctrl-C does in a terminal, even when the suite itself
    runs where SIGINT is ignored (a background job inherits that, and Python then raises no
    KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_command_line_serves_until_interrupted() -> None:
    command = [sys.executable, "-m", "browser_agent.demo_site", "--port", "0"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_on_a_terminal
    ) as process:
        assert process.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:\d+", process.stdout.readline())
        assert url is not None
        assert fetch(url.group() + "/").status == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0


async def test_browser_deals_modal_delayed_deals_and_sort_select(
    site: DemoSite, browser: Browser
) -> None:
    context = await browser.new_context()  # the Chromium the product finds and launches
    try:
        page = await context.new_page()
        await page.goto(site.url + "/deals")
        dialog = page.get_by_role("dialog", name="Cookie consent")
        assert await dialog.is_visible()
        assert await page.get_by_test_id("deal").count() == 0
        with pytest.raises(PlaywrightError):
            await page.get_by_role("link", name="Home").click(trial=True, timeout=300)
        async with page.expect_navigation():
            await dialog.get_by_role("button", name="Accept all").click()
        assert await dialog.count() == 0
        await page.get_by_role("link", name="Home").click(trial=True, timeout=1000)
        await page.get_by_test_id("deal").first.wait_for(timeout=5000)
        assert await page.get_by_test_id("deal").count() == 4

        await page.goto(site.url + "/search?q=trail+shoes")
        await page.select_option("#sort", "price_asc")
        await page.wait_for_url("**/search?q=trail+shoes&sort=price_asc")
        first = page.get_by_test_id("result").first
        assert await first.get_attribute("data-slug") == "trail-sandal-pro"
    finally:
        await context.close()


def test_latency_holds_every_response_back() -> None:
    with start_demo_site(port=0) as quick, start_demo_site(port=0, latency_ms=60_000) as slow:
        assert fetch(quick.url + "/").status == 200
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            urllib.request.urlopen(slow.url + "/", timeout=2)  # noqa: S310 (127.0.0.1)
    with pytest.raises(ValueError, match="latency_ms"):
        DemoSite(latency_ms=-1)


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "browser_agent.demo_site"],
        [sys.executable, "-m", "browser_agent.cli", "demo-site"],
    ],
)
def test_command_lines_take_a_latency(command: list[str]) -> None:
    slow = [*command, "--port", "0", "--latency-ms", "60000"]
    with subprocess.Popen(
        slow, stdout=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_on_a_terminal
    ) as process:
        assert process.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:\d+", process.stdout.readline())
        assert url is not None
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            urllib.request.urlopen(url.group() + "/", timeout=2)  # noqa: S310 (127.0.0.1)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
    refused = subprocess.run([*command, "--latency-ms", "-5"], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "latency" in refused.stderr and "Traceback" not in refused.stderr
