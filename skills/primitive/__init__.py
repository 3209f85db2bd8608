"""The primitive skills: small async functions over the current page, one module each."""

from skills.primitive.bulk_enter_text import bulk_enter_text
from skills.primitive.click import click
from skills.primitive.enter_text import enter_text
from skills.primitive.enter_text_and_click import enter_text_and_click
from skills.primitive.extract_text import extract_text
from skills.primitive.find_elements import find_elements
from skills.primitive.get_dom import get_dom
from skills.primitive.get_url import get_url
from skills.primitive.go_back import go_back
from skills.primitive.hover import hover
from skills.primitive.open_url import open_url
from skills.primitive.press_key_combination import press_key_combination
from skills.primitive.scroll import scroll
from skills.primitive.select_option import select_option

PRIMITIVES = {
    fn.__name__: fn
    for fn in (
        open_url,
        get_url,
        get_dom,
        find_elements,
        click,
        enter_text,
        enter_text_and_click,
        select_option,
        press_key_combination,
        hover,
        scroll,
        go_back,
        extract_text,
        bulk_enter_text,
    )
}

# Calls that only look at the page; the harvester drops them.
OBSERVATION_ONLY = frozenset({"get_dom", "get_url", "extract_text", "find_elements"})

__all__ = ["OBSERVATION_ONLY", "PRIMITIVES", *PRIMITIVES]
