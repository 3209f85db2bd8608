// The in-page half of a recording: runs in every frame (an init script) and reports what
// the person does through the binding __browserAgentRecord, one action per event:
//   click  - a click on any element (the Python side keeps those on controls)
//   type   - the final text of one field or editor box (contenteditable): on change,
//            when it loses the focus, when another action starts, or with press_enter
//            when Enter submits it; a date or time field's value when it is set
//   select - the option chosen in a <select>
//   key    - Enter, Escape or a modifier combination outside a text field
//   dialog - what alert, confirm and prompt said and whether they were accepted
//   file   - files chosen in a file field (how many, never their names or paths)
//   drag   - an element dragged and dropped onto another
// Each action on an element carries the page as get_dom sees it at that moment (the page
// library's observe, which numbers the elements with mmids) and the element's chain of
// mmids and opening tags, nearest first. Python fills in the page library and the budget.
(() => {
  if (window.__browserAgentRecorder) return;
  window.__browserAgentRecorder = true;
  const lib = (
__LIBRARY__
  );
  const BUDGET = __BUDGET__;
  // Reports carry the recording's token, which page scripts cannot read: a page calling
  // the binding itself is not taken for the person. What sends them is kept from now on,
  // before any page script can replace it.
  const TOKEN = "__TOKEN__";
  const stringify = JSON.stringify.bind(JSON);
  const binding = window.__browserAgentRecord;
  const TEXT_TYPES = new Set([
    "", "text", "search", "email", "tel", "url", "number", "password", "date", "time",
    "datetime-local", "month", "week",
  ]);
  const PRESSABLE = new Set(["BUTTON", "A", "SUMMARY", "SELECT", "OPTION"]);
  // Fields set through a picker as much as by typing: the value set is what counts.
  const PICKED_TYPES = new Set(["date", "time", "datetime-local", "month", "week"]);

  const send = (event) => {
    try {
      binding(stringify({ ...event, token: TOKEN }));
    } catch (e) {
      // the binding is gone: the recording ended
    }
  };
  const isTextField = (el) =>
    !!el && ((el.tagName === "INPUT" && TEXT_TYPES.has((el.getAttribute("type") || "").toLowerCase()))
      || el.tagName === "TEXTAREA");
  const typeOf = (el) => (el.getAttribute("type") || "").toLowerCase();
  // The editor box (the outermost contenteditable element) the element is part of.
  const editorOf = (el) => {
    if (!el || el.nodeType !== 1 || !el.isContentEditable) return null;
    let host = el;
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    return host;
  };
  const isPassword = (el) =>
    el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "password";

  // The page as get_dom shows it, and the element with its ancestors that got an mmid.
  const seen = (path) => {
    let dom = "";
    try {
      dom = lib({ op: "observe", contentType: "all_fields", budget: BUDGET, window: 0 });
    } catch (e) {
      dom = "";
    }
    return { dom, chain: chainOf(path), url: location.href };
  };
  // The element and its ancestors that the last observation numbered, nearest first.
  const chainOf = (path) => {
    const chain = [];
    for (const node of path) {
      if (!node || node.nodeType !== 1 || !node.hasAttribute("mmid")) continue;
      chain.push([node.getAttribute("mmid"), lib(node, { op: "describe" })]);
      if (chain.length >= 8) break;
    }
    return chain;
  };
  const pathOf = (el) => {
    const path = [];
    for (let node = el; node; node = node.parentNode || node.host) path.push(node);
    return path;
  };

  let typing = null; // the field being typed into, until its text is reported
  let enteredIn = null; // the editor box Enter was last pressed in
  // An editor box as it was before the first keystroke into it: editors relabel a box
  // once it holds text ("Empty block" becomes "Paragraph block"), and a replay looks
  // for the box as it finds it, empty.
  let before = null;
  const flush = (enter) => {
    const el = typing;
    const where = before && before.el === el ? before.seen : null;
    typing = null;
    before = null;
    if (!el || !el.isConnected) return;
    const text = isTextField(el) ? el.value : el.innerText.replace(/\n+$/, "");
    send({
      kind: "type", text, password: isPassword(el), enter: !!enter, ...(where || seen(pathOf(el))),
    });
  };
  window.__browserAgentFlush = () => flush(false);

  addEventListener("beforeinput", (e) => {
    const el = editorOf(e.composedPath()[0]);
    if (!e.isTrusted || !el || el === typing || (before && before.el === el)) return;
    if (typing) flush(false);
    before = { el, seen: seen(pathOf(el)) };
  }, true);
  addEventListener("input", (e) => {
    const path = e.composedPath();
    const el = isTextField(path[0]) ? path[0] : editorOf(path[0]);
    if (e.isTrusted && el) {
      if (typing && typing !== el) flush(false);
      typing = el;
      if (el === enteredIn) enteredIn = null; // Enter made a new line inside the box
    }
  }, true);
  addEventListener("change", (e) => {
    const el = e.composedPath()[0];
    // Playwright picks options, dates and files by script (untrusted events), as a test
    // playing the person does, and as a page's own picker may
    const picked = el.tagName === "INPUT" && (PICKED_TYPES.has(typeOf(el)) || typeOf(el) === "file");
    if (!e.isTrusted && el.tagName !== "SELECT" && !picked) return;
    if (el === typing) flush(false);
    else if (el.tagName === "INPUT" && PICKED_TYPES.has(typeOf(el))) {
      if (typing) flush(false);
      send({ kind: "type", text: el.value, password: false, enter: false, ...seen(pathOf(el)) });
    } else if (el.tagName === "INPUT" && typeOf(el) === "file") {
      if (typing) flush(false);
      send({ kind: "file", count: el.files ? el.files.length : 0, ...seen(pathOf(el)) });
    } else if (el.tagName === "SELECT") {
      if (typing) flush(false);
      const option = el.options[el.selectedIndex];
      send({
        kind: "select", value: el.value, label: option ? option.textContent.trim() : "",
        ...seen(pathOf(el)),
      });
    }
  }, true);
  addEventListener("focusout", (e) => {
    const el = e.composedPath()[0];
    // Enter that took the focus out of an editor box (to the next block) ends its text
    if (el === typing || (typing && editorOf(el) === typing)) flush(typing === enteredIn);
    enteredIn = null;
  }, true);
  let dragged = null; // the path of the element being dragged, until it is dropped
  addEventListener("dragstart", (e) => {
    if (e.isTrusted) dragged = e.composedPath();
  }, true);
  addEventListener("drop", (e) => {
    if (!e.isTrusted) return;
    if (typing) flush(false);
    const here = seen(e.composedPath());
    const from = dragged ? chainOf(dragged) : [];
    dragged = null;
    send({ kind: "drag", from, ...here });
  }, true);
  addEventListener("pagehide", () => flush(false), true);
  let entering = false; // Enter is down in a text field: its form's implicit submission
  addEventListener("keyup", (e) => {
    if (e.key === "Enter") entering = false;
  }, true);
  addEventListener("click", (e) => {
    // the click a form's implicit submission sends its submit button is part of Enter
    if (!e.isTrusted || (entering && e.detail === 0)) return;
    const path = e.composedPath();
    if (typing && path[0] !== typing) flush(false);
    send({ kind: "click", ...seen(path) });
  }, true);
  addEventListener("keydown", (e) => {
    if (!e.isTrusted) return;
    const el = e.composedPath()[0];
    enteredIn = null;
    if (editorOf(el) && e.key !== "Escape") { // Enter, Ctrl+B...: part of the typing
      if (e.key === "Enter" && !["Control", "Alt", "Meta", "Shift"].some((m) => e.getModifierState(m))) {
        enteredIn = editorOf(el);
      }
      return;
    }
    if (e.key === "Enter" && isTextField(el) && el.tagName !== "TEXTAREA") {
      entering = true;
      if (typing === el) flush(true);
      else send({ kind: "key", keys: "Enter" });
      return;
    }
    const modifiers = ["Control", "Alt", "Meta"].filter((m) => e.getModifierState(m));
    if (["Control", "Alt", "Meta", "Shift"].includes(e.key)) return;
    if (modifiers.length) {
      if (isTextField(el) || (el && el.isContentEditable)) return; // editing: part of typing
      if (typing) flush(false);
      const shift = e.shiftKey ? ["Shift"] : [];
      send({ kind: "key", keys: [...modifiers, ...shift, e.key.length === 1 ? e.key.toUpperCase() : e.key].join("+") });
      return;
    }
    if (e.key === "Escape" || (e.key === "Enter" && !PRESSABLE.has(el.tagName) && !isTextField(el)
      && el.tagName !== "INPUT" && el.getAttribute("role") !== "button")) {
      if (typing) flush(false);
      send({ kind: "key", keys: e.key });
    }
  }, true);

  // What a dialog said and how it was answered, whoever answered it.
  for (const type of ["alert", "confirm", "prompt"]) {
    const original = window[type];
    if (typeof original !== "function") continue;
    window[type] = function (...args) {
      const result = original.apply(this, args);
      const accepted = type === "alert" || (type === "confirm" ? result === true : result !== null);
      send({ kind: "dialog", type, message: String(args[0] ?? ""), accepted });
      return result;
    };
  }
})();
