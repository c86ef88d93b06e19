// The figures under a turn and in each panel's footer: tokens and cost from
// `turn_completed.usage`; wall time, LLM calls and per-agent latency from GET /v1/turns/{id}.

import { h } from "../core/dom.js";
import { formatCost, formatMs } from "../text/format.js";
import { panelId } from "./panel.js";

// Calls an agent makes for its own panel (all but the manager's route/evaluate/synthesis).
const AGENT_PURPOSES = new Set(["specialist", "chat", "stage", "draft", "review", "revision"]);

/** Re-draw the turn's footer and its panels' figures from view.usage and view.detail. */
export function renderUsage(view) {
  const detail = view.detail;
  const usage = detail?.usage ?? view.usage;
  if (!usage) return;
  const parts = [
    h("span", { class: "usage-tokens" }, `${usage.input_tokens} tokens in · ${usage.output_tokens} out`),
    h("span", { class: "usage-cost" }, `cost ${formatCost(usage.cost_usd)}`),
  ];
  if (detail) {
    if (detail.created_at && detail.finished_at) {
      const wall = new Date(detail.finished_at) - new Date(detail.created_at);
      parts.push(h("span", { class: "usage-latency" }, `latency ${formatMs(wall)}`));
    }
    const calls = detail.llm_calls ?? [];
    if (calls.length) parts.push(h("span", { class: "usage-calls" }, callSummary(calls)));
    perPanel(view, calls);
  }
  view.usageEl.replaceChildren(...parts);
}

function callSummary(calls) {
  const byPurpose = new Map();
  for (const call of calls) byPurpose.set(call.purpose, (byPurpose.get(call.purpose) ?? 0) + 1);
  const detail = [...byPurpose].map(([purpose, n]) => `${purpose} ${n}`).join(", ");
  return `${calls.length} LLM call${calls.length === 1 ? "" : "s"} (${detail})`;
}

/** Each panel: its calls, their summed latency and tokens (a panel may make several calls). */
function perPanel(view, calls) {
  const groups = new Map();
  for (const call of calls) {
    let panel = null;
    if (call.purpose === "synthesis") panel = view.synthesis;
    else if (call.agent_key && AGENT_PURPOSES.has(call.purpose)) {
      panel = view.panels.get(panelId(call.round, call.agent_key));
    }
    if (!panel) continue;
    const group = groups.get(panel) ?? { calls: 0, latency: 0, input: 0, output: 0 };
    group.calls += 1;
    group.latency += call.latency_ms;
    group.input += call.input_tokens;
    group.output += call.output_tokens;
    groups.set(panel, group);
  }
  for (const [panel, g] of groups) {
    panel.setFigures({ input_tokens: g.input, output_tokens: g.output }, g.calls, g.latency);
  }
}
