// Where a session's (or a room's) money and time went: GET /v1/sessions/{id}/usage or
// /v1/rooms/{id}/usage, shown as totals, then tables by agent, by model and by turn,
// with the costliest turn named. Read-only; the server sums, this only lays it out.

import { h } from "../core/dom.js";
import { showModal } from "../core/dialogs.js";
import { formatCost, formatMs, formatTime } from "../text/format.js";

const COLUMNS = [
  ["Calls", (r) => String(r.calls)],
  ["Tokens in", (r) => String(r.input_tokens)],
  ["Tokens out", (r) => String(r.output_tokens)],
  ["Cost", (r) => formatCost(r.cost_usd)],
  ["Avg latency", (r) => formatMs(r.latency_ms_avg)],
  ["Max latency", (r) => formatMs(r.latency_ms_max)],
];

function table(caption, label, rows, name) {
  if (!rows.length) return null;
  return h("table", { class: "usage-table", "aria-label": caption },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, label), COLUMNS.map(([title]) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, rows.map((row) => h("tr", {},
      h("th", { scope: "row" }, name(row)), COLUMNS.map(([, cell]) => h("td", {}, cell(row)))))));
}

function turnName(turn) {
  const text = turn.message.length > 40 ? `${turn.message.slice(0, 40)}…` : turn.message;
  return `${formatTime(turn.created_at)} · ${text}`;
}

function report(usage) {
  const t = usage.total;
  if (!t.calls) return [h("p", { class: "muted usage-empty" }, "No LLM calls yet.")];
  const costliest = usage.costliest_turn;
  const shown = usage.by_turn.length < usage.turns ? ` (latest ${usage.by_turn.length} of ${usage.turns})` : "";
  return [
    h("p", { class: "usage-total" },
      `${formatCost(t.cost_usd)} over ${t.calls} LLM call${t.calls === 1 ? "" : "s"} in ${usage.turns} turn${usage.turns === 1 ? "" : "s"} · `
      + `${t.input_tokens} tokens in, ${t.output_tokens} out · average latency ${formatMs(t.latency_ms_avg)}`),
    costliest ? h("p", { class: "usage-costliest" },
      `Costliest turn: ${formatCost(costliest.cost_usd)}, “${turnName(costliest)}”`) : null,
    table("By agent", "Agent", usage.by_agent, (r) => r.agent_key),
    table("By model", "Model", usage.by_model, (r) => r.model),
    table(`By turn${shown}`, "Turn", usage.by_turn, turnName),
  ];
}

/** title; load() -> Promise<usage report>. Resolves when the dialog closes. */
export function openUsageDialog({ title, load }) {
  return new Promise((resolve) => {
    // It scrolls (wide tables on a phone): focusable, so the keyboard can scroll it too.
    const body = h("div", { class: "usage-body", role: "status", tabindex: "0", "aria-label": "Usage figures" },
      h("p", { class: "muted" }, "Loading…"));
    const dialog = h("dialog", { class: "modal usage-dialog", "aria-label": title },
      h("div", { class: "dialog-form" },
        h("h2", {}, title), body,
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Close"))));
    showModal(dialog, resolve);
    load().then(
      (usage) => body.replaceChildren(...report(usage).filter(Boolean)),
      (err) => body.replaceChildren(h("p", { class: "form-error" }, err.message || String(err))),
    );
  });
}
