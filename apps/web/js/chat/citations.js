// "Sources" under an agent's answer when it used search_knowledge in the turn.
// Which sources, in which order: text/sources.js.
// File names are user input: they only go into text nodes (and a title attribute).

import { h } from "../core/dom.js";
import { panelId } from "./panel.js";
import { citedSources } from "../text/sources.js";

const TOOL = "search_knowledge";

/** A "Sources" list for an answer (see text/sources.js), or null when nothing was found. */
export function renderSources(answer, results) {
  const items = citedSources(answer, results);
  if (!items.length) return null;
  return h("aside", { class: "sources", "aria-label": "Sources" },
    h("h4", { class: "sources-title" }, "Sources"),
    h("ul", {}, items.map((s) => h("li", {
      class: "source", dataset: { cited: String(s.cited) }, title: s.text.slice(0, 300) },
    h("span", { class: "source-file" }, s.filename),
    s.page ? h("span", { class: "source-page" }, `, page ${s.page}`) : null))));
}

/**
 * Follow a turn's events (TurnView.apply calls this after the renderer): collect each
 * agent's search_knowledge results between agent_started and agent_completed, then put
 * the Sources under that answer.
 */
export function trackCitations(view, event) {
  const state = (view.citations ??= { open: new Map(), results: new Map() });
  const { type, agent_key: key } = event;
  if (type === "agent_started") {
    const id = panelId(event.round, key);
    state.open.set(key, id);
    state.results.set(id, []);
  } else if (type === "tool_result" && event.name === TOOL && event.ok && state.open.has(key)) {
    state.results.get(state.open.get(key)).push(event.content);
  } else if (type === "agent_completed") {
    const id = panelId(event.round, key);
    const panel = view.panels.get(id);
    const found = state.results.get(id) ?? [];
    state.open.delete(key);
    const sources = panel && found.length ? renderSources(panel.text, found) : null;
    if (!sources) return;
    panel.el.querySelector(":scope > .sources")?.remove();
    panel.el.insertBefore(sources, panel.foot);
  }
}
