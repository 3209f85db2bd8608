"""What a final page shows, read once for the end-state check: title, headings, text,
fields, listed items and tables of every frame, each text :func:`normal`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.dom.library import settled_evaluate
from browser_agent.words.asks import quoted
from browser_agent.words.text_match import normal

# What a page shows, read in one evaluation per frame: its title, headings, visible text
# (a drop-down's options left out: offered, not said), the values its visible fields hold
# and the options they show chosen (a password or hidden field is never read), the items
# it lists (links, rows, list items), whether it asks for a password, and its HTTP status.
_READ_PAGE = """() => {
  const fields = [], typed = [], chosen = [], headings = [], listed = [];
  const texts = [document.body ? document.body.innerText : ''];
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll('*')) {
      if (el.shadowRoot) {
        roots.push(el.shadowRoot);
        for (const child of el.shadowRoot.children) texts.push(child.innerText || '');
      }
    }
  }
  const shown = (el) =>
    el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const all = (css) => roots.flatMap((root) => [...root.querySelectorAll(css)]).filter(shown);
  // What an editor holds (a contenteditable title or body) is typed, not shown by the page.
  const editors = all('[contenteditable]').filter((el) =>
    el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable));
  for (const el of editors) {
    const held = el.innerText || '';
    typed.push(held);
    if (held.trim()) texts[0] = texts[0].replace(held, ' ');
  }
  // A drop-down of the page's own making (a combobox that is no field, as widget kits draw
  // them) shows the option chosen as its text: chosen, as a native drop-down's is.
  // The options it offers (a listbox) are not what the page says, as a native one's are not.
  for (const el of all('[role=combobox], [aria-haspopup=listbox]')) {
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) continue;
    const held = el.innerText || '';
    chosen.push(held);
    if (held.trim()) texts[0] = texts[0].replace(held, ' ');
  }
  for (const el of roots.flatMap((root) => [...root.querySelectorAll('[role=listbox]')])) {
    const offered = el.innerText || '';
    if (offered.trim()) texts[0] = texts[0].replace(offered, ' ');
  }
  const controls = roots.flatMap((root) => [...root.querySelectorAll('input, textarea, select')]);
  let password = false;
  for (const el of controls) {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'password' && shown(el)) password = true;
    if (['password', 'hidden', 'checkbox', 'radio', 'file'].includes(type)) continue;
    if (el.tagName === 'SELECT') {
      for (const option of el.selectedOptions) fields.push(option.text, option.value);
      if (shown(el)) for (const option of el.selectedOptions) chosen.push(option.text);
      // its options are choices offered, not what the page says: the chosen ones are held
      const offered = el.innerText || '';
      if (offered.trim()) texts[0] = texts[0].replace(offered, ' ');
    } else {
      fields.push(el.value || '');
      const pressed = ['submit', 'button', 'reset', 'image'].includes(type);
      if (shown(el) && !pressed) typed.push(el.value || '');
    }
  }
  for (const el of all('h1, h2, [role=heading]')) {
    if (!el.isContentEditable) headings.push(el.innerText || '');
  }
  for (const el of all('a[href], li, td, th, dt, option').slice(0, 3000)) {
    listed.push(el.innerText || el.textContent || '');
  }
  const tables = all('table').slice(0, 5).map((table) => {
    const rows = [...table.rows].filter(shown).slice(0, 200);
    const cells = (row) => [...row.cells].map((cell) => cell.innerText || '');
    const heads = (row) => row.parentElement.tagName === 'THEAD'
      || (row.cells.length > 0 && [...row.cells].every((cell) => cell.tagName === 'TH'));
    const head = rows.findIndex(heads);  // a row of a form's labels (th, then td) is none
    return head < 0 ? null : { headers: cells(rows[head]), rows: rows.slice(head + 1).map(cells) };
  }).filter(Boolean);
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    title: document.title || '',
    text: texts.join(' '),
    fields, typed, chosen, headings, listed, password, tables,
    status: (nav && nav.responseStatus) || 0,
  };
}"""


@dataclass
class Seen:
    """What a page shows, every frame together, each text already :func:`normal`:
    ``own`` what the page itself says (title, headings, text), ``texts`` that plus its
    fields and address, ``typed`` what its visible text fields hold, ``chosen`` the
    options its visible drop-downs show chosen (native ones, and comboboxes a page draws)."""

    address: str
    status: int = 0
    titles: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    own: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    typed: list[str] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # what every field holds, shown or not
    held: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    password: bool = False
    tables: list[dict[str, Any]] = field(default_factory=list)  # headers, rows (as shown)
    url: str = ""  # the address as the page has it


async def read_page(page: Page) -> Seen:
    """Read ``page`` and its frames once (a frame that went away is passed over)."""
    seen = Seen(normal(unquote_plus(page.url)), url=page.url)
    seen.texts.append(seen.address)
    seen.held.append(seen.address)
    for frame in page.frames:
        try:  # a page a navigation replaces meanwhile is read once it is in place
            read = await settled_evaluate(frame, _READ_PAGE)
        except PlaywrightError:  # a frame that went away or will not run scripts
            continue
        fields = [normal(str(value)) for value in read["fields"]]
        title = normal(read["title"])
        if frame == page.main_frame:
            seen.status = int(read["status"])
            parts = re.split(r"\s+[-–—|·:»]\s+|\s*[|–—·»]\s*", read["title"])
            seen.titles += [title, *(normal(part) for part in parts)]
        seen.headings += [normal(text) for text in read["headings"]]
        seen.own += [title, *seen.headings, normal(read["text"])]
        seen.texts += [title, normal(read["text"]), *fields]
        seen.fields += fields
        seen.typed += [normal(str(value)) for value in read["typed"]]
        seen.chosen += [normal(str(value)) for value in read["chosen"]]
        seen.held += [title, *fields, *map(normal, quoted(read["text"]))]
        seen.listed += [normal(text) for text in read["listed"]]
        seen.password |= bool(read["password"])
        seen.tables += read["tables"]
    return seen


async def shown_words(page: Page) -> list[str]:
    """What the page shows (title, headings, text, what its visible fields hold and the
    options they show), word by word, each word holding a digit masked: two pages showing
    one thing give one list whatever their dates."""
    seen = await read_page(page)
    words = " ".join([*seen.own, *seen.typed, *seen.chosen]).split()
    return ["#" if any(char.isdigit() for char in word) else word for word in words]
