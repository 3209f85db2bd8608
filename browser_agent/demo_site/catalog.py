"""The demo shop's data and rules: products, search and sorting, deals, stores, the cart.

Everything here is fixed and deterministic, so tests and benchmarks can compute the
expected page content from this module (or from ``/api/products``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

SIZES = range(38, 47)
DEFAULT_SIZE = 42
MAX_QUANTITY = 99
MAX_CART_LINES = 20

#: Query words that match every product: all products are shoes, and filler words
#: carry no meaning for the search.
WILDCARD_WORDS = frozenset({"shoe", "shoes", "a", "an", "and", "for", "the", "with"})

#: Sort keys and their visible labels, in the order the sort select lists them.
SORT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("featured", "Featured"),
    ("best_seller", "Best seller"),
    ("price_asc", "Price: low to high"),
    ("price_desc", "Price: high to low"),
    ("rating", "Customer rating"),
)
DEFAULT_SORT = "featured"


@dataclass(frozen=True)
class Product:
    """One shoe. ``sales_rank`` 1 is the best seller; ``price_cents`` is in US cents."""

    slug: str
    name: str
    category: str
    price_cents: int
    sales_rank: int
    rating: float
    description: str

    @property
    def price_text(self) -> str:
        return format_price(self.price_cents)

    @property
    def url(self) -> str:
        return f"/product/{self.slug}"

    def as_json(self) -> dict[str, object]:
        """The product as the JSON API shows it."""
        return {
            "slug": self.slug,
            "name": self.name,
            "category": self.category,
            "price_cents": self.price_cents,
            "price": self.price_text,
            "sales_rank": self.sales_rank,
            "rating": self.rating,
            "description": self.description,
            "url": self.url,
        }


PRODUCTS: tuple[Product, ...] = (
    Product("trail-blazer-2", "Trail Blazer 2", "Trail", 8900, 3, 4.6,
            "Grippy trail shoes for muddy forest paths, with a rock plate."),
    Product("road-glide-5", "Road Glide 5", "Running", 11900, 1, 4.7,
            "Cushioned daily road runner with a smooth, springy ride."),
    Product("river-sandal", "River Sandal", "Sandals", 4900, 8, 4.4,
            "Quick-drying sandal for rivers, lakes and summer walks."),
    Product("alpine-trek-mid", "Alpine Trek Mid", "Hiking", 15900, 6, 4.6,
            "Waterproof mid-cut boot with ankle support for long treks."),
    Product("summit-trail-runner", "Summit Trail Runner", "Trail", 12900, 7, 4.8,
            "Light trail runner for fast ascents and technical descents."),
    Product("daily-trainer", "Daily Trainer", "Running", 5999, 2, 4.2,
            "Affordable everyday running shoe for easy miles."),
    Product("beach-slide", "Beach Slide", "Sandals", 2499, 11, 3.7,
            "Soft foam slide for the beach and the pool."),
    Product("ridge-runner-gtx", "Ridge Runner GTX", "Trail", 14900, 12, 4.3,
            "Waterproof trail shoe with a breathable membrane for wet ridges."),
    Product("tempo-flash", "Tempo Flash", "Running", 13900, 4, 4.4,
            "Responsive racer for tempo runs and race day."),
    Product("glacier-boot", "Glacier Boot", "Hiking", 18900, 18, 4.5,
            "Insulated winter boot with a studded outsole for snow and ice."),
    Product("mud-dog", "Mud Dog", "Trail", 7450, 15, 4.1,
            "Deep-lug trail shoe that sheds mud on wet forest tracks."),
    Product("city-miler", "City Miler", "Running", 6900, 9, 4.0,
            "Lightweight running shoe for short runs around town."),
    Product("ridgeline-hiker", "Ridgeline Hiker", "Hiking", 13400, 10, 4.3,
            "Low hiker for day hikes on rocky trails."),
    Product("trail-sandal-pro", "Trail Sandal Pro", "Sandals", 6400, 17, 4.5,
            "Adjustable sandal with a grippy sole for light hiking."),
    Product("canyon-scout", "Canyon Scout", "Trail", 9900, 5, 4.5,
            "Stable trail shoe for dusty canyon paths and scree."),
    Product("marathon-pro", "Marathon Pro", "Running", 17900, 14, 4.9,
            "Carbon-plated marathon racer for personal bests."),
    Product("wander-low", "Wander Low", "Hiking", 8900, 13, 4.0,
            "Comfortable walking shoe for easy countryside hikes."),
    Product("flip-classic", "Flip Classic", "Sandals", 1900, 21, 3.5,
            "Simple flip-flop with a rubber strap."),
    Product("forest-sprint", "Forest Sprint", "Trail", 10900, 19, 3.9,
            "Nimble trail racer for short forest races."),
    Product("track-spike-x", "Track Spike X", "Running", 9400, 22, 3.8,
            "Spiked shoe for the track, from 200 m to 1500 m."),
    Product("peak-bagger", "Peak Bagger", "Hiking", 16900, 20, 4.7,
            "Stiff approach boot for scrambles and alpine summits."),
    Product("strap-hiker", "Strap Hiker", "Sandals", 5400, 23, 4.2,
            "Sporty sandal with three straps for warm-weather hikes."),
    Product("moor-walker", "Moor Walker", "Hiking", 11900, 16, 4.1,
            "Leather walking boot for boggy moors and long walks."),
    Product("lagoon-sandal", "Lagoon Sandal", "Sandals", 3900, 24, 4.0,
            "Cork footbed sandal for holidays and city strolls."),
)  # fmt: skip

CATEGORIES: tuple[str, ...] = ("Trail", "Running", "Hiking", "Sandals")

_BY_SLUG = {product.slug: product for product in PRODUCTS}
_ORDER = {product.slug: number for number, product in enumerate(PRODUCTS)}
_WORD = re.compile(r"[a-z0-9]+")


def format_price(cents: int) -> str:
    """``8900`` -> ``"$89.00"``."""
    return f"${cents // 100:,}.{cents % 100:02d}"


def find_product(slug: str) -> Product | None:
    """The product with this slug, or None."""
    return _BY_SLUG.get(slug)


def query_words(query: str) -> list[str]:
    """The words of a query that must match, lower-cased, wildcard words dropped."""
    return [word for word in _WORD.findall(query.lower()) if word not in WILDCARD_WORDS]


def matches(product: Product, words: list[str]) -> bool:
    """Search rule: every query word is the start of a word in the name, category or
    description (case-insensitive), so "trail" matches "trails" and "run" matches
    "runner". Words in :data:`WILDCARD_WORDS` (such as "shoes") match every product.
    """
    text = f"{product.name} {product.category} {product.description}".lower()
    product_words = _WORD.findall(text)
    return all(any(pw.startswith(word) for pw in product_words) for word in words)


def sort_products(products: list[Product], sort: str) -> list[Product]:
    """Products in the order of a sort key from :data:`SORT_OPTIONS`; ties go by slug.

    An unknown key means ``featured``: the catalog's own order.
    """
    if sort == "best_seller":
        return sorted(products, key=lambda p: (p.sales_rank, p.slug))
    if sort == "price_asc":
        return sorted(products, key=lambda p: (p.price_cents, p.slug))
    if sort == "price_desc":
        return sorted(products, key=lambda p: (-p.price_cents, p.slug))
    if sort == "rating":
        return sorted(products, key=lambda p: (-p.rating, p.slug))
    return sorted(products, key=lambda p: _ORDER[p.slug])


def search(query: str, sort: str = DEFAULT_SORT) -> list[Product]:
    """Products matching every word of ``query`` (see :func:`matches`), sorted."""
    words = query_words(query)
    return sort_products([p for p in PRODUCTS if matches(p, words)], sort)


@dataclass(frozen=True)
class Deal:
    """A discounted product."""

    product: Product
    percent_off: int

    @property
    def price_cents(self) -> int:
        return (self.product.price_cents * (100 - self.percent_off) + 50) // 100

    def as_json(self) -> dict[str, object]:
        """The deal as ``/api/deals`` shows it."""
        return {
            "slug": self.product.slug,
            "name": self.product.name,
            "url": self.product.url,
            "was": self.product.price_text,
            "now": format_price(self.price_cents),
            "percent_off": self.percent_off,
        }


DEALS: tuple[Deal, ...] = (
    Deal(_BY_SLUG["trail-blazer-2"], 20),
    Deal(_BY_SLUG["road-glide-5"], 15),
    Deal(_BY_SLUG["river-sandal"], 30),
    Deal(_BY_SLUG["glacier-boot"], 25),
)


@dataclass(frozen=True)
class Store:
    """A shop the store locator can find."""

    name: str
    city: str
    postal_code: str
    address: str

    def as_json(self) -> dict[str, str]:
        """The store as ``/api/stores`` shows it: its fields, in their order."""
        return asdict(self)


STORES: tuple[Store, ...] = (
    Store("Stride Berlin Mitte", "Berlin", "10115", "Invalidenstrasse 12"),
    Store("Stride Berlin Kreuzberg", "Berlin", "10997", "Oranienstrasse 40"),
    Store("Stride Hamburg", "Hamburg", "20095", "Moenckebergstrasse 7"),
    Store("Stride Munich", "Munich", "80331", "Kaufingerstrasse 3"),
    Store("Stride Paris", "Paris", "75001", "Rue de Rivoli 88"),
    Store("Stride Amsterdam", "Amsterdam", "1012", "Kalverstraat 21"),
    Store("Stride London", "London", "W1B", "Regent Street 200"),
    Store("Stride Copenhagen", "Copenhagen", "1050", "Stroget 15"),
)


def find_stores(query: str) -> list[Store]:
    """Stores whose city or name contains the query, or whose postal code starts with it."""
    needle = query.strip().lower()
    if not needle:
        return []
    return [
        store
        for store in STORES
        if needle in store.city.lower()
        or needle in store.name.lower()
        or store.postal_code.lower().startswith(needle)
    ]


@dataclass(frozen=True)
class CartLine:
    """A product in one size, in some quantity."""

    product: Product
    size: int
    quantity: int

    @property
    def key(self) -> str:
        """What a "Remove" button names: ``slug:size``."""
        return f"{self.product.slug}:{self.size}"

    @property
    def total_cents(self) -> int:
        return self.product.price_cents * self.quantity


_CART_ENTRY = re.compile(r"([a-z0-9-]{1,60}):(\d{2}):(\d{1,2})")


def decode_cart(raw: str) -> list[CartLine]:
    """Cart lines from the cookie value ``slug:size:qty|...``; anything malformed is empty."""
    if not raw:
        return []
    entries = raw.split("|")
    if len(entries) > MAX_CART_LINES:
        return []
    lines = [line for line in map(_decode_line, entries) if line is not None]
    if len(lines) != len(entries) or len({line.key for line in lines}) != len(lines):
        return []
    return lines


def _decode_line(entry: str) -> CartLine | None:
    match = _CART_ENTRY.fullmatch(entry)
    if match is None:
        return None
    product = find_product(match[1])
    size, quantity = int(match[2]), int(match[3])
    if product is None or size not in SIZES or not 1 <= quantity <= MAX_QUANTITY:
        return None
    return CartLine(product, size, quantity)


def encode_cart(lines: list[CartLine]) -> str:
    """The cookie value for these lines (only cookie-safe characters)."""
    return "|".join(f"{line.key}:{line.quantity}" for line in lines)


def add_to_cart(
    lines: list[CartLine], product: Product, size: int, quantity: int
) -> list[CartLine]:
    """Lines with ``quantity`` more of the product in that size (capped at MAX_QUANTITY).

    Raises ValueError when that would need more than MAX_CART_LINES lines.
    """
    key = f"{product.slug}:{size}"
    if any(line.key == key for line in lines):
        return [
            CartLine(line.product, line.size, min(MAX_QUANTITY, line.quantity + quantity))
            if line.key == key
            else line
            for line in lines
        ]
    if len(lines) >= MAX_CART_LINES:
        raise ValueError(f"Your cart holds at most {MAX_CART_LINES} lines")
    return [*lines, CartLine(product, size, quantity)]


def remove_from_cart(lines: list[CartLine], key: str) -> list[CartLine]:
    """Lines without the one named by ``key`` (``slug:size``)."""
    return [line for line in lines if line.key != key]


def cart_total_cents(lines: Iterable[CartLine]) -> int:
    """Sum of the line totals."""
    return sum(line.total_cents for line in lines)


#: Shipping methods: key, visible label, fee in cents.
SHIPPING_OPTIONS: tuple[tuple[str, str, int], ...] = (
    ("standard", "Standard shipping (free)", 0),
    ("express", "Express shipping ($15.00)", 1500),
)

#: Countries the checkout ships to: code, visible name.
COUNTRIES: tuple[tuple[str, str], ...] = (
    ("DE", "Germany"),
    ("DK", "Denmark"),
    ("FR", "France"),
    ("GB", "United Kingdom"),
    ("NL", "Netherlands"),
    ("US", "United States"),
)


@dataclass(frozen=True)
class Order:
    """A placed order, as the confirmation page shows it."""

    number: str
    full_name: str
    shipping: str
    lines: tuple[CartLine, ...]

    @property
    def shipping_cents(self) -> int:
        return next(fee for key, _, fee in SHIPPING_OPTIONS if key == self.shipping)

    @property
    def total_cents(self) -> int:
        return cart_total_cents(self.lines) + self.shipping_cents
