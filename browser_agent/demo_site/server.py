"""The demo shop's HTTP server: a stdlib ThreadingHTTPServer on 127.0.0.1 in a daemon thread.

Carts live in a cookie, so the server keeps no per-visitor state. It keeps only what
tests look at afterwards: the form submissions it received and the orders placed.
``latency_ms`` holds back every response that long, as a distant site would, so
concurrency can be measured on one machine as it would be on the real web.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from browser_agent.demo_site import catalog, pages, variants
from browser_agent.demo_site.catalog import CartLine, Order
from browser_agent.demo_site.variants import PageContext, Variant

HOST = "127.0.0.1"
DEMO_USER = "demo"
DEMO_PASSWORD = "secret123"
MASK = "***"
DEFAULT_BIG_N = 1_000
MAX_BIG_N = 50_000
MAX_BODY_BYTES = 64 * 1024
MAX_FIELDS = 100
CONSENT_MAX_AGE_S = 365 * 24 * 3600

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_ASSETS = {
    "site.css": "text/css; charset=utf-8",
    "deals.js": "text/javascript; charset=utf-8",
    "store-locator.js": "text/javascript; charset=utf-8",
}

Submission = dict[str, Any]


def as_variant(value: str) -> Variant | None:
    """``value`` as a Variant, or None when it names none."""
    return next((variant for variant in variants.VARIANTS if variant == value), None)


@dataclass(frozen=True)
class Request:
    """What a route handler needs from an HTTP request."""

    method: str
    path: str
    query: dict[str, list[str]]
    form: dict[str, list[str]]
    cookies: dict[str, str]
    variant: Variant

    def param(self, *names: str) -> str:
        """The first non-empty query parameter among ``names``, else ``""``."""
        return _first(self.query, names)

    def field(self, *names: str) -> str:
        """The first non-empty form field among ``names``, stripped, else ``""``."""
        return _first(self.form, names).strip()

    @cached_property
    def cart(self) -> list[CartLine]:
        return catalog.decode_cart(self.cookies.get("cart", ""))

    def context(self, query: str = "") -> PageContext:
        """The layout facts for this request."""
        return PageContext(self.variant, sum(line.quantity for line in self.cart), query)


def _first(values: dict[str, list[str]], names: tuple[str, ...]) -> str:
    return next((values[name][0] for name in names if values.get(name, [""])[0]), "")


@dataclass(frozen=True)
class Response:
    """Status, body and headers to send."""

    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = field(default=())


def _html(text: str, status: int = HTTPStatus.OK) -> Response:
    return Response(status, text.encode("utf-8"))


def _json(data: object) -> Response:
    return Response(HTTPStatus.OK, json.dumps(data).encode("utf-8"), "application/json")


def _redirect(location: str, *cookies: tuple[str, str]) -> Response:
    return Response(HTTPStatus.SEE_OTHER, b"", headers=(("Location", location), *cookies))


def _cookie(
    name: str, value: str, max_age: int | None = None, httponly: bool = False
) -> tuple[str, str]:
    age = "" if max_age is None else f"; Max-Age={max_age}"
    return (
        "Set-Cookie",
        f"{name}={value}; Path=/; SameSite=Lax{age}{'; HttpOnly' if httponly else ''}",
    )


def _to_int(text: str, default: int) -> int:
    try:
        return int(text)
    except ValueError:
        return default


def _not_found(site: DemoSite, req: Request) -> Response:
    return _html(pages.not_found_page(req.context(), req.path), HTTPStatus.NOT_FOUND)


def _home(site: DemoSite, req: Request) -> Response:
    return _html(pages.home_page(req.context()))


def _search(site: DemoSite, req: Request) -> Response:
    query = req.param(*variants.SEARCH_PARAMS)
    sort = req.param(*variants.SORT_PARAMS)
    if sort not in {key for key, _ in catalog.SORT_OPTIONS}:
        sort = catalog.DEFAULT_SORT
    results = catalog.sort_products([site.priced(p) for p in catalog.search(query)], sort)
    return _html(pages.search_page(req.context(query), sort, results))


def _product(site: DemoSite, req: Request) -> Response:
    product = catalog.find_product(req.path.removeprefix("/product/"))
    if product is None:
        return _not_found(site, req)
    return _html(pages.product_page(req.context(), site.priced(product)))


def _add_to_cart(site: DemoSite, req: Request) -> Response:
    product = catalog.find_product(req.field("slug"))
    if product is None:
        return _not_found(site, req)
    size_text, quantity_text = req.field("size"), req.field(*variants.QUANTITY_PARAMS)
    site.record("cart", {"slug": product.slug, "size": size_text, "quantity": quantity_text})
    size = _to_int(size_text, 0)
    quantity = _to_int(quantity_text, 0)
    errors = []
    if size not in catalog.SIZES:
        errors.append(f"Size must be from {catalog.SIZES[0]} to {catalog.SIZES[-1]}")
    if not 1 <= quantity <= catalog.MAX_QUANTITY:
        errors.append(f"Quantity must be a whole number from 1 to {catalog.MAX_QUANTITY}")
    if not errors:
        try:
            lines = catalog.add_to_cart(req.cart, product, size, quantity)
        except ValueError as exc:
            errors.append(str(exc))
        else:
            return _redirect("/cart", _cookie("cart", catalog.encode_cart(lines)))
    return _html(pages.product_page(req.context(), product, errors))


def _add_to_wishlist(site: DemoSite, req: Request) -> Response:
    product = catalog.find_product(req.field("slug"))
    if product is None:
        return _not_found(site, req)
    site.record("wishlist", {"slug": product.slug})
    return _redirect(product.url)


def _remove_from_cart(site: DemoSite, req: Request) -> Response:
    lines = catalog.remove_from_cart(req.cart, req.field("line"))
    return _redirect("/cart", _cookie("cart", catalog.encode_cart(lines)))


def _empty_cart(site: DemoSite, req: Request) -> Response:
    site.record("empty cart", {})
    return _redirect("/cart", _cookie("cart", catalog.encode_cart([])))


def _cart(site: DemoSite, req: Request) -> Response:
    return _html(pages.cart_page(req.context(), req.cart))


def _login_form(site: DemoSite, req: Request) -> Response:
    return _html(pages.login_page(req.context()))


def _login(site: DemoSite, req: Request) -> Response:
    username, password = req.field("username"), req.field("password")
    site.record("login", {"username": username, "password": password})
    if username == DEMO_USER and password == DEMO_PASSWORD:
        return _redirect("/account", _cookie("session", site.session_token, httponly=True))
    error = "Invalid username or password"
    return _html(pages.login_page(req.context(), error, username))


def _account(site: DemoSite, req: Request) -> Response:
    if req.cookies.get("session") != site.session_token:
        return _redirect("/login")
    return _html(pages.account_page(req.context(), DEMO_USER))


def _checkout_form(site: DemoSite, req: Request) -> Response:
    return _html(pages.checkout_page(req.context(), req.cart))


def _checkout(site: DemoSite, req: Request) -> Response:
    values = {f.key: req.field(f.key, f.redesign_name) for f in variants.CHECKOUT_FIELDS}
    site.record("checkout", values)
    errors = checkout_errors(values)
    if errors:
        return _html(pages.checkout_page(req.context(), req.cart, values, errors))
    order = site.place_order(values["full_name"], values["shipping"], req.cart)
    location = "/order/confirmation?" + urlencode({"order": order.number})
    return _redirect(location, _cookie("cart", "", max_age=0))


def checkout_errors(values: dict[str, str]) -> list[str]:
    """What is wrong with checkout values keyed by normal field names; each names its field."""
    errors = [
        f"{f.label} is required"
        for f in variants.CHECKOUT_FIELDS
        if f.kind != "checkbox" and not values[f.key]
    ]
    if values["email"] and not _EMAIL.fullmatch(values["email"]):
        errors.append("Email must be a valid email address")
    if values["country"] and values["country"] not in dict(catalog.COUNTRIES):
        errors.append("Country must be one of the listed countries")
    if values["shipping"] and values["shipping"] not in {k for k, _, _ in catalog.SHIPPING_OPTIONS}:
        errors.append("Shipping must be standard or express")
    if not values["terms"]:
        errors.append("Terms must be accepted")
    return errors


def _confirmation(site: DemoSite, req: Request) -> Response:
    order = site.order(req.param("order"))
    if order is None:
        return _not_found(site, req)
    return _html(pages.confirmation_page(req.context(), order))


def _deals(site: DemoSite, req: Request) -> Response:
    show_consent = req.cookies.get("consent") not in ("accepted", "rejected")
    return _html(pages.deals_page(req.context(), show_consent))


def _consent(site: DemoSite, req: Request) -> Response:
    choice = "accepted" if req.field("choice") == "accept" else "rejected"
    return _redirect("/deals", _cookie("consent", choice, CONSENT_MAX_AGE_S))


def _help(site: DemoSite, req: Request) -> Response:
    return _html(pages.help_page(req.context()))


def _contact_frame(site: DemoSite, req: Request) -> Response:
    return _html(pages.contact_frame_page())


def _contact(site: DemoSite, req: Request) -> Response:
    name, message = req.field("name"), req.field("message")
    site.record("contact", {"name": name, "message": message})
    if not (name and message):
        return _html(pages.contact_frame_page(error="Please enter your name and a message."))
    return _html(pages.contact_frame_page(thanks_name=name))


def _stores(site: DemoSite, req: Request) -> Response:
    return _html(pages.stores_page(req.context()))


def _newsletter(site: DemoSite, req: Request) -> Response:
    email = req.field("newsletter_email")
    site.record("newsletter", {"email": email})
    ok = _EMAIL.fullmatch(email) is not None
    return _html(pages.newsletter_page(req.context(), email, ok))


def _big(site: DemoSite, req: Request) -> Response:
    n = min(max(_to_int(req.param("n"), DEFAULT_BIG_N), 1), MAX_BIG_N)
    rows = max(1, n // pages.BIG_ELEMENTS_PER_ROW)
    return _html(pages.big_page(req.context(), rows))


def _api_products(site: DemoSite, req: Request) -> Response:
    return _json([site.priced(product).as_json() for product in catalog.PRODUCTS])


def _api_deals(site: DemoSite, req: Request) -> Response:
    return _json([deal.as_json() for deal in catalog.DEALS])


def _api_stores(site: DemoSite, req: Request) -> Response:
    return _json([store.as_json() for store in catalog.find_stores(req.param("q"))])


def _static(site: DemoSite, req: Request) -> Response:
    name = req.path.removeprefix("/static/")
    if name not in _ASSETS:
        return _not_found(site, req)
    return Response(HTTPStatus.OK, _asset(name), _ASSETS[name])


@cache
def _asset(name: str) -> bytes:
    return (resources.files("browser_agent.demo_site") / "static" / name).read_bytes()


Route = Callable[["DemoSite", Request], Response]

_ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "/"): _home,
    ("GET", "/search"): _search,
    ("GET", "/cart"): _cart,
    ("POST", "/cart/add"): _add_to_cart,
    ("POST", "/cart/remove"): _remove_from_cart,
    ("POST", "/wishlist/add"): _add_to_wishlist,
    ("GET", "/login"): _login_form,
    ("POST", "/cart/empty"): _empty_cart,
    ("POST", "/login"): _login,
    ("GET", "/account"): _account,
    ("GET", "/checkout"): _checkout_form,
    ("POST", "/checkout"): _checkout,
    ("GET", "/order/confirmation"): _confirmation,
    ("GET", "/deals"): _deals,
    ("POST", "/consent"): _consent,
    ("GET", "/help"): _help,
    ("GET", "/help/contact-frame"): _contact_frame,
    ("POST", "/help/contact-frame"): _contact,
    ("GET", "/stores"): _stores,
    ("POST", "/newsletter"): _newsletter,
    ("GET", "/big"): _big,
    ("GET", "/api/products"): _api_products,
    ("GET", "/api/deals"): _api_deals,
    ("GET", "/api/stores"): _api_stores,
}
_PREFIX_ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "/product/"): _product,
    ("GET", "/static/"): _static,
}


def _route(method: str, path: str) -> Route:
    exact = _ROUTES.get((method, path))
    if exact is not None:
        return exact
    for (route_method, prefix), route in _PREFIX_ROUTES.items():
        if method == route_method and path.startswith(prefix):
            return route
    return _not_found


class DemoSite:
    """The demo shop on ``http://127.0.0.1:PORT``, served from a daemon thread.

    ``variant`` can be switched while it runs; ``submissions`` lists every login,
    checkout, contact, newsletter, add-to-cart, add-to-wishlist and empty-cart submission
    received,
    in order, as
    ``{"form": ..., "fields": {...}}`` with passwords masked as ``"***"``. Checkout
    fields are keyed by the normal variant's names whichever variant sent them.
    ``prices`` (product slug: US cents) changes what the product, search and API pages
    show a product to cost, as a shop's prices change (a watch's tests change them).
    """

    def __init__(self, port: int = 0, variant: str = "normal", latency_ms: int = 0) -> None:
        if latency_ms < 0:
            raise ValueError(f"latency_ms must be 0 or more, got {latency_ms}")
        self.variant = variant
        self.latency_ms = latency_ms
        self.submissions: list[Submission] = []
        self.prices: dict[str, int] = {}
        # the login's session cookie: random per site, so a test can look for it anywhere
        self.session_token = secrets.token_urlsafe(24)
        self._port = port
        self._orders: dict[str, Order] = {}
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()  # cuts a delayed response short at stop()

    @property
    def variant(self) -> Variant:
        return self._variant

    @variant.setter
    def variant(self, value: str) -> None:
        variant = as_variant(value)
        if variant is None:
            raise ValueError(f"variant must be one of {variants.VARIANTS}, got {value!r}")
        self._variant = variant

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("the demo site is not running; call start() first")
        return f"http://{HOST}:{self._server.server_address[1]}"

    def start(self) -> DemoSite:
        """Bind the port and serve from a daemon thread; returns self."""
        if self._server is not None:
            raise RuntimeError("the demo site is already running")
        self._stopping.clear()
        self._server = _Server(self, self._port)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"demo-site-{self._server.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port. Stopping a stopped site does nothing."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        self._stopping.set()
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join()

    def __enter__(self) -> DemoSite:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def record(self, form: str, fields: dict[str, str]) -> None:
        """Append a submission, with password values masked."""
        masked = {key: MASK if "password" in key else value for key, value in fields.items()}
        with self._lock:
            self.submissions.append({"form": form, "fields": masked})

    def place_order(self, full_name: str, shipping: str, lines: list[CartLine]) -> Order:
        """Store an order under the next number: DS-1001, DS-1002, ..."""
        with self._lock:
            number = f"DS-{1001 + len(self._orders)}"
            order = Order(number, full_name, shipping, tuple(lines))
            self._orders[number] = order
        return order

    def order(self, number: str) -> Order | None:
        """A placed order by number, or None."""
        return self._orders.get(number)

    def priced(self, product: catalog.Product) -> catalog.Product:
        """``product`` at the price ``prices`` gives it now, if any."""
        cents = self.prices.get(product.slug)
        return product if cents is None else replace(product, price_cents=cents)

    def handle(self, request: Request) -> Response:
        """Answer one request."""
        return _route(request.method, request.path)(self, request)

    def delay(self) -> None:
        """Hold a response back by ``latency_ms`` (each request waits on its own thread)."""
        if self.latency_ms:
            self._stopping.wait(self.latency_ms / 1000)


def start_demo_site(port: int = 0, variant: str = "normal", latency_ms: int = 0) -> DemoSite:
    """Start the demo shop on 127.0.0.1 (port 0 picks a free port) and return it; every
    response waits ``latency_ms`` first."""
    return DemoSite(port, variant, latency_ms).start()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, site: DemoSite, port: int) -> None:
        super().__init__((HOST, port), _Handler)
        self.site = site


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 10

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the console quiet; tests read ``DemoSite.submissions`` instead."""

    def _handle(self, method: str) -> None:
        try:
            request = self._request(method)
        except ValueError as exc:
            self._send(Response(HTTPStatus.BAD_REQUEST, str(exc).encode(), "text/plain"))
            return
        response = self.server.site.handle(request)
        self.server.site.delay()
        try:
            self._send(response)
        except (BrokenPipeError, ConnectionResetError):  # the page went on while it waited
            self.close_connection = True

    def _request(self, method: str) -> Request:
        """Parse the request; ValueError on a malformed or oversized one."""
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True, max_num_fields=MAX_FIELDS)
        override = as_variant(_first(query, ("variant",)))
        return Request(
            method=method,
            path=parts.path,
            query=query,
            form=self._form() if method == "POST" else {},
            cookies=parse_cookies(self.headers.get("Cookie", "")),
            variant=override or self.server.site.variant,
        )

    def _form(self) -> dict[str, list[str]]:
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 <= length <= MAX_BODY_BYTES:
            raise ValueError(f"request body must be at most {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(length).decode("utf-8", errors="replace")
        return parse_qs(body, keep_blank_values=True, max_num_fields=MAX_FIELDS)

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in response.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(response.body)


def parse_cookies(header: str) -> dict[str, str]:
    """Cookie header -> {name: value}; the first of duplicate names wins, junk is skipped."""
    cookies: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name:
            cookies.setdefault(name, value)
    return cookies
