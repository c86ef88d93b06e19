// One turn on screen: the user's message, one section per round with the manager's
// routing and evaluation, one panel per agent, the synthesis set apart, status and usage.
// The view knows nothing about the network: events go through `apply`, which looks up one
// renderer per event type in turn-events.js (live, replayed and stored turns alike).

import { h, replaceChildren } from "../core/dom.js";
import { AgentPanel, panelId } from "./panel.js";
import { RENDERERS } from "./turn-events.js";
import { renderUsage } from "./turn-usage.js";
import { copyButton } from "../core/clipboard.js";
import { trackCitations } from "./citations.js";
import { ApprovalCard } from "./approval-card.js";
import { answerBlock, foldWork, lastStageAnswer, missingWork } from "./answer.js";

const STATUS_LABEL = {
  running: "running",
  completed: "completed",
  partial: "partial: some agents failed",
  failed: "failed",
  cancelled: "cancelled",
  interrupted: "interrupted",
  error: "error",
  lost: "lost",
  unknown: "outcome unknown",
  awaiting_approval: "awaiting your approval",
  decided: "decided: the turn goes on below",
};

export class TurnView {
  /**
   * actions (optional): {regenerate(view), edit(view)}: buttons under the user's message,
   * shown once the turn has ended; decide(view, decisions): the approval card's answer.
   */
  constructor({ message = "", mode = "", onStop = null, actions = null } = {}) {
    this.turnId = null;
    this.actions = actions;
    this.approvals = null;
    this.message = message;
    this.mode = mode;
    this.actions = actions;
    this.agents = [];
    this.stageStrip = null;
    this.finished = false;
    this.rounds = new Map();
    this.panels = new Map();
    this.activePanels = new Map(); // agent key -> its latest started panel (tool events)
    this.synthesis = null;
    this.statusEl = h("span", { class: "badge status" });
    this.modeEl = h("span", { class: "badge mode", title: "Mode this turn ran in" }, mode);
    this.stopButton = onStop
      ? h("button", { type: "button", class: "stop danger", "aria-keyshortcuts": "Escape",
        onclick: () => onStop(this) }, "Stop")
      : null;
    this.body = h("div", { class: "turn-body" });
    this.usageEl = h("footer", { class: "turn-usage", "aria-live": "polite" });
    this.noticeEl = h("div", { class: "turn-notice", role: "alert", hidden: true });
    this.actionsEl = h("div", { class: "msg-actions", hidden: true },
      copyButton(() => this.message, "Copy what you wrote"),
      actions?.edit ? h("button", { type: "button", class: "ghost small",
        title: "Put this message in the composer to change it and send it as a new turn",
        onclick: () => actions.edit(this) }, "Edit") : null,
      actions?.regenerate ? h("button", { type: "button", class: "ghost small",
        title: "Send this message again as a new turn; this one stays in the history",
        onclick: () => actions.regenerate(this) }, "Regenerate") : null,
      actions?.fork ? h("button", { type: "button", class: "ghost small fork",
        "aria-label": `Fork from here: ${excerpt(message)}`,
        title: "A new session with this conversation up to and including this turn",
        onclick: () => actions.fork(this) }, "Fork") : null,
      actions?.forkEdit ? h("button", { type: "button", class: "ghost small fork-edit",
        "aria-label": `Fork and resend: ${excerpt(message)}`,
        title: "Change this message in a new session whose history stops before it; this session stays as it is",
        onclick: () => actions.forkEdit(this) }, "Fork and resend") : null);
    this.el = h(
      "article",
      { class: "turn", "aria-label": "Turn", dataset: { mode } },
      h("div", { class: "msg-user-wrap" },
        this.messageEl = h("div", { class: "msg-user" }, message), this.actionsEl), // as typed: never Markdown
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
    this.actionsEl.hidden = status === "running";
  }

  notice(text, kind = "info") {
    this.noticeEl.hidden = !text;
    this.noticeEl.textContent = text || "";
    this.noticeEl.dataset.kind = kind;
  }

  /** Apply one protocol event (see apps/api/pantheon/turns/events.py). */
  apply(event) {
    RENDERERS[event.type]?.(this, event);
    trackCitations(this, event); // "Sources" under answers that used search_knowledge
  }

  /** The turn is over: open panels show stopped, pending manager notes go away. */
  finish(status) {
    this.finished = true;
    this.setStatus(status);
    for (const panel of this.panels.values()) panel.stop();
    if (status === "awaiting_approval") this.approvals?.open();
    else if (this.approvals?.state === "collecting") this.approvals.settle("This turn ended without waiting.");
    this.synthesis?.stop();
    for (const round of this.rounds.values()) {
      for (const line of [round.routing, round.evaluation]) {
        if (line.dataset.pending === "true") line.hidden = true;
      }
    }
    lastStageAnswer(this);
    missingWork(this);
    foldWork(this);
  }

  /** The turn's approval card, made on its first approval_required event. */
  approvalCard() {
    if (!this.approvals) {
      this.approvals = new ApprovalCard({ onDecide: (decisions) => this.decide(decisions) });
      this.el.insertBefore(this.approvals.el, this.noticeEl);
    }
    return this.approvals;
  }

  async decide(decisions) {
    if (!this.actions?.decide) throw new Error("decisions cannot be sent from here");
    await this.actions.decide(this, decisions);
    this.markDecided(decisions.map((d) => ({ callId: d.call_id, approve: d.approve, reason: d.reason })));
  }

  /** The paused turn was decided (now, or by a continuation found in the history): the
   * card shows each choice and offers nothing, the status stops saying it waits. */
  markDecided(decisions) {
    if (!this.approvals) return;
    this.approvals.settle(decisions);
    if (this.status === "awaiting_approval") this.setStatus("decided");
    for (const panel of this.panels.values()) if (panel.state === "paused") panel.setState("decided");
  }

  /** The server refused the message (no turn was made): it goes back to the composer, so
   * the turn offers only Copy. */
  refused() {
    for (const button of this.actionsEl.querySelectorAll("button:not(.copy)")) button.remove();
  }

  /** The continuation's message is the person's decisions: shown without call ids. */
  setMessage(text) {
    this.messageEl.textContent = text;
  }

  /** Latency and per-agent figures from GET /v1/turns/{id} once the turn is stored. */
  applyDetail(detail) {
    this.detail = detail;
    renderUsage(this);
    for (const call of detail.tool_calls ?? []) {
      if (!call.approval) continue;
      for (const panel of this.panels.values()) {
        for (const group of panel.toolGroups) group.calls.approval(call.call_id, call.approval);
      }
    }
  }

  /** A manager decision line: pending (what it is doing now) or decided (what it chose). */
  decision(line, parts, { pending = false } = {}) {
    replaceChildren(line, parts);
    line.dataset.pending = String(pending);
    line.setAttribute("role", pending ? "status" : "note");
    line.hidden = false;
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
      if (this.answerEl) this.body.insertBefore(el, this.answerEl);
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

  /** The manager's synthesis streams inside the turn's Answer block. */
  startSynthesis() {
    this.synthesis = new AgentPanel({ key: "manager", name: "Answer: synthesis", kind: "synthesis" });
    this.synthesis.start();
    answerBlock(this, { content: this.synthesis.el }).classList.add("synthesis");
  }
}

/** The start of a message, for buttons that must say which turn they act on. */
function excerpt(message) {
  const line = message.trim().split("\n")[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
