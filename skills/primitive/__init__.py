"""The primitive skills: small async functions over the current page, one module each."""

from browser_agent.skills.primitive.bulk_enter_text import bulk_enter_text
from browser_agent.skills.primitive.click import click
from browser_agent.skills.primitive.enter_text import enter_text
from browser_agent.skills.primitive.enter_text_and_click import enter_text_and_click
from browser_agent.skills.primitive.extract_text import extract_text
from browser_agent.skills.primitive.find_elements import find_elements
from browser_agent.skills.primitive.get_dom import get_dom
from browser_agent.skills.primitive.get_url import get_url
from browser_agent.skills.primitive.go_back import go_back
from browser_agent.skills.primitive.hover import hover
from browser_agent.skills.primitive.open_url import open_url
from browser_agent.skills.primitive.press_key_combination import press_key_combination
from browser_agent.skills.primitive.scroll import scroll
from browser_agent.skills.primitive.select_option import select_option

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

# The answer to an observation that would repeat the one just before it word for word: the
# model has that view already (a page's view can be thousands of tokens).
SAME_VIEW = (
    "Same as your previous {name} answer, word for word: nothing changed on the page since. "
    "Act on what it showed (click, enter_text, select_option) or finish."
)

# What a person can do in a page that no primitive does: a recording keeps it by name, and
# the harvest report says why a skill cannot do it.
NOT_REPLAYABLE = {
    "drag_and_drop": "no primitive drags an element onto another",
    "upload_file": "a skill does not choose files from the disk (which file is the person's)",
}

__all__ = ["NOT_REPLAYABLE", "OBSERVATION_ONLY", "PRIMITIVES", "SAME_VIEW", *PRIMITIVES]
