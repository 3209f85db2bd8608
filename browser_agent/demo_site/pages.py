"""Server-rendered HTML of the demo shop, in three variants: ``normal``, ``redesign`` and
``swapped``.

The redesign does to the shop what a real redesign does to automation scripts: the
same pages and the same visible words for the main actions ("Search", "Apply",
"Add to cart", "Place order", the sort option labels), but renamed ids, names and
classes, and moved elements.

What the redesign changes (the server accepts both variants' names in both variants):

| Element            | normal                           | redesign                              |
|--------------------|----------------------------------|---------------------------------------|
| Header nav         | nav#main-nav in the header,      | nav#site-links in the footer,         |
|                    | links #nav-home ... #nav-stores  | links #footer-home ... #footer-stores |
| Page classes       | body.shop, header.site-header    | body.shop-v2, header.topbar           |
| Main element       | main#content                     | main#page                             |
| Search form        | form#search-form                 | form#finder                           |
| Search input       | #search-box, name q              | #q-input, name query                  |
| Search button      | #search-submit                   | #go                                   |
| Sort select        | #sort, name sort                 | #order-by, name order                 |
| Sort apply button  | #apply-sort                      | #order-apply                          |
| Result count       | #result-count                    | #hit-count                            |
| Result list, card  | ol.results, li.result            | div.grid, article.tile                |
| Product price      | #price, above the form           | #product-price, below the form        |
| Add-to-cart form   | #add-to-cart-form                | #buy-form                             |
| Add-to-cart button | #add-to-cart, after size and qty | #buy-now, before the size select      |
| Size select        | #size, name size                 | #shoe-size, name size                 |
| Quantity input     | #quantity, name quantity         | #qty, name qty                        |
| Checkout form      | #checkout-form, full name first  | #order-form, email first              |
| Full name          | #full-name, name full_name       | #customer-name, name customer_name    |
| Email              | #email, name email               | #customer-email, name customer_email  |
| Address            | #address, name address           | #street, name street                  |
| City               | #city, name city                 | #town, name town                      |
| Postal code        | #postal-code, name postal_code   | #zip, name zip                        |
| Country select     | #country, name country           | #country-code, name country_code      |
| Shipping radios    | #shipping-standard,              | #delivery-standard,                   |
|                    | #shipping-express, name shipping | #delivery-express, name delivery      |
| Terms checkbox     | #terms, name terms               | #accept-terms, name accept_terms      |
| Place order button | #place-order                     | #submit-order                         |

What the redesign keeps: every page path and visible text; the sort option values
(``featured``, ``best_seller``, ``price_asc``, ``price_desc``, ``rating``);
``data-testid="result"`` and ``data-slug`` on result cards; the login form
(``#login-form``, ``#username``/``username``, ``#password``/``password``,
``#login-button``); the ``/help`` iframe (``title="Contact form"``) and its contact
form (``#contact-name``, ``#message``, ``#send``); the cart page (``#cart-lines``,
"Remove" buttons, ``#cart-total``, ``#checkout-link``, ``#empty-cart`` which asks with
``confirm()``); the deals consent dialog and
deals list; the store locator; the newsletter form; the hidden fixtures.

The ``swapped`` variant is the normal shop after a careless release, where an old
selector still finds an element but not the one it used to:

| Element                 | normal                  | swapped                             |
|-------------------------|-------------------------|-------------------------------------|
| Add-to-cart button      | #add-to-cart            | #add-to-wishlist                    |
| Add-to-wishlist button  | (none)                  | #add-to-cart, posts /wishlist/add   |
| Sort select             | #sort, name sort        | #sort, name sort_by (ignored by the |
|                         |                         | server: the page reloads unsorted)  |

Every page also carries elements a person cannot act on, marked ``data-demo-hidden``
(``display-none``, ``visibility-hidden``, ``input-hidden``, ``zero-size``,
``aria-hidden``), for testing the DOM distiller. Every dynamic value goes through
:func:`html.escape`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from html import escape
from typing import Literal
from urllib.parse import urlencode

from browser_agent.demo_site.catalog import (
    CATEGORIES,
    COUNTRIES,
    DEFAULT_SIZE,
    MAX_QUANTITY,
    PRODUCTS,
    SHIPPING_OPTIONS,
    SIZES,
    SORT_OPTIONS,
    CartLine,
    Order,
    Product,
    cart_total_cents,
    format_price,
)

Variant = Literal["normal", "redesign", "swapped"]
VARIANTS: tuple[Variant, ...] = ("normal", "redesign", "swapped")

#: Elements per generated row of the /big page (tr, 4 td, a, input, button).
BIG_ELEMENTS_PER_ROW = 8


@dataclass(frozen=True)
class Markup:
    """The ids, names, classes and placements that differ between the variants
    (``wishlist_button_id`` empty: the product page has no wishlist button)."""

    body_class: str
    header_class: str
    main_id: str
    nav_id: str
    nav_link_prefix: str
    nav_in_footer: bool
    search_form_id: str
    search_input_id: str
    search_param: str
    search_button_id: str
    sort_select_id: str
    sort_param: str
    sort_apply_id: str
    result_count_id: str
    results_tag: str
    results_class: str
    result_tag: str
    result_class: str
    product_form_id: str
    price_id: str
    add_button_id: str
    add_button_first: bool
    size_select_id: str
    quantity_id: str
    quantity_param: str
    checkout_form_id: str
    checkout_order: tuple[str, ...]
    place_order_id: str
    wishlist_button_id: str = ""


NORMAL = Markup(
    body_class="shop",
    header_class="site-header",
    main_id="content",
    nav_id="main-nav",
    nav_link_prefix="nav",
    nav_in_footer=False,
    search_form_id="search-form",
    search_input_id="search-box",
    search_param="q",
    search_button_id="search-submit",
    sort_select_id="sort",
    sort_param="sort",
    sort_apply_id="apply-sort",
    result_count_id="result-count",
    results_tag="ol",
    results_class="results",
    result_tag="li",
    result_class="result",
    product_form_id="add-to-cart-form",
    price_id="price",
    add_button_id="add-to-cart",
    add_button_first=False,
    size_select_id="size",
    quantity_id="quantity",
    quantity_param="quantity",
    checkout_form_id="checkout-form",
    checkout_order=(
        "full_name",
        "email",
        "address",
        "city",
        "postal_code",
        "country",
        "shipping",
        "terms",
    ),
    place_order_id="place-order",
)

REDESIGN = Markup(
    body_class="shop-v2",
    header_class="topbar",
    main_id="page",
    nav_id="site-links",
    nav_link_prefix="footer",
    nav_in_footer=True,
    search_form_id="finder",
    search_input_id="q-input",
    search_param="query",
    search_button_id="go",
    sort_select_id="order-by",
    sort_param="order",
    sort_apply_id="order-apply",
    result_count_id="hit-count",
    results_tag="div",
    results_class="grid",
    result_tag="article",
    result_class="tile",
    product_form_id="buy-form",
    price_id="product-price",
    add_button_id="buy-now",
    add_button_first=True,
    size_select_id="shoe-size",
    quantity_id="qty",
    quantity_param="qty",
    checkout_form_id="order-form",
    checkout_order=(
        "email",
        "full_name",
        "country",
        "address",
        "city",
        "postal_code",
        "shipping",
        "terms",
    ),
    place_order_id="submit-order",
)

SWAPPED = replace(
    NORMAL,
    add_button_id="add-to-wishlist",
    wishlist_button_id="add-to-cart",
    sort_param="sort_by",
)

MARKUP: dict[Variant, Markup] = {"normal": NORMAL, "redesign": REDESIGN, "swapped": SWAPPED}

#: Query and form parameter names the server accepts in both variants.
SEARCH_PARAMS = (NORMAL.search_param, REDESIGN.search_param)
SORT_PARAMS = (NORMAL.sort_param, REDESIGN.sort_param)
QUANTITY_PARAMS = (NORMAL.quantity_param, REDESIGN.quantity_param)


@dataclass(frozen=True)
class CheckoutField:
    """One checkout field. ``key`` is its name in the normal (and swapped) variant and in
    submissions.

    ``kind`` is an input type, or ``select`` / ``radio`` / ``checkbox``. For radios the
    ids are ``<id>-<value>``.
    """

    key: str
    label: str
    kind: str
    normal_id: str
    redesign_id: str
    redesign_name: str

    def element_id(self, variant: Variant) -> str:
        return self.redesign_id if variant == "redesign" else self.normal_id

    def name(self, variant: Variant) -> str:
        return self.redesign_name if variant == "redesign" else self.key


CHECKOUT_FIELDS: tuple[CheckoutField, ...] = (
    CheckoutField("full_name", "Full name", "text", "full-name", "customer-name", "customer_name"),
    CheckoutField("email", "Email", "email", "email", "customer-email", "customer_email"),
    CheckoutField("address", "Address", "text", "address", "street", "street"),
    CheckoutField("city", "City", "text", "city", "town", "town"),
    CheckoutField("postal_code", "Postal code", "text", "postal-code", "zip", "zip"),
    CheckoutField("country", "Country", "select", "country", "country-code", "country_code"),
    CheckoutField("shipping", "Shipping", "radio", "shipping", "delivery", "delivery"),
    CheckoutField("terms", "Terms", "checkbox", "terms", "accept-terms", "accept_terms"),
)
_FIELDS_BY_KEY = {field.key: field for field in CHECKOUT_FIELDS}

_NAV_LINKS: tuple[tuple[str, str, str], ...] = (
    ("home", "/", "Home"),
    ("deals", "/deals", "Deals"),
    ("cart", "/cart", "Cart"),
    ("login", "/login", "Login"),
    ("help", "/help", "Help"),
    ("stores", "/stores", "Stores"),
)

_BRAND = (
    '<a class="brand" href="/"><span class="brand-icon" aria-hidden="true" '
    'data-demo-hidden="aria-hidden"><svg width="20" height="20" viewBox="0 0 20 20">'
    '<path d="M2 14h16v3H2zM4 8l6 6H4z"/></svg></span> Stride Shoes</a>'
)

_HIDDEN_FIXTURES = (
    '<div class="fixtures">'
    '<button type="button" style="display:none" data-demo-hidden="display-none">'
    "Hidden offer</button>"
    '<a href="/deals" style="visibility:hidden" data-demo-hidden="visibility-hidden">'
    "Invisible deals link</a>"
    '<input type="hidden" name="tracking" value="demo" data-demo-hidden="input-hidden">'
    '<a href="/help" style="display:inline-block;width:0;height:0;overflow:hidden;'
    'padding:0;border:0" data-demo-hidden="zero-size">Zero-size help link</a>'
    "</div>"
)

_NEWSLETTER_FORM = (
    '<form id="newsletter-form" class="newsletter" method="post" action="/newsletter">'
    '<label for="newsletter-email">Get deals by email</label> '
    '<input type="email" id="newsletter-email" name="newsletter_email" '
    'placeholder="you@example.com"> '
    '<button id="newsletter-submit" type="submit">Subscribe</button></form>'
)


@dataclass(frozen=True)
class PageContext:
    """Per-request facts the shared layout needs."""

    variant: Variant
    cart_count: int = 0
    query: str = ""

    @property
    def markup(self) -> Markup:
        return MARKUP[self.variant]


def esc(value: object) -> str:
    """HTML-escape any value for text or a double-quoted attribute."""
    return escape(str(value), quote=True)


def search_url(query: str) -> str:
    """The search results URL for a query (normal parameter name; both variants accept it)."""
    return "/search?" + urlencode({"q": query})


def layout(ctx: PageContext, title: str, main: str) -> str:
    """A full page: header (brand, nav, search), main content, footer."""
    m = ctx.markup
    nav = _nav(ctx)
    header = _BRAND + ("" if m.nav_in_footer else nav) + _search_form(ctx)
    footer = (nav if m.nav_in_footer else "") + _NEWSLETTER_FORM + _HIDDEN_FIXTURES
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)} - Stride Shoes</title>\n"
        '<link rel="stylesheet" href="/static/site.css">\n</head>\n'
        f'<body class="{m.body_class}">\n'
        f'<header class="{m.header_class}">{header}</header>\n'
        f'<main id="{m.main_id}">\n{main}\n</main>\n'
        f'<footer class="site-footer">{footer}</footer>\n'
        "</body>\n</html>\n"
    )


def _nav(ctx: PageContext) -> str:
    m = ctx.markup
    links = "".join(
        f'<a id="{m.nav_link_prefix}-{key}" href="{href}">'
        f"{label if key != 'cart' else f'{label} ({ctx.cart_count})'}</a>"
        for key, href, label in _NAV_LINKS
    )
    return f'<nav id="{m.nav_id}" aria-label="Main">{links}</nav>'


def _search_form(ctx: PageContext) -> str:
    m = ctx.markup
    value = f' value="{esc(ctx.query)}"' if ctx.query else ""
    return (
        f'<form id="{m.search_form_id}" class="search" role="search" action="/search" '
        f'method="get"><input type="search" id="{m.search_input_id}" name="{m.search_param}" '
        f'placeholder="Search products"{value}> '
        f'<button id="{m.search_button_id}" type="submit">Search</button></form>'
    )


def _errors(errors: list[str]) -> str:
    if not errors:
        return ""
    items = "".join(f"<li>{esc(error)}</li>" for error in errors)
    return (
        '<div id="form-errors" class="errors" role="alert">'
        f"<p>Please correct the following:</p><ul>{items}</ul></div>"
    )


def _product_card(product: Product) -> str:
    return (
        f'<li class="card" data-testid="featured"><a href="{esc(product.url)}">'
        f'{esc(product.name)}</a> <span class="price">{esc(product.price_text)}</span></li>'
    )


def home_page(ctx: PageContext) -> str:
    """Heading, category links and the four best sellers."""
    categories = "".join(
        f'<li><a href="{esc(search_url(category))}">{esc(category)}</a></li>'
        for category in CATEGORIES
    )
    featured = sorted(PRODUCTS, key=lambda p: (p.sales_rank, p.slug))[:4]
    main = (
        "<h1>Stride Shoes</h1>\n<p>Shoes for trails, roads, mountains and beaches.</p>\n"
        f'<h2>Shop by category</h2>\n<ul id="categories">{categories}</ul>\n'
        '<h2>Featured</h2>\n<ul class="featured">'
        + "".join(_product_card(p) for p in featured)
        + "</ul>"
    )
    return layout(ctx, "Home", main)


def search_page(ctx: PageContext, sort: str, results: list[Product]) -> str:
    """Results for ``ctx.query`` with the sort select and the result count."""
    m = ctx.markup
    if not ctx.query.strip():
        count = f"Showing all {len(results)} products"
    elif results:
        noun = "result" if len(results) == 1 else "results"
        count = f'{len(results)} {noun} for "{ctx.query}"'
    else:
        count = f'No products match "{ctx.query}".'
    cards = "".join(_result_card(m, product) for product in results)
    main = (
        f"<h1>Search results</h1>\n{_sort_controls(m, sort)}\n"
        f'<p id="{m.result_count_id}" role="status">{esc(count)}</p>\n'
        f'<{m.results_tag} class="{m.results_class}">{cards}</{m.results_tag}>'
    )
    return layout(ctx, f"Search: {ctx.query}", main)


def _sort_controls(m: Markup, sort: str) -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == sort else ""}>{esc(label)}</option>'
        for value, label in SORT_OPTIONS
    )
    return (
        f'<div class="sort"><label for="{m.sort_select_id}">Sort by</label> '
        f'<select id="{m.sort_select_id}" name="{m.sort_param}" form="{m.search_form_id}" '
        f'onchange="this.form.submit()">{options}</select> '
        f'<button id="{m.sort_apply_id}" type="submit" form="{m.search_form_id}">Apply</button>'
        "</div>"
    )


def _result_card(m: Markup, product: Product) -> str:
    return (
        f'<{m.result_tag} class="{m.result_class}" data-testid="result" '
        f'data-slug="{esc(product.slug)}"><a class="{m.result_class}-name" '
        f'href="{esc(product.url)}">{esc(product.name)}</a> '
        f'<span class="{m.result_class}-price">{esc(product.price_text)}</span> '
        f'<span class="{m.result_class}-meta">{esc(product.category)}, rated '
        f"{product.rating:.1f} out of 5</span></{m.result_tag}>"
    )


def product_page(ctx: PageContext, product: Product, errors: list[str] | None = None) -> str:
    """Name, price, description and the add-to-cart form."""
    m = ctx.markup
    price = f'<p id="{m.price_id}" class="price">{esc(product.price_text)}</p>'
    details = (
        f'<p class="description">{esc(product.description)}</p>\n'
        f'<p>Category: <a href="{esc(search_url(product.category))}">'
        f"{esc(product.category)}</a>. Rated {product.rating:.1f} out of 5.</p>"
    )
    form = _add_to_cart_form(m, product)
    body = f"{form}\n{price}\n{details}" if m.add_button_first else f"{price}\n{details}\n{form}"
    main = (
        f'<article class="product" data-slug="{esc(product.slug)}">\n'
        f"<h1>{esc(product.name)}</h1>\n{_errors(errors or [])}\n{body}\n</article>"
    )
    return layout(ctx, product.name, main)


def _add_to_cart_form(m: Markup, product: Product) -> str:
    sizes = "".join(
        f'<option value="{size}"{" selected" if size == DEFAULT_SIZE else ""}>{size}</option>'
        for size in SIZES
    )
    size = (
        f'<p><label for="{m.size_select_id}">Size</label> '
        f'<select id="{m.size_select_id}" name="size">{sizes}</select></p>'
    )
    quantity = (
        f'<p><label for="{m.quantity_id}">Quantity</label> <input type="number" '
        f'id="{m.quantity_id}" name="{m.quantity_param}" value="1" min="1" '
        f'max="{MAX_QUANTITY}"></p>'
    )
    button = f'<button id="{m.add_button_id}" type="submit">Add to cart</button>'
    if m.wishlist_button_id:
        button += (
            f' <button id="{m.wishlist_button_id}" type="submit" formaction="/wishlist/add">'
            "Add to wishlist</button>"
        )
    fields = button + size + quantity if m.add_button_first else size + quantity + button
    return (
        f'<form id="{m.product_form_id}" method="post" action="/cart/add">'
        f'<input type="hidden" name="slug" value="{esc(product.slug)}">{fields}</form>'
    )


def _lines_table(lines: Iterable[CartLine], removable: bool) -> str:
    rows = "".join(_line_row(line, removable) for line in lines)
    remove_head = "<th>Remove</th>" if removable else ""
    return (
        '<table id="cart-lines"><thead><tr><th>Product</th><th>Size</th><th>Quantity</th>'
        f"<th>Line total</th>{remove_head}</tr></thead><tbody>{rows}</tbody></table>"
    )


def _line_row(line: CartLine, removable: bool) -> str:
    name = esc(line.product.name)
    remove = (
        '<td><form method="post" action="/cart/remove">'
        f'<input type="hidden" name="line" value="{esc(line.key)}">'
        f'<button type="submit" aria-label="Remove {name}, size {line.size}">Remove</button>'
        "</form></td>"
        if removable
        else ""
    )
    return (
        f'<tr data-testid="cart-line"><td><a href="{esc(line.product.url)}">{name}</a></td>'
        f"<td>{line.size}</td><td>{line.quantity}</td>"
        f"<td>{esc(format_price(line.total_cents))}</td>{remove}</tr>"
    )


def cart_page(ctx: PageContext, lines: list[CartLine]) -> str:
    """Cart lines with Remove buttons, the total, the Checkout link and Empty cart (which
    asks with confirm() first)."""
    if not lines:
        main = '<h1>Your cart</h1>\n<p id="cart-empty">Your cart is empty.</p>'
        return layout(ctx, "Cart", main)
    total = esc(format_price(cart_total_cents(lines)))
    main = (
        f"<h1>Your cart</h1>\n{_lines_table(lines, removable=True)}\n"
        f'<p id="cart-total">Total: {total}</p>\n'
        '<p><a id="checkout-link" class="button" href="/checkout">Checkout</a></p>\n'
        '<form id="empty-cart-form" method="post" action="/cart/empty" '
        "onsubmit=\"return confirm('Empty your cart?')\">"
        '<button id="empty-cart" type="submit">Empty cart</button></form>'
    )
    return layout(ctx, "Cart", main)


def login_page(ctx: PageContext, error: str = "", username: str = "") -> str:
    """The login form (identical in both variants), with an optional error."""
    alert = f'<p id="login-error" class="errors" role="alert">{esc(error)}</p>\n' if error else ""
    value = f' value="{esc(username)}"' if username else ""
    main = (
        f"<h1>Log in</h1>\n{alert}"
        '<form id="login-form" method="post" action="/login">'
        '<p><label for="username">Username</label> '
        f'<input id="username" name="username" autocomplete="username"{value}></p>'
        '<p><label for="password">Password</label> <input type="password" id="password" '
        'name="password" autocomplete="current-password"></p>'
        '<button id="login-button" type="submit">Log in</button></form>'
    )
    return layout(ctx, "Log in", main)


def account_page(ctx: PageContext, username: str) -> str:
    """The page a successful login lands on."""
    main = f'<h1>Your account</h1>\n<p id="welcome">Welcome, {esc(username)}</p>'
    return layout(ctx, "Account", main)


def checkout_page(
    ctx: PageContext,
    lines: list[CartLine],
    values: dict[str, str] | None = None,
    errors: list[str] | None = None,
) -> str:
    """Order summary and the checkout form, re-filled with ``values`` after errors."""
    m = ctx.markup
    values = values or {}
    fields = "".join(
        _checkout_field(_FIELDS_BY_KEY[key], ctx.variant, values.get(key, ""))
        for key in m.checkout_order
    )
    main = (
        f"<h1>Checkout</h1>\n{_order_summary(lines)}\n{_errors(errors or [])}\n"
        f'<form id="{m.checkout_form_id}" method="post" action="/checkout" novalidate>'
        f'{fields}<button id="{m.place_order_id}" type="submit">Place order</button></form>'
    )
    return layout(ctx, "Checkout", main)


def _order_summary(lines: list[CartLine]) -> str:
    if not lines:
        return '<section id="order-summary"><p>Your cart is empty.</p></section>'
    total = esc(format_price(cart_total_cents(lines)))
    return (
        f'<section id="order-summary"><h2>Order summary</h2>{_lines_table(lines, False)}'
        f"<p>Subtotal: {total}</p></section>"
    )


def _checkout_field(field: CheckoutField, variant: Variant, value: str) -> str:
    ident, name = field.element_id(variant), field.name(variant)
    if field.kind == "radio":
        return _shipping_radios(ident, name, value or "standard")
    if field.kind == "checkbox":
        checked = " checked" if value else ""
        return (
            f'<p><input type="checkbox" id="{ident}" name="{name}" value="yes"{checked}> '
            f'<label for="{ident}">I accept the terms and conditions</label></p>'
        )
    label = f'<label for="{ident}">{esc(field.label)}</label> '
    if field.kind == "select":
        return f"<p>{label}{_country_select(ident, name, value)}</p>"
    return (
        f'<p>{label}<input type="{field.kind}" id="{ident}" name="{name}" '
        f'value="{esc(value)}" aria-required="true"></p>'
    )


def _country_select(ident: str, name: str, value: str) -> str:
    options = "".join(
        f'<option value="{code}"{" selected" if code == value else ""}>{esc(country)}</option>'
        for code, country in COUNTRIES
    )
    return (
        f'<select id="{ident}" name="{name}" aria-required="true">'
        f'<option value="">Choose a country</option>{options}</select>'
    )


def _shipping_radios(prefix: str, name: str, value: str) -> str:
    radios = "".join(
        f'<label><input type="radio" id="{prefix}-{key}" name="{name}" value="{key}"'
        f"{' checked' if key == value else ''}> {esc(label)}</label> "
        for key, label, _ in SHIPPING_OPTIONS
    )
    return f"<fieldset><legend>Shipping</legend>{radios}</fieldset>"


def confirmation_page(ctx: PageContext, order: Order) -> str:
    """Thanks, the order number and what was ordered."""
    shipping = next(label for key, label, _ in SHIPPING_OPTIONS if key == order.shipping)
    items = _lines_table(order.lines, removable=False) if order.lines else ""
    main = (
        "<h1>Thank you for your order</h1>\n"
        f'<p id="order-message">Thank you, {esc(order.full_name)}! Your order number is '
        f'<strong id="order-number">{esc(order.number)}</strong>.</p>\n{items}\n'
        f"<p>{esc(shipping)}. Total: "
        f'<span id="order-total">{esc(format_price(order.total_cents))}</span></p>'
    )
    return layout(ctx, f"Order {order.number}", main)


def deals_page(ctx: PageContext, show_consent: bool) -> str:
    """The deals list (filled by /static/deals.js after a delay) and the cookie banner."""
    consent = (
        '<div id="cookie-consent" class="consent-overlay" role="dialog" aria-modal="true" '
        'aria-label="Cookie consent"><div class="consent-box"><h2>We use cookies</h2>'
        "<p>We use cookies to remember your cart and to show you better deals.</p>"
        '<form method="post" action="/consent">'
        '<button id="accept-cookies" type="submit" name="choice" value="accept">Accept all'
        '</button> <button id="reject-cookies" type="submit" name="choice" value="reject">'
        "Reject</button></form></div></div>"
        if show_consent
        else ""
    )
    main = (
        "<h1>Deals</h1>\n<p>Limited-time offers on our favourite shoes.</p>\n"
        '<p id="deals-status" role="status">Loading deals...</p>\n'
        '<ul id="deals-list" aria-busy="true" aria-live="polite"></ul>\n'
        f'<script src="/static/deals.js" defer></script>\n{consent}'
    )
    return layout(ctx, "Deals", main)


def help_page(ctx: PageContext) -> str:
    """Help text and the contact form in a same-origin iframe."""
    main = (
        "<h1>Help</h1>\n<p>Questions about an order or a size? Send us a message.</p>\n"
        '<iframe id="contact-frame" src="/help/contact-frame" title="Contact form" '
        'width="480" height="320"></iframe>'
    )
    return layout(ctx, "Help", main)


def contact_frame_page(thanks_name: str = "", error: str = "") -> str:
    """The page inside the /help iframe: the contact form and what happened to it."""
    status = ""
    if error:
        status = f'<p id="contact-status" class="errors" role="alert">{esc(error)}</p>'
    elif thanks_name:
        status = (
            f'<p id="contact-status" role="status">Thanks, {esc(thanks_name)}! '
            "Your message has been sent.</p>"
        )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>Contact form</title>\n"
        '<link rel="stylesheet" href="/static/site.css">\n</head>\n'
        f'<body class="frame">\n{status}\n'
        '<form id="contact-form" method="post" action="/help/contact-frame">'
        '<p><label for="contact-name">Name</label> <input id="contact-name" name="name"></p>'
        '<p><label for="message">Message</label> '
        '<textarea id="message" name="message" rows="4" cols="40"></textarea></p>'
        '<button id="send" type="submit">Send</button></form>\n'
        f"{_HIDDEN_FIXTURES}\n</body>\n</html>\n"
    )


def stores_page(ctx: PageContext) -> str:
    """The store locator: a custom element with an open shadow root."""
    main = (
        "<h1>Find a store</h1>\n<p>Try a city or the start of a postal code.</p>\n"
        "<store-locator></store-locator>\n"
        '<script src="/static/store-locator.js" defer></script>'
    )
    return layout(ctx, "Stores", main)


def newsletter_page(ctx: PageContext, email: str, ok: bool) -> str:
    """The answer to a newsletter sign-up."""
    if ok:
        text = f'<p id="newsletter-status" role="status">Thanks! Deals will go to {esc(email)}.</p>'
    else:
        text = (
            '<p id="newsletter-status" class="errors" role="alert">'
            "Please enter a valid email address.</p>"
        )
    return layout(ctx, "Newsletter", f"<h1>Newsletter</h1>\n{text}")


def big_page(ctx: PageContext, rows: int) -> str:
    """A generated table of ``rows`` product rows, BIG_ELEMENTS_PER_ROW elements each."""
    body = "".join(_big_row(index) for index in range(rows))
    main = (
        f'<h1>Big catalog</h1>\n<p id="big-summary">{rows} rows.</p>\n'
        f'<table id="big-table"><tbody>{body}</tbody></table>'
    )
    return layout(ctx, "Big catalog", main)


def _big_row(index: int) -> str:
    product = PRODUCTS[index % len(PRODUCTS)]
    number = index + 1
    return (
        f'<tr><td><a href="{esc(product.url)}">{esc(product.name)} #{number}</a></td>'
        f"<td>{esc(product.price_text)}</td>"
        f'<td><input type="number" name="qty-{number}" value="1" '
        f'aria-label="Quantity for row {number}"></td>'
        f'<td><button type="button" data-row="{number}">Add</button></td></tr>'
    )


def not_found_page(ctx: PageContext, path: str) -> str:
    """The 404 page."""
    main = (
        '<h1>Page not found</h1>\n<p id="not-found">There is no page at '
        f'<code>{esc(path)}</code>.</p>\n<p><a href="/">Back to the shop</a></p>'
    )
    return layout(ctx, "Page not found", main)
