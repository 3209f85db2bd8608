"""The shared frame of every demo shop page: head, header (brand, nav, search), main,
footer (newsletter form, hidden fixtures), and the escaping every dynamic value goes
through."""

from __future__ import annotations

from html import escape
from urllib.parse import urlencode

from browser_agent.demo_site.variants import PageContext

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

HIDDEN_FIXTURES = (
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
    footer = (nav if m.nav_in_footer else "") + _NEWSLETTER_FORM + HIDDEN_FIXTURES
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


def form_errors(errors: list[str]) -> str:
    """The alert listing a form's errors; nothing when there are none."""
    if not errors:
        return ""
    items = "".join(f"<li>{esc(error)}</li>" for error in errors)
    return (
        '<div id="form-errors" class="errors" role="alert">'
        f"<p>Please correct the following:</p><ul>{items}</ul></div>"
    )
