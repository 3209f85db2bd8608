// The run page: follows the run's server-sent events and shows each as it arrives.
"use strict";
(function () {
  const source = new EventSource(document.currentScript.dataset.events);
  const byId = (id) => document.getElementById(id);
  const steps = byId("steps");

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }

  function counts(event) {
    if (event.llm_calls !== undefined) byId("llm").textContent = event.llm_calls;
    if (event.tokens !== undefined) byId("tokens").textContent = event.tokens;
    if (event.cost) {
      byId("cost").textContent = event.cost;
      byId("cost-shown").hidden = false;
    }
    if (event.run_id) byId("stored").replaceChildren(" · ", linkTo(event.run_id));
  }

  function linkTo(runId) {
    const a = text("a", "run " + runId);
    a.href = "/runs/" + encodeURIComponent(runId);
    return a;
  }

  function step(event) {
    const li = document.createElement("li");
    li.className = "step " + (event.ok ? "ok" : "error");
    li.id = "step-" + event.index;
    li.dataset.tool = event.tool;
    li.append(text("span", event.tool, "tool"), text("code", event.target, "target"));
    li.append(text("span", event.ok ? "ok" : "error", "mark"));
    li.append(text("p", event.response, "response"));
    steps.append(li);
  }

  function screenshot(event) {
    const li = byId("step-" + event.index);
    if (!li) return;
    const img = document.createElement("img");
    img.src = event.url;
    img.alt = "The page after step " + event.index;
    img.className = "thumb";
    li.append(img);
  }

  function question(event) {
    byId("question-text").textContent = event.text;
    byId("question").hidden = false;
    byId("answer").focus();
  }

  function approval(event) {
    byId("approval-action").textContent = event.action;
    byId("approval-problem").hidden = true;
    byId("note").value = "";
    const correctable = event.tool !== undefined;
    byId("correction").hidden = !correctable;
    if (correctable) {
      const tools = byId("tool");
      tools.replaceChildren(...event.tools.map((name) => text("option", name)));
      tools.value = event.tool;
      byId("arguments").value = event.arguments;
    }
    byId("approval").hidden = false;
  }

  function refused(event) {
    byId("approval-problem").textContent = event.text;
    byId("approval-problem").hidden = false;
  }

  const VERDICTS = { approved: "Approved", rejected: "Rejected", corrected: "Corrected" };

  function decided(event) {
    byId("approval").hidden = true;
    let said = VERDICTS[event.verdict] || event.verdict;
    if (event.tool) said += " to " + event.tool + " " + event.arguments;
    steps.append(text("li", said + (event.note ? ": " + event.note : ""), "decided"));
  }

  function context(event) {
    const shown = event.messages.map((message) => {
      const div = text("div", "", "said");
      div.append(text("span", message.who, "who"), text("pre", message.text));
      return div;
    });
    byId("context-messages").replaceChildren(...shown);
    byId("context-count").textContent = event.messages.length;
    byId("context").hidden = false;
  }

  function end(event) {
    byId("status").textContent = event.status;
    byId("status").className = event.status;
    byId("answer-text").textContent = event.answer;
    byId("end").hidden = false;
    if (event.trace) {
      const a = text("a", "Playwright trace");
      a.href = event.trace;
      a.id = "trace";
      byId("end").append(a);
    }
    for (const name of event.skills || []) {
      const a = text("a", "skill " + name);
      a.href = "/skills/" + encodeURIComponent(name);
      a.className = "skill";
      byId("end").append(" ", a);
    }
    if (byId("recording")) byId("recording").hidden = true;
    byId("stop-form").hidden = true;
    byId("question").hidden = true;
    byId("approval").hidden = true;
    source.close();
  }

  const handlers = {
    step: step,
    screenshot: screenshot,
    question: question,
    answered: () => { byId("question").hidden = true; },
    approval: approval,
    refused: refused,
    decided: decided,
    context: context,
    told: (event) => steps.append(text("li", "The agent says: " + event.text, "told")),
    end: end,
  };

  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    counts(event);
    const handle = handlers[event.kind];
    if (handle) handle(event);
  };
})();
