// "Sources" under an agent's answer when it used search_knowledge in the turn.
// The tool's result is text (apps/api/pantheon/knowledge/tool.py):
//   [1] manual.pdf, page 2
//   Flaps set to fifteen degrees before takeoff.
//
//   [2] tower.txt
//   Runway 27 closes at dusk.
// File names are user input: they only go into text nodes (and a title attribute).

import { h } from "./dom.js";
import { panelId } from "./panel.js";

const TOOL = "search_knowledge";
const HEAD = /^\[(\d+)\] (.+?)(?:, page (\d+))?$/;

/** The passages of one search_knowledge result: [{n, filename, page, text}]. */
export function parsePassages(content) {
  const passages = [];
  let current = null;
  for (const line of String(content ?? "").split("\n")) {
    const head = HEAD.exec(line);
    if (head) {
      current = { n: Number(head[1]), filename: head[2], page: head[3] ? Number(head[3]) : null, text: "" };
      passages.push(current);
    } else if (current) {
      current.text = current.text ? `${current.text}\n${line}` : line;
    }
  }
  for (const p of passages) p.text = p.text.trim();
  return passages;
}

/**
 * A "Sources" list for an answer, or null when the searches found nothing.
 * results: the contents of the agent's search_knowledge results in this turn, in order.
 * Sources are distinct (file, page) pairs in the order found; the ones the answer names
 * (by file name or, for a single search, by [n]) are listed first and marked cited.
 */
export function renderSources(answer, results) {
  const text = String(answer ?? "");
  const markers = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  const sources = new Map();
  results.forEach((content, index) => {
    for (const p of parsePassages(content)) {
      const key = `${p.filename}\u0000${p.page ?? ""}`;
      const cited = text.includes(p.filename) || (results.length === 1 && markers.has(p.n));
      const seen = sources.get(key);
      if (seen) seen.cited ||= cited;
      else sources.set(key, { ...p, cited, order: index * 1000 + p.n });
    }
  });
  if (!sources.size) return null;
  const items = [...sources.values()].sort((a, b) => (b.cited - a.cited) || (a.order - b.order));
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
