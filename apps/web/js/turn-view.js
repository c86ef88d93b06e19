// One turn on screen, built from the SSE event sequence (live, replayed, or synthesised
// from stored messages): the user's message, one section per round with the manager's
// routing and evaluation, one panel per agent, the synthesis set apart, status and usage.

import { h, formatCost, formatMs, replaceChildren } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { AgentPanel } from "./panel.js";

const STATUS_LABEL = {
  running: "running",
  completed: "completed",
  partial: "partial: some agents failed",
  failed: "failed",
  cancelled: "cancelled",
  error: "error",
};

export class TurnView {
  constructor({ message = "", mode = "", onStop = null } = {}) {
    this.turnId = null;
    this.mode = mode;
    this.finished = false;
    this.rounds = new Map();
    this.panels = new Map();
    this.synthesis = null;
    this.statusEl = h("span", { class: "badge status" });
    this.modeEl = h("span", { class: "badge mode" }, mode);
    this.stopButton = onStop
      ? h("button", { type: "button", class: "stop danger", onclick: () => onStop(this) }, "Stop")
      : null;
    this.body = h("div", { class: "turn-body" });
    this.usageEl = h("footer", { class: "turn-usage", "aria-live": "polite" });
    this.noticeEl = h("div", { class: "turn-notice", role: "alert", hidden: true });
    this.el = h(
      "article",
      { class: "turn" },
      h("div", { class: "msg-user md" }, renderMarkdown(message)),
      h("header", { class: "turn-head" }, this.modeEl, this.statusEl, this.stopButton),
      this.body,
      this.noticeEl,
      this.usageEl,
    );
    this.setStatus("running");
  }

  setStatus(status) {
    this.status = status;
    this.el.dataset.status = status;
    this.statusEl.textContent = STATUS_LABEL[status] ?? status;
    this.statusEl.dataset.status = status;
    if (this.stopButton) this.stopButton.hidden = status !== "running";
  }

  notice(text, kind = "info") {
    this.noticeEl.hidden = !text;
    this.noticeEl.textContent = text || "";
    this.noticeEl.dataset.kind = kind;
  }

  /** Apply one protocol event (see apps/api/pantheon/turns/events.py). */
  apply(event) {
    const handler = this[`on_${event.type}`];
    if (handler) handler.call(this, event);
  }

  on_turn_started(e) {
    this.turnId = e.turn_id;
    this.el.dataset.turnId = e.turn_id;
    this.mode = e.mode;
    this.modeEl.textContent = e.mode;
  }

  on_round_start(e) {
    this.round(e.round).el.dataset.state = "running";
  }

  on_round_end(e) {
    this.round(e.round).el.dataset.state = "done";
  }

  on_routing(e) {
    const round = this.round(e.round);
    const names = e.agents.length ? e.agents.map((k) => `@${k}`).join(", ") : "nobody";
    replaceChildren(round.routing,
      h("span", { class: "decision-label" }, "Manager routed to "),
      h("strong", {}, names),
      e.fallback ? h("span", { class: "badge warn" }, "fallback: unusable answer, first agent runs") : null,
    );
    round.routing.hidden = false;
    for (const key of e.agents) this.panel(e.round, key);
  }

  on_agent_started(e) {
    const panel = this.panel(e.round, e.agent_key);
    panel.setName(e.agent_name);
    panel.start();
  }

  on_delta(e) {
    if (this.synthesis && e.agent_key === "manager") this.synthesis.append(e.text);
    else this.panel(e.round, e.agent_key).append(e.text);
  }

  on_agent_completed(e) {
    this.panel(e.round, e.agent_key).complete(e.text, e.usage);
  }

  on_agent_failed(e) {
    if (this.synthesis && e.agent_key === "manager") this.synthesis.fail(e.error, e.code);
    else this.panel(e.round, e.agent_key).fail(e.error, e.code);
  }

  on_evaluation(e) {
    const round = this.round(e.round);
    const next = e.continue ? "another round" : "enough, synthesise";
    replaceChildren(round.evaluation,
      h("span", { class: "decision-label" }, "Manager evaluated: "),
      h("strong", {}, next),
      e.fallback ? h("span", { class: "badge warn" }, "fallback: unparsable answer means stop") : null,
    );
    round.evaluation.dataset.continue = String(Boolean(e.continue));
    round.evaluation.hidden = false;
  }

  on_synthesis_started() {
    this.synthesis = new AgentPanel({ key: "manager", name: "Manager synthesis", kind: "synthesis" });
    this.synthesis.start();
    this.body.append(h("div", { class: "synthesis" }, this.synthesis.el));
  }

  on_synthesis_completed(e) {
    this.synthesis?.complete(e.text);
  }

  on_turn_completed(e) {
    this.finish(e.status);
    this.usage = e.usage;
    this.renderUsage();
  }

  on_error(e) {
    this.finish("error");
    this.notice(`The turn could not run: ${e.message} (${e.code})`, "error");
  }

  finish(status) {
    this.finished = true;
    this.setStatus(status);
    for (const panel of this.panels.values()) panel.stop();
    this.synthesis?.stop();
  }

  /** Latency and per-agent figures from GET /v1/turns/{id} once the turn is stored. */
  applyDetail(detail) {
    this.usage = detail.usage;
    if (detail.created_at && detail.finished_at) {
      this.wallMs = new Date(detail.finished_at) - new Date(detail.created_at);
    }
    this.calls = detail.llm_calls.length;
    for (const call of detail.llm_calls) {
      if (call.purpose === "synthesis") this.synthesis?.setUsage(null, call.latency_ms);
      else if (call.agent_key && (call.purpose === "specialist" || call.purpose === "chat")) {
        this.panels.get(panelId(call.round, call.agent_key))?.setUsage(null, call.latency_ms);
      }
    }
    this.renderUsage();
  }

  renderUsage() {
    const u = this.usage;
    if (!u) return;
    const parts = [
      h("span", { class: "usage-tokens" }, `${u.input_tokens} tokens in · ${u.output_tokens} out`),
      h("span", { class: "usage-cost" }, `cost ${formatCost(u.cost_usd)}`),
    ];
    if (this.wallMs !== undefined) {
      parts.push(h("span", { class: "usage-latency" }, `latency ${formatMs(this.wallMs)}`));
    }
    if (this.calls) parts.push(h("span", {}, `${this.calls} LLM calls`));
    this.usageEl.replaceChildren(...parts);
  }

  round(number) {
    const key = number ?? "answers";
    let round = this.rounds.get(key);
    if (!round) {
      const grid = h("div", { class: number === null || number === undefined ? "panels stack" : "panels" });
      const routing = h("p", { class: "decision routing", hidden: true });
      const evaluation = h("p", { class: "decision evaluation", hidden: true });
      const title = number ? h("h3", { class: "round-title" }, `Round ${number}`) : null;
      const el = h("section", { class: "round", dataset: { round: key } }, title, routing, grid, evaluation);
      round = { el, grid, routing, evaluation };
      this.rounds.set(key, round);
      const synthesisEl = this.synthesis?.el.parentElement;
      if (synthesisEl) this.body.insertBefore(el, synthesisEl);
      else this.body.append(el);
    }
    return round;
  }

  panel(roundNumber, key) {
    const id = panelId(roundNumber, key);
    let panel = this.panels.get(id);
    if (!panel) {
      panel = new AgentPanel({ key, round: roundNumber });
      this.panels.set(id, panel);
      this.round(roundNumber).grid.append(panel.el);
    }
    return panel;
  }
}

function panelId(round, key) {
  return `${round ?? "-"}:${key}`;
}

/** Rebuild a stored turn (GET /v1/sessions/{id}/turns + its messages) as a TurnView. */
export function turnFromRecord(turn, messages) {
  const view = new TurnView({ message: turn.message, mode: turn.mode });
  view.apply({ type: "turn_started", turn_id: turn.id, mode: turn.mode });
  let currentRound;
  for (const m of messages) {
    if (m.role === "user") continue;
    if (m.role === "manager") {
      view.apply({ type: "synthesis_started" });
      storedOutcome(view.synthesis, m);
      continue;
    }
    if (m.round !== currentRound && m.round !== null) {
      if (currentRound) view.apply({ type: "round_end", round: currentRound });
      view.apply({ type: "round_start", round: m.round });
    }
    currentRound = m.round;
    const base = { agent_key: m.agent_key, round: m.round };
    view.apply({ type: "agent_started", ...base, agent_name: m.agent_name });
    storedOutcome(view.panel(m.round, m.agent_key), m);
  }
  if (currentRound) view.apply({ type: "round_end", round: currentRound });
  view.apply({ type: "turn_completed", status: turn.status, usage: turn.usage });
  if (turn.error_code && turn.status === "failed") view.notice(`Turn failed: ${turn.error_code}`, "error");
  view.wallMs = turn.finished_at ? new Date(turn.finished_at) - new Date(turn.created_at) : undefined;
  view.renderUsage();
  return view;
}

function storedOutcome(panel, message) {
  if (message.status === "ok") panel.complete(message.content);
  else if (message.status === "cancelled") {
    panel.text = message.content;
    panel.stop();
  } else panel.fail("failed", message.error_code);
}
