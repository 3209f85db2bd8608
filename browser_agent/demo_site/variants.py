"""The demo shop's three variants, ``normal``, ``redesign`` and ``swapped``: the ids, names,
classes and placements each gives its pages, and the checkout form's fields.

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

In every variant, every page also carries elements a person cannot act on, marked
``data-demo-hidden`` (``display-none``, ``visibility-hidden``, ``input-hidden``,
``zero-size``, ``aria-hidden``), for testing the DOM distiller (see
:mod:`browser_agent.demo_site.layout`). Every dynamic value goes through
:func:`html.escape`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Variant = Literal["normal", "redesign", "swapped"]
VARIANTS: tuple[Variant, ...] = ("normal", "redesign", "swapped")


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
FIELDS_BY_KEY = {field.key: field for field in CHECKOUT_FIELDS}


@dataclass(frozen=True)
class PageContext:
    """Per-request facts the shared layout needs."""

    variant: Variant
    cart_count: int = 0
    query: str = ""

    @property
    def markup(self) -> Markup:
        return MARKUP[self.variant]
