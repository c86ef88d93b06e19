// "Sources" under an agent's answer when it used search_knowledge in the turn, and under
// the turn's closing answer for every agent that searched; each opens its passage.
// Which sources, in which order: text/sources.js.
// File names are user input: they only go into text nodes (and a title attribute).

import { h } from "../core/dom.js";
import { panelId } from "./panel.js";
import { citedSources } from "../text/sources.js";

const TOOL = "search_knowledge";
// The events after which the turn's Answer block (answer.js) has its final text.
const CLOSING = new Set(["synthesis_completed", "review_completed", "turn_completed"]);

/** A "Sources" list for an answer (see text/sources.js), or null when nothing was found.
 * Each source is a button: it opens its passage under the list (clicked again, closes it). */
export function renderSources(answer, results) {
  const items = citedSources(answer, results);
  if (!items.length) return null;
  const passage = h("blockquote", { class: "source-passage", hidden: true, "aria-live": "polite" });
  const buttons = [];
  const open = (button, s) => {
    const wasOpen = button.getAttribute("aria-expanded") === "true";
    for (const other of buttons) other.setAttribute("aria-expanded", "false");
    passage.hidden = wasOpen;
    if (wasOpen) return;
    button.setAttribute("aria-expanded", "true");
    passage.replaceChildren(h("div", { class: "source-passage-head" }, label(s)),
      h("div", { class: "source-passage-text" }, s.text));
  };
  const list = h("ul", {}, items.map((s) => {
    const button = h("button", { type: "button", class: "source-open", "aria-expanded": "false",
      title: "Show the passage", onclick: () => open(button, s) },
    h("span", { class: "source-file" }, s.filename),
    s.page ? h("span", { class: "source-page" }, `, page ${s.page}`) : null);
    buttons.push(button);
    return h("li", { class: "source", dataset: { cited: String(s.cited) } }, button);
  }));
  return h("aside", { class: "sources", "aria-label": "Sources" },
    h("h4", { class: "sources-title" }, "Sources"), list, passage);
}

const label = (s) => (s.page ? `${s.filename}, page ${s.page}` : s.filename);

/** Put `sources` at the end of `el` (before `before`), replacing an earlier list. */
function place(el, sources, before = null) {
  el.querySelector(":scope > .sources")?.remove();
  el.insertBefore(sources, before);
}

/**
 * Follow a turn's events (TurnView.apply calls this after the renderer): collect each
 * agent's search_knowledge results between agent_started and agent_completed, then put
 * the Sources under that answer. The Answer block that closes the turn (the synthesis, a
 * review's chosen draft, a pipeline's last stage) lists the sources of every agent that
 * searched.
 */
export function trackCitations(view, event) {
  const state = (view.citations ??= { open: new Map(), results: new Map(), all: [] });
  const { type, agent_key: key } = event;
  if (type === "agent_started") {
    const id = panelId(event.round, key);
    state.open.set(key, id);
    state.results.set(id, []);
  } else if (type === "tool_result" && event.name === TOOL && event.ok && state.open.has(key)) {
    state.results.get(state.open.get(key)).push(event.content);
    state.all.push(event.content);
  } else if (type === "agent_completed") {
    const id = panelId(event.round, key);
    const panel = view.panels.get(id);
    const found = state.results.get(id) ?? [];
    state.open.delete(key);
    const sources = panel && found.length ? renderSources(panel.text, found) : null;
    if (sources) place(panel.el, sources, panel.foot);
  } else if (CLOSING.has(type) && view.answerText && state.all.length) {
    const synthesis = view.answerEl?.classList.contains("synthesis") ? view.synthesis : null;
    const sources = view.answerEl ? renderSources(view.answerText, state.all) : null;
    if (sources && synthesis) place(synthesis.el, sources, synthesis.foot);
    else if (sources) place(view.answerEl, sources);
  }
}
