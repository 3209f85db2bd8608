"""Server-rendered HTML of the demo shop's pages, each in the variant of its request
(:mod:`browser_agent.demo_site.variants` says what differs), inside the shared layout
(:mod:`browser_agent.demo_site.layout`)."""

from __future__ import annotations

from collections.abc import Iterable

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
from browser_agent.demo_site.layout import HIDDEN_FIXTURES, esc, form_errors, layout, search_url
from browser_agent.demo_site.variants import (
    FIELDS_BY_KEY,
    CheckoutField,
    Markup,
    PageContext,
    Variant,
)

#: Elements per generated row of the /big page (tr, 4 td, a, input, button).
BIG_ELEMENTS_PER_ROW = 8


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


def _options(choices: Iterable[tuple[object, str]], chosen: object) -> str:
    """A select's options, the one whose value is ``chosen`` selected."""
    return "".join(
        f'<option value="{value}"{" selected" if value == chosen else ""}>{esc(label)}</option>'
        for value, label in choices
    )


def _sort_controls(m: Markup, sort: str) -> str:
    options = _options(SORT_OPTIONS, sort)
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
        f"<h1>{esc(product.name)}</h1>\n{form_errors(errors or [])}\n{body}\n</article>"
    )
    return layout(ctx, product.name, main)


def _add_to_cart_form(m: Markup, product: Product) -> str:
    sizes = _options(((size, str(size)) for size in SIZES), DEFAULT_SIZE)
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
        _checkout_field(FIELDS_BY_KEY[key], ctx.variant, values.get(key, ""))
        for key in m.checkout_order
    )
    main = (
        f"<h1>Checkout</h1>\n{_order_summary(lines)}\n{form_errors(errors or [])}\n"
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
    return (
        f'<select id="{ident}" name="{name}" aria-required="true">'
        f'<option value="">Choose a country</option>{_options(COUNTRIES, value)}</select>'
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
        f"{HIDDEN_FIXTURES}\n</body>\n</html>\n"
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
