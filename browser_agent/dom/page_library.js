// In-page helper for the agent. Evaluated as one function; `arg.op` picks the job:
//   observe  - assign sequential mmid attributes to every element (frames and open
//              shadow roots included) and return one window of the distilled DOM
//   find     - the same numbering; every actionable element with its line and texts
//   describe - opening tag with identifying attributes of one element
//   identity - [tag, role, name, is password] of one element, to check it is the same
//   held     - what a field holds: its value, or an editor box's text
//   inspect  - identity plus opening tag and visibility, in one round trip
//   options  - [value, label] of each option of a <select>
//   suggests - whether a field offers suggestions as one types (an autocomplete)
//   candidates - every visible element of a role (or tag) with what identifies it:
//              attributes, landmark, heading, label, place and nearby text
//   watch    - start counting DOM changes (mutation observers)
//   changes  - report what changed since `watch`
// Called as page.evaluate(fn, arg) or locator.evaluate(fn, arg).
(first, second) => {
  const target = second === undefined ? null : first;
  const arg = second === undefined ? first : second;

  const SKIP_TAGS = new Set([
    "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE",
  ]);
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "textbox", "searchbox", "combobox", "slider",
    "spinbutton", "treeitem", "listbox",
  ]);
  // Widgets made of items: the items are what a person clicks, so the container is walked
  // into rather than listed as one control holding all their text.
  const CONTAINER_ROLES = new Set([
    "menu", "menubar", "tree", "treegrid", "grid", "tablist", "radiogroup", "toolbar",
    "listbox",
  ]);
  // Generic elements a pointer cursor marks as clickable are listed, except these, which
  // already say what they are (a label clicks its own field; headings are structure).
  const NOT_CLICKABLE_TEXT = new Set(["LABEL", "H1", "H2", "H3", "H4", "H5", "H6", "BODY", "HTML"]);
  const ID_ATTRS = [
    "id", "name", "type", "role", "data-testid", "aria-label", "placeholder", "title",
    "alt", "href", "for", "value", "contenteditable", "data-placeholder", "aria-placeholder",
  ];
  const HEADINGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);

  // Page text is always one line: every character that could start a new line (for
  // any reader: \x1c-\x1f and \x85 too) becomes a space, so page text never forges one.
  const squash = (s, max) => {
    const t = (s || "").replace(/[\s\x00-\x1f\x7f-\x9f]+/g, " ").trim();
    return t.length > max ? t.slice(0, max - 1) + "…" : t;
  };

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.trim().split(/\s+/)[0];
    switch (el.tagName) {
      case "A": return el.hasAttribute("href") ? "link" : null;
      case "BUTTON": case "SUMMARY": return "button";
      case "SELECT": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "TEXTAREA": return "textbox";
      case "OPTION": return "option";
      case "IMG": return "img";
      case "DIALOG": return "dialog";
      case "INPUT": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (["button", "submit", "reset", "image"].includes(type)) return "button";
        if (type === "checkbox" || type === "radio") return type;
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return "searchbox";
        if (type === "hidden") return null;
        return "textbox";
      }
    }
    if (isEditingHost(el)) return "textbox"; // an editable heading is typed into
    if (HEADINGS.has(el.tagName)) return "heading";
    return null;
  }

  // An element a person types into that is no form field: a rich-text editor's box.
  function isEditingHost(el) {
    return el.isContentEditable && el.getAttribute("contenteditable") !== null;
  }

  function textOf(el) {
    return squash(el.textContent, 120);
  }

  function nameOf(el) {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const root = el.getRootNode();
      const parts = labelledBy.split(/\s+/).map((id) => {
        const ref = root.getElementById ? root.getElementById(id) : null;
        return ref ? ref.textContent : "";
      });
      const joined = squash(parts.join(" "), 120);
      if (joined) return joined;
    }
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return squash(aria, 120);
    // An editor box is named by its placeholder, never by the text typed into it.
    if (isEditingHost(el)) {
      const hint = ["aria-placeholder", "data-placeholder", "placeholder", "title"]
        .map((a) => el.getAttribute(a)).find((v) => v && v.trim());
      return squash(hint || "", 120);
    }
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset"].includes(type)) {
        return squash(el.value || (type === "submit" ? "Submit" : type), 120);
      }
      if (type === "image") return squash(el.getAttribute("alt") || "", 120);
      if (el.labels && el.labels.length) {
        const label = squash(Array.from(el.labels, (l) => l.textContent).join(" "), 120);
        if (label) return label;
      }
      return squash(el.getAttribute("placeholder") || el.getAttribute("title") || "", 120);
    }
    if (tag === "IMG") return squash(el.getAttribute("alt") || "", 120);
    const text = textOf(el);
    if (text) return text;
    const img = el.querySelector && el.querySelector("img[alt]");
    if (img) return squash(img.getAttribute("alt"), 120);
    return squash(el.getAttribute("title") || "", 120);
  }

  function isInteractive(el, role) {
    const tag = el.tagName;
    if (tag === "A") return el.hasAttribute("href");
    if (["BUTTON", "SELECT", "TEXTAREA", "SUMMARY"].includes(tag)) return true;
    if (tag === "INPUT") return (el.getAttribute("type") || "").toLowerCase() !== "hidden";
    if (role && CONTAINER_ROLES.has(role)) return false;
    if (role && INTERACTIVE_ROLES.has(role)) return true;
    if (isEditingHost(el)) return true;
    if (el.hasAttribute("onclick")) return true;
    const tabindex = el.getAttribute("tabindex");
    // A focusable box of several items with no role (a suggestion list) is walked into.
    if (!role && (el.children.length > 1 || ["UL", "OL"].includes(el.tagName))) return false;
    return tabindex !== null && Number(tabindex) >= 0;
  }

  // Visible as Playwright's `visible=true` means it (its computeBox, in Chromium): a box of
  // some size and no style that hides it; `display: contents` has no box of its own, so
  // its children decide.
  function shownLikePlaywright(el) {
    const style = getComputedStyle(el);
    if (style.display === "contents") {
      for (const child of el.childNodes) {
        if (child.nodeType === Node.ELEMENT_NODE && shownLikePlaywright(child)) return true;
        if (child.nodeType === Node.TEXT_NODE) {
          const range = document.createRange();
          range.selectNode(child);
          const box = range.getBoundingClientRect();
          if (box.width > 0 && box.height > 0) return true;
        }
      }
      return false;
    }
    if (!el.checkVisibility() || style.visibility !== "visible") return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  // Whether a person can see and use the element. A see-through control laid over what
  // shows its name (a checkbox over its label or inside the text it opens: menus made
  // without script) is used by clicking what shows beneath it, so it counts as shown when
  // it is topmost at its centre and the next thing there is its label or a small box
  // holding it; a see-through control over nothing of its own stays hidden.
  // Placed wholly above or left of the page (a menu's fly-out kept at top: -1000em until
  // hovered, a skip link): no scrolling brings it into view, so the page's view leaves it
  // out. (Playwright counts it visible, and so do the selectors a skill finds things by.)
  function offPage(el) {
    const where = el.getBoundingClientRect();
    return where.right + scrollX <= 0 || where.bottom + scrollY <= 0;
  }

  function usable(el) {
    if (el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return true;
    if (!el.checkVisibility({ checkVisibilityCSS: true })) return false;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) return false;
    const cx = rect.left + rect.width / 2;
    const cy = rect.top + rect.height / 2;
    if (cx < 0 || cy < 0 || cx > innerWidth || cy > innerHeight) return false;
    const stack = document.elementsFromPoint(cx, cy);
    if (stack[0] !== el) return false;
    const beneath = stack.find((other) => other !== el && !el.contains(other));
    if (!beneath || !beneath.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
      return false;
    }
    if (Array.from(el.labels || []).some((label) => label.contains(beneath))) return true;
    const box = beneath.getBoundingClientRect();
    return beneath.contains(el) && box.width * box.height <= 4 * rect.width * rect.height;
  }

  // Where to click an element another one partly covers (two buttons that overlap): a
  // point of it a person can see, relative to its box; null when its centre is free or
  // it is out of view (then the browser scrolls to it and clicks the centre).
  function uncoveredPoint(el, rect) {
    const mine = (x, y) => {
      const hit = document.elementFromPoint(x, y);
      return hit !== null && (hit === el || el.contains(hit));
    };
    const cx = rect.left + rect.width / 2;
    const cy = rect.top + rect.height / 2;
    if (cx < 0 || cy < 0 || cx > innerWidth || cy > innerHeight || mine(cx, cy)) return null;
    if (document.elementFromPoint(cx, cy) === null) return null;
    for (const fy of [0.5, 0.25, 0.75, 0.1, 0.9]) {
      for (const fx of [0.5, 0.25, 0.75, 0.1, 0.9]) {
        const x = rect.left + rect.width * fx;
        const y = rect.top + rect.height * fy;
        if (mine(x, y)) return { x: x - rect.left, y: y - rect.top };
      }
    }
    return null;
  }

  function hasOwnText(el) {
    for (let node = el.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3 && node.nodeValue.trim()) return true;
    }
    return false;
  }

  // A generic element that scripts made clickable: the page gives it a pointer cursor and
  // it carries text of its own (a tree node, a link drawn as a span, a div "Submit").
  function isPointerClickable(el, role) {
    if (role || NOT_CLICKABLE_TEXT.has(el.tagName) || !hasOwnText(el)) return false;
    if (el.closest("label")) return false;
    return getComputedStyle(el).cursor === "pointer";
  }

  function isPassword(el) {
    return el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "password";
  }

  function q(value) {
    return JSON.stringify(value);
  }

  // Attribute values: bare when they are one simple token, quoted otherwise.
  function av(value) {
    return /^[\w\-./:#?=&%+]+$/.test(value) ? value : JSON.stringify(value);
  }

  // Input types a role already says, so listing them again only costs tokens.
  const IMPLIED_TYPES = {
    textbox: "text", searchbox: "search", checkbox: "checkbox", radio: "radio",
    spinbutton: "number", slider: "range",
  };

  function describe(el) {
    const tag = el.tagName.toLowerCase();
    const parts = [tag];
    for (const name of ID_ATTRS) {
      if (!el.hasAttribute(name)) continue;
      if (name === "value" && isPassword(el)) continue;
      parts.push(`${name}=${q(squash(el.getAttribute(name), 80))}`);
    }
    if (el.tagName === "INPUT" && !isPassword(el) && ["checkbox", "radio"].includes(el.type)) {
      if (el.checked) parts.push("checked");
    }
    const open = `<${parts.join(" ")}>`;
    if (["INPUT", "SELECT", "TEXTAREA", "IMG"].includes(el.tagName)) return open;
    const text = textOf(el).slice(0, 60);
    return text ? `${open}${text}</${tag}>` : open;
  }

  function stateOf(el) {
    const states = [];
    if (el.disabled) states.push("disabled");
    if (el.readOnly) states.push("readonly");
    if (el.required) states.push("required");
    if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) {
      states.push(el.checked ? "checked" : "unchecked");
    }
    const expanded = el.getAttribute("aria-expanded");
    if (expanded !== null) states.push(expanded === "true" ? "expanded" : "collapsed");
    // a menu of its own (ARIA's aria-haspopup): one that opens on pointing at a link that
    // goes elsewhere when clicked (an administration's fly-out of Posts: Categories, Tags)
    if (["true", "menu"].includes(el.getAttribute("aria-haspopup"))) states.push("has menu");
    if (el.getAttribute("aria-selected") === "true") states.push("selected");
    if (el.getAttribute("aria-pressed") === "true") states.push("pressed");
    const checked = el.getAttribute("aria-checked");
    if (checked !== null && el.tagName !== "INPUT") {
      states.push(checked === "true" ? "checked" : checked === "mixed" ? "mixed" : "unchecked");
    }
    return states;
  }

  // What a typed field holds (shown after its name as `"Name": value`), else null.
  function heldValue(el) {
    if (isEditingHost(el)) return el.innerText.trim() ? av(squash(el.innerText, 60)) : null;
    if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return null;
    if (isPassword(el) || !el.value) return null;
    // a file field's value names a file of the person's disk: never shown
    if (["checkbox", "radio", "submit", "button", "reset", "image", "file"].includes(el.type)) {
      return null;
    }
    return av(squash(el.value, 60));
  }

  // ``withHref``: a link's target is part of the line (find_elements); get_dom adds it
  // afterwards only where it says something the name does not (see linkTarget). A named
  // element leaves out its form key (name=): the name is what tells it apart.
  function fieldLine(el, mmid, role, name, withHref = true) {
    const bits = [`[${mmid}]`, role || el.tagName.toLowerCase()];
    if (name) bits.push(q(name));
    const held = heldValue(el);
    if (held !== null) bits[bits.length - 1] += `: ${held}`;
    for (const attr of ["id", "name", "type", "data-testid", "placeholder", "aria-label"]) {
      const v = el.getAttribute(attr);
      if (v === null || v === "") continue;
      if (attr === "name" && name) continue;
      if ((attr === "aria-label" || attr === "placeholder") && squash(v, 120) === name) continue;
      if (attr === "type" && (el.tagName !== "INPUT" || IMPLIED_TYPES[role] === v)) continue;
      bits.push(`${attr}=${av(squash(v, 60))}`);
    }
    if (el.tagName === "A" && withHref) bits.push(`href=${av(shortHref(el.getAttribute("href")))}`);
    if (el.tagName === "SELECT") {
      const options = Array.from(el.options);
      const shown = options.slice(0, 30).map((o) => {
        return `${q(o.value)}:${q(squash(o.textContent, 40))}${o.selected ? "*" : ""}`;
      });
      if (options.length > 30) shown.push(`…${options.length - 30} more`);
      bits.push(`options=[${shown.join(", ")}]`);
    } else if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      if (isPassword(el)) {
        if (el.value) bits.push("(filled)");
      } else if (["checkbox", "radio"].includes(el.type) && el.value !== "on") {
        bits.push(`value=${av(squash(el.value, 40))}`);
      }
    }
    const states = stateOf(el);
    if (!role) states.push("clickable");
    if (states.length) bits.push(`(${states.join(", ")})`);
    return bits.join(" ");
  }

  const PHRASING = new Set([
    "SPAN", "STRONG", "B", "EM", "I", "SMALL", "CODE", "ABBR", "TIME", "SUP", "SUB", "MARK",
    "Q", "CITE", "KBD", "SAMP", "VAR", "U", "S", "BR", "DATA",
  ]);

  // An element whose children are all inline text markup: its whole text reads as one line.
  function inlineOnly(el) {
    if (!el.children.length || el.shadowRoot) return false;
    // One child holding all the text speaks for itself (a tree node's <li><span>).
    if (el.children.length === 1 && !hasOwnText(el)) return false;
    for (const child of el.children) if (!PHRASING.has(child.tagName)) return false;
    return true;
  }

  function ownText(el) {
    let text = "";
    for (let node = el.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3) text += node.nodeValue;
    }
    return squash(text, 200);
  }

  // Items of listboxes, menus, trees, grids and tab lists: what a person clicks, so they
  // are listed even inside another control (a combobox's popup, a tree item's subtree).
  const ITEM_ROLES = new Set([
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "tab",
  ]);
  // Grid cells and rows are items only when the page made them interactive.
  const isGridItem = (el, role) =>
    (role === "gridcell" || role === "row") &&
    (el.hasAttribute("tabindex") || el.hasAttribute("aria-selected") || el.hasAttribute("onclick"));
  const isItem = (el, role) => ITEM_ROLES.has(role) || isGridItem(el, role);

  // An item's name leaves out nested items (a tree node's children).
  function itemName(el) {
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return squash(aria, 120);
    if (!el.querySelector("[role]")) return nameOf(el);
    let text = "";
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_ALL, {
      acceptNode: (node) => {
        if (node.nodeType === 1 && node !== el && node.hasAttribute("role") &&
          (isItem(node, roleOf(node)) || node.getAttribute("role") === "group")) {
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    while (walker.nextNode()) if (walker.currentNode.nodeType === 3) text += walker.currentNode.nodeValue;
    return squash(text, 120) || nameOf(el);
  }

  // Query parameters that track a visit and identify nothing (utm_source, gclid, ...).
  const TRACKING =
    /^(?:utm_[a-z]+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|igshid|yclid)$/i;

  // The link target without its tracking parameters.
  function untracked(text) {
    const at = text.indexOf("?");
    if (at < 0) return text;
    const hash = text.indexOf("#", at);
    const end = hash < 0 ? text.length : hash;
    const kept = text
      .slice(at + 1, end)
      .split("&")
      .filter((pair) => pair && !TRACKING.test(pair.split("=")[0]));
    return text.slice(0, at) + (kept.length ? "?" + kept.join("&") : "") + text.slice(end);
  }

  // A link target as short as what identifies it: same-origin URLs as their path, other
  // sites without the scheme, no tracking parameters, long query values cut, at most 80
  // characters.
  function shortHref(raw) {
    let text = squash(raw, 2000);
    let url = null;
    try {
      url = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text) : null;
    } catch (e) {
      url = null;
    }
    if (url && (url.origin === location.origin && url.origin !== "null")) {
      text = url.pathname + url.search + url.hash;
    } else if (url && /^https?:$/.test(url.protocol)) {
      text = url.host.replace(/^www\./, "") + url.pathname + url.search + url.hash;
    }
    text = untracked(text).replace(
      /([?&][^=&#]*=)([^&#]{25,})/g,
      (_m, key, value) => key + value.slice(0, 16) + "…",
    );
    return text.length > 80 ? text.slice(0, 54) + "…" + text.slice(-25) : text;
  }

  // A link's shown target, and whether it must be shown whatever the link's name: it
  // leaves the site, it is this very page, or it is no address at all ("#", javascript:).
  function linkTarget(el) {
    const raw = el.getAttribute("href") || "";
    let url = null;
    try {
      url = new URL(raw, location.href);
    } catch (e) {
      url = null;
    }
    const here = location.protocol + "//" + location.host + location.pathname + location.search;
    const must = !url || !/^(https?|file):$/.test(url.protocol) ||
      url.protocol !== location.protocol || url.host !== location.host ||
      (url.protocol + "//" + url.host + url.pathname + url.search === here &&
        (!url.hash || url.hash === "#" || url.hash === location.hash));
    return { text: ` href=${av(shortHref(raw))}`, must };
  }

  // How many lines apart two links of the same name can be and still need their targets
  // to be told apart; farther apart, what lies around each tells them apart (as it does for
  // buttons of the same name), and find_elements shows every target.
  const NEAR_LINES = 20;

  // Links whose target is not needed to tell them apart lose it: a target is kept where
  // linkTarget says it must be, where the link has no name, or where another link with the
  // same name and another target is within NEAR_LINES lines.
  function dropPlainTargets(lines, targets) {
    const byName = new Map();
    for (const entry of targets) {
      if (!byName.has(entry[1])) byName.set(entry[1], []);
      byName.get(entry[1]).push(entry);
    }
    for (const group of byName.values()) {
      group.forEach(([index, name, target], at) => {
        if (target.must || !name) return;
        const near = (step) => {
          for (let i = at + step; i >= 0 && i < group.length; i += step) {
            if (Math.abs(group[i][0] - index) > NEAR_LINES) return false;
            if (group[i][2].text !== target.text) return true;
          }
          return false;
        };
        if (near(-1) || near(1)) return;
        lines[index] = lines[index].slice(0, -target.text.length);
      });
    }
  }

  // Text made only of punctuation and separators ("|", "»", ", ,") says nothing by itself.
  const SEPARATORS = /^[\p{P}\s|]*$/u;

  // Text around an element that says what it is for: its row, list item or label.
  function nearbyText(el) {
    const around = el.parentElement && el.parentElement.closest(
      "tr, li, [role=row], [role=listitem], dd, dt, p, label, fieldset, form, section",
    );
    return around ? squash(around.textContent, 160) : "";
  }

  // Walk every shown element in document order (frames and open shadow roots included),
  // numbering them with mmids, so an element keeps its mmid in every window of an
  // unchanged page. The window holds the lines from the viewport on (or page N of the page
  // from the top) up to the budget; actionable elements outside it are counted.
  function observe(opts) {
    const mode = opts.contentType;
    const budget = opts.budget;
    const wanted = opts.window || 0; // 0: from the viewport; -1: the last window
    const last = wanted < 0;
    const finding = mode === "find";
    const annotate = mode !== "text_only";
    const scrolled = !wanted && !finding && (window.scrollY > 0 || window.scrollX > 0);
    let lines = [];
    let registry = [];
    let targets = []; // [line index, link name, linkTarget] of the window's links
    const found = [];
    let size = 0;
    let cut = 0;
    let counter = 0;
    let interactiveCount = 0;
    let above = 0;
    let below = 0;
    let windowNo = 1;
    let windowItems = 0;
    let modal = null;

    // Once a line does not fit the wanted window, the rest is only counted: no names or
    // lines are built. Lines of earlier windows (page N) are built to know where each ends.
    // ``item``: the role of a listbox, menu, tree or tab item; an item right after another
    // item of the same role says "-" for its role, as a list goes on (never on the first
    // line of a window).
    let full = false;
    let lastItem = "";
    const emit = (line, entry, actionable, target, item = "") => {
      const said = `] ${item} `;
      const short = item && item === lastItem ? line.replace(said, "] - ") : line;
      if (!full && size + short.length + 1 > budget && size > 0 && (last || windowNo < wanted)) {
        windowNo += 1;
        above += windowItems;
        windowItems = 0;
        size = 0;
        lines = [];
        registry = [];
        targets = [];
      } else {
        line = short;
      }
      if (full || size + line.length + 1 > budget) {
        full = true;
        cut += 1;
        if (actionable) below += 1;
        return;
      }
      size += line.length + 1;
      lines.push(line);
      lastItem = item;
      if (target) targets.push([lines.length - 1, entry[3], target]);
      if (entry) registry.push(entry);
      if (actionable) windowItems += 1;
    };

    const stack = [];
    // Stack items: [element, insideInteractive, textAlreadySaid, aboveViewport] or
    // [null, endOfFrameLine, 0, aboveViewport].
    const pushChildren = (parent, inside, said, up) => {
      const kids = parent.children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], inside, said, up]);
    };
    const rootEl = document.body || document.documentElement;
    if (annotate) {
      for (const old of document.querySelectorAll("[mmid]")) old.removeAttribute("mmid");
    }
    pushChildren(rootEl, false, false, false);
    let rest = null; // what was left unwalked once the window was full: counted, not read
    while (stack.length) {
      if (full && !finding) {
        rest = countRest(stack);
        break;
      }
      const [el, inside, said, parentUp] = stack.pop();
      if (el === null) {
        if (!parentUp) emit(inside);
        continue;
      }
      if (el.nodeType !== 1 || SKIP_TAGS.has(el.tagName)) continue;
      if (!el.checkVisibility()) continue;
      if (el.getAttribute("aria-hidden") === "true") continue;
      const mmid = ++counter;
      if (annotate) el.setAttribute("mmid", String(mmid));
      const shown = usable(el) && !offPage(el);
      const role = roleOf(el);
      // Wholly above the viewport: counted, not shown (descendants follow their parent).
      const up = parentUp || (scrolled && el.ownerDocument === document &&
        el.getBoundingClientRect().bottom < 0);
      const item = isItem(el, role);
      let interactive = false;
      if (shown && (!inside || item) &&
        (item || isInteractive(el, role) || isPointerClickable(el, role))) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0) continue; // nobody can click a zero-size box
        interactive = true;
      }
      if (shown && el.tagName === "DIALOG" && el.open && !modal) modal = el;
      if (shown && role === "dialog" && el.getAttribute("aria-modal") === "true" && !modal) {
        modal = el;
      }
      if (interactive) interactiveCount += 1;
      if (interactive && finding) {
        const name = item || role === "combobox" ? itemName(el) : nameOf(el);
        const extra = ["aria-label", "placeholder", "title", "name", "id"]
          .map((a) => el.getAttribute(a) || "").join(" ");
        found.push([mmid, el.tagName.toLowerCase(), role || "", name,
          fieldLine(el, mmid, role, name), squash(extra, 200), nearbyText(el)]);
      } else if (interactive && up) {
        above += 1;
      } else if (interactive && full) {
        below += 1;
        cut += 1;
      } else if (interactive) {
        if (mode !== "text_only") {
          const name = item || role === "combobox" ? itemName(el) : nameOf(el);
          const target = el.tagName === "A" ? linkTarget(el) : null;
          const line = fieldLine(el, mmid, role, name, false) + (target ? target.text : "");
          emit(line, [mmid, el.tagName.toLowerCase(), role || "", name], true, target,
            item ? role : "");
        } else if (!["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) {
          const name = item || role === "combobox" ? itemName(el) : nameOf(el);
          if (name) emit(q(name), null, true);
        }
      }
      let sayAll = false;
      if (!interactive && shown && !inside && !said && !full && !up && !finding &&
        mode !== "input_fields") {
        sayAll = inlineOnly(el); // "Order <b>DS-1001</b> is placed" stays one line
        const text = sayAll ? squash(el.textContent, 200) : ownText(el);
        if (text && !SEPARATORS.test(text)) {
          if (mode === "text_only") emit(q(text)); // quoted: never reads as an element line
          else {
            // Page text is the mmid and the quoted text; a heading says its level.
            const kind = role === "heading" ? ` ${el.tagName.toLowerCase()}` : "";
            emit(`[${mmid}]${kind} ${q(text)}`, [mmid, el.tagName.toLowerCase(), role || "", text]);
          }
        }
      }
      if (el.tagName === "IFRAME") {
        let doc = null;
        try {
          doc = el.contentDocument;
        } catch (e) {
          doc = null;
        }
        const label = squash(el.getAttribute("title") || el.getAttribute("name") || "", 60);
        const src = squash(el.getAttribute("src") || "", 80);
        if (doc && doc.body) {
          if (annotate) {
            for (const old of doc.querySelectorAll("[mmid]")) old.removeAttribute("mmid");
          }
          if (mode !== "text_only" && !finding && !up) {
            emit(`[${mmid}] iframe ${q(label)} src=${av(src)}:`);
            stack.push([null, `(end of iframe ${q(label)})`, 0, false]);
          }
          pushChildren(doc.body, inside, false, up);
        } else if (mode !== "text_only" && !finding && !up) {
          emit(`[${mmid}] iframe ${q(label)} src=${av(src)} (cross-origin, not inspected)`);
        }
        continue;
      }
      const insideNext = inside || interactive;
      const saidNext = said || sayAll;
      if (el.shadowRoot) {
        pushChildren(el, insideNext, saidNext, up);
        pushChildren(el.shadowRoot, insideNext, saidNext, up);
      } else {
        pushChildren(el, insideNext, saidNext, up);
      }
    }
    if (rest) {
      counter += rest.elements;
      interactiveCount += rest.actionable;
      below += rest.actionable;
      cut += rest.actionable;
      if (!modal) modal = openModal();
    }
    dropPlainTargets(lines, targets);
    // A page in another language than English says which (its lang), so its controls'
    // words are looked for in that language too.
    const lang = (document.documentElement.getAttribute("lang") || "").trim();
    const tag = /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(lang) && !/^en\b/i.test(lang);
    const said = tag ? ` (language: ${lang})` : "";
    const header = [`Page ${q(document.title)} at ${location.href}${said}`];
    if (modal) {
      header.push(
        `A modal dialog is open (${describe(modal).split(">")[0]}>): ` +
          "elements outside it are covered until it is closed.",
      );
    }
    if (cut) {
      const more = rest ? `at least ${cut} more lines` : `${cut} more lines`;
      lines.push(
        `… output cut at ${budget} characters: ${more} not shown (the window line at the top says how to reach them).`,
      );
    }
    const shownWindow = wanted && windowNo < wanted ? 0 : windowNo;
    return {
      text: header.concat(wanted && !shownWindow ? [] : lines).join("\n"),
      registry: wanted && !shownWindow ? [] : registry,
      found,
      elements: counter,
      interactive: interactiveCount,
      cut,
      above: wanted && !shownWindow ? interactiveCount : above,
      below,
      window: shownWindow,
      windows: full ? null : windowNo,
      scrollY: Math.round(window.scrollY),
    };
  }

  // Elements that may be actionable, found natively: the part of the page after a full
  // window is counted with these instead of being walked (page=N and find_elements walk it).
  const MAYBE_ACTIONABLE =
    "a[href],button,input:not([type=hidden]),select,textarea,summary,[role],[tabindex]," +
    "[onclick],[contenteditable]";

  // How many elements, and how many that may be actionable, the unwalked subtrees on the
  // stack hold (an upper bound: visibility is not checked, which is what costs).
  function countRest(stack) {
    let elements = 0;
    let actionable = 0;
    for (const [el] of stack) {
      if (!el || el.nodeType !== 1) continue;
      elements += 1 + el.getElementsByTagName("*").length;
      actionable += el.querySelectorAll(MAYBE_ACTIONABLE).length +
        (el.matches(MAYBE_ACTIONABLE) ? 1 : 0);
    }
    return { elements, actionable };
  }

  // An open modal dialog anywhere in the page, for the header (the walk may stop before it).
  function openModal() {
    for (const el of document.querySelectorAll("dialog[open],[role=dialog][aria-modal=true]")) {
      if (el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return el;
    }
    return null;
  }

  function allRoots() {
    const roots = [document];
    for (const el of document.querySelectorAll("*")) {
      if (el.shadowRoot) roots.push(el.shadowRoot);
    }
    return roots;
  }

  // Every visible element of role `arg.role` (of tag `arg.tag` when no role is given)
  // with what identifies it, read in one pass in document order: the nearest heading and
  // the last text before each are those seen last on the way.
  const LANDMARKS = "header, nav, main, aside, footer, form, [role=banner], " +
    "[role=navigation], [role=main], [role=complementary], [role=contentinfo], " +
    "[role=search], [role=form]";

  function cssPath(el) {
    const parts = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const tag = node.tagName.toLowerCase();
      const parent = node.parentElement;
      if (!parent) { parts.unshift(tag); break; }
      const same = Array.from(parent.children).filter((c) => c.tagName === node.tagName);
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
    }
    return parts.join(" > ");
  }

  function landmarkOf(el) {
    const mark = el.parentElement && el.parentElement.closest(LANDMARKS);
    if (!mark) return "";
    const kind = mark.getAttribute("role") || mark.tagName.toLowerCase();
    const id = mark.getAttribute("id");
    return id ? `${kind}#${id}` : kind;
  }

  function candidates(arg) {
    const found = [];
    let heading = "";
    let lastText = null;
    for (const el of document.body ? document.body.querySelectorAll("*") : []) {
      if (SKIP_TAGS.has(el.tagName)) continue;
      const role = roleOf(el);
      const fits = arg.role ? role === arg.role : el.tagName.toLowerCase() === arg.tag;
      if (fits && shownLikePlaywright(el)) {
        const attr = (a) => el.getAttribute(a) || "";
        const href = el.getAttribute("href");
        const url = href === null ? null : new URL(href, document.baseURI);
        const siblings = el.parentElement
          ? Array.from(el.parentElement.children).filter((c) => c.tagName === el.tagName)
          : [el];
        const labels = el.labels ? Array.from(el.labels, (l) => l.textContent).join(" ") : "";
        const id = attr("id");
        found.push({
          tag: el.tagName.toLowerCase(), role: role || "", name: nameOf(el), id,
          id_unique: !!id && document.querySelectorAll(`[id="${CSS.escape(id)}"]`).length === 1,
          name_attr: attr("name"), href: url ? url.pathname + url.search : "",
          raw_href: href || "", aria_label: squash(attr("aria-label"), 120),
          placeholder: squash(attr("placeholder"), 120), type: attr("type").toLowerCase(),
          title: squash(attr("title"), 120), alt: squash(attr("alt"), 120),
          testid: attr("data-testid"),
          classes: Array.from(el.classList), landmark: landmarkOf(el), heading,
          label: squash(labels, 120), index: siblings.indexOf(el), path: cssPath(el),
          near: lastText && lastText.checkVisibility() ? squash(lastText.textContent, 80) : "",
        });
      }
      if (HEADINGS.has(el.tagName)) heading = squash(el.textContent, 120);
      if (!fits && hasOwnText(el) && !el.closest("a, button, select, option")) lastText = el;
    }
    return found;
  }

  function record(state, records) {
    for (const r of records) {
      if (r.type === "attributes") {
        state.changed += 1;
        continue;
      }
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1 || SKIP_TAGS.has(n.tagName)) continue;
        state.addedCount += 1 + n.getElementsByTagName("*").length;
        if (state.added.length < 40) state.added.push(n);
      }
      for (const n of r.removedNodes) if (n.nodeType === 1) state.removed += 1;
    }
  }

  function watch() {
    const state = { added: [], addedCount: 0, removed: 0, changed: 0, observers: [] };
    const callback = (records) => record(state, records);
    for (const root of allRoots()) {
      const observer = new MutationObserver(callback);
      observer.observe(root, {
        childList: true,
        subtree: true,
        attributes: true,
        attributeFilter: ["style", "class", "hidden", "open", "aria-hidden", "aria-expanded"],
      });
      state.observers.push(observer);
    }
    window.__browserAgentWatch = state;
    return true;
  }

  function changes() {
    const state = window.__browserAgentWatch;
    if (!state) return null;
    for (const o of state.observers) {
      record(state, o.takeRecords());
      o.disconnect();
    }
    window.__browserAgentWatch = null;
    const shown = state.added.filter((n) => n.isConnected && n.checkVisibility());
    const interesting = [];
    for (const n of shown) {
      const inner = n.matches("a[href],button,input,select,textarea,[role]")
        ? n
        : n.querySelector("a[href],button,input,select,textarea,[role]");
      interesting.push(describe(inner || n));
      if (interesting.length >= 5) break;
    }
    return {
      added: state.addedCount,
      visibleAdded: shown.length,
      removed: state.removed,
      changed: state.changed,
      examples: interesting,
    };
  }

  switch (arg.op) {
    // One JSON string crosses the wire much faster than a large structured value.
    case "observe": return JSON.stringify(observe(arg));
    case "find": return JSON.stringify(observe({ ...arg, contentType: "find", budget: 0 }));
    case "describe": return describe(target);
    case "offPage": return offPage(target);
    case "options":
      return Array.from(target.options || [], (o) => [o.value, o.textContent.trim()]);
    case "suggests":
      return target.getAttribute("autocomplete") === "off" || target.hasAttribute("list") ||
        target.hasAttribute("aria-autocomplete") || target.getAttribute("role") === "combobox";
    case "held": {
      // What a field holds now, in one round trip: ["value", its value] for an input,
      // text area or list (a label's control for its label, as Playwright reads it), or
      // ["editor", its text as a person reads it] for an editor box; null for neither.
      const FIELDS = ["INPUT", "TEXTAREA", "SELECT"];
      let el = target;
      if (!FIELDS.includes(el.tagName) && !el.isContentEditable) {
        const label = el.closest("label");
        if (label && label.control) el = label.control;
      }
      if (FIELDS.includes(el.tagName)) return ["value", String(el.value)];
      if (!el.isContentEditable) return null;
      return ["editor", el.innerText.replace(/\u00a0/g, " ").replace(/\n+$/, "")];
    }
    case "identity": {
      const role = roleOf(target);
      return [target.tagName.toLowerCase(), role || "", nameOf(target), isPassword(target)];
    }
    case "inspect": {
      // identity, opening tag, whether a person can use it (see usable) and whether
      // Playwright counts it visible, in one round trip
      const role = roleOf(target);
      const rect = target.getBoundingClientRect();
      const visible = usable(target) && rect.width > 0 && rect.height > 0;
      return [target.tagName.toLowerCase(), role || "", nameOf(target), isPassword(target),
        describe(target), visible, visible ? uncoveredPoint(target, rect) : null,
        shownLikePlaywright(target)];
    }
    case "before": {
      // The visible text just before the element in document order (up to arg.max
      // characters, nearest last): what tells apart elements of the same role and name.
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      walker.currentNode = target;
      const parts = [];
      let size = 0;
      while (size < arg.max && walker.previousNode()) {
        const node = walker.currentNode;
        if (target.contains(node) || !node.parentElement) continue;
        if (SKIP_TAGS.has(node.parentElement.tagName)) continue;
        const text = squash(node.nodeValue, 200);
        if (!text || !node.parentElement.checkVisibility()) continue;
        parts.unshift(text);
        size += text.length + 1;
      }
      return parts.join(" ");
    }
    case "guard": {
      // Watch for elements the page adds while a field is filled (a popup that takes the
      // focus); "interruption" then names the button that closes it.
      const state = { added: [] };
      const observer = new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) state.added.push(n);
      });
      observer.observe(document.documentElement, { childList: true, subtree: true });
      state.observer = observer;
      window.__browserAgentGuard = state;
      return true;
    }
    case "interruption": {
      const state = window.__browserAgentGuard;
      window.__browserAgentGuard = null;
      if (!state) return null;
      state.observer.disconnect();
      if (!arg.look) return null;
      const CLOSE = /^(cancel|close|dismiss|no|no thanks|not now|later|\u00d7|x)$/i;
      for (const node of state.added) {
        if (!node.isConnected) continue;
        const buttons = [node, ...node.querySelectorAll("button, [role=button], input[type=button]")];
        for (const b of buttons) {
          const isButton = b.tagName === "BUTTON" || b.getAttribute("role") === "button" ||
            (b.tagName === "INPUT" && b.type === "button");
          if (!isButton || !b.checkVisibility() || !CLOSE.test(nameOf(b))) continue;
          for (const old of document.querySelectorAll("[data-browser-agent-close]")) {
            old.removeAttribute("data-browser-agent-close");
          }
          b.setAttribute("data-browser-agent-close", "1");
          return describe(b);
        }
      }
      return null;
    }
    case "candidates": return candidates(arg);
    case "watch": return watch();
    case "changes": return changes();
    default: throw new Error(`unknown op ${arg.op}`);
  }
}
