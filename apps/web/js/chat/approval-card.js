// The approval card of a turn that waits for a person (docs/approvals.md): one row per
// pending tool call (agent, tool name, arguments as text) with Approve / Reject and a
// reason. Once every pending call has a choice, the decisions go to onDecide(decisions);
// the server answers with the continuation turn, which the chat pane follows live.
// data-state on the card: collecting (turn still running) -> open -> sending -> decided.

import { h } from "../core/dom.js";

export class ApprovalCard {
  /** onDecide(decisions): resolves when the continuation started, rejects with an Error. */
  constructor({ onDecide = null } = {}) {
    this.onDecide = onDecide;
    this.rows = new Map(); // call_id -> {el, choice, reason}
    this.list = h("div", { class: "approval-rows" });
    this.note = h("p", { class: "approval-note", role: "status" },
      "An agent asks to run a tool that needs your approval.");
    this.el = h("section", { class: "approval-card", "aria-label": "Approval needed" },
      h("h3", { class: "approval-title" }, "Approval needed"), this.note, this.list);
    this.setState("collecting");
  }

  get state() {
    return this.el.dataset.state;
  }

  setState(state) {
    this.el.dataset.state = state;
    const usable = state === "open";
    for (const row of this.rows.values()) {
      for (const control of row.el.querySelectorAll("button, input")) control.disabled = !usable;
    }
  }

  /** An approval_required event: one more pending call. */
  add(e) {
    if (this.rows.has(e.call_id)) return;
    const reason = h("input", { type: "text", class: "approval-reason", maxlength: "2000",
      placeholder: "Reason (told to the agent if you reject)", "aria-label": `Reason for ${e.name}` });
    const row = { choice: null, reason };
    const args = typeof e.arguments_raw === "string" ? e.arguments_raw : pretty(e.arguments);
    const approve = h("button", { type: "button", class: "approve primary",
      onclick: () => this.choose(e.call_id, true) }, "Approve");
    const reject = h("button", { type: "button", class: "reject danger",
      onclick: () => this.choose(e.call_id, false) }, "Reject");
    row.el = h("div", { class: "approval-row", dataset: { callId: e.call_id, tool: e.name } },
      h("div", { class: "approval-what" },
        h("span", { class: "approval-agent" }, `@${e.agent_key} wants to call `),
        h("code", { class: "approval-tool" }, e.name)),
      h("pre", { class: "approval-args" }, args),
      h("div", { class: "approval-actions" }, approve, reject, reason),
      h("p", { class: "approval-choice", hidden: true }));
    this.rows.set(e.call_id, row);
    this.list.append(row.el);
    this.setState(this.state);
  }

  /** The paused turn was committed: the buttons may be used now. */
  open() {
    if (this.state === "collecting") this.setState("open");
  }

  /** Decided (here, or a continuation exists): each row shows its choice, nothing is
   * offered. `decisions`: [{callId, approve, reason}], or a sentence when there are none. */
  settle(decisions = "Decided; the turn goes on below.") {
    this.setState("decided");
    if (typeof decisions === "string") {
      this.note.textContent = decisions;
      return;
    }
    this.note.textContent = "Decided; the turn goes on below.";
    for (const d of decisions) {
      const row = this.rows.get(d.callId);
      if (row) showChoice(row, d.approve, d.reason);
    }
  }

  choose(callId, approve) {
    const row = this.rows.get(callId);
    if (!row || this.state !== "open") return;
    showChoice(row, approve, row.reason.value.trim());
    if ([...this.rows.values()].every((r) => r.choice !== null)) this.send();
  }

  async send() {
    const decisions = [...this.rows.entries()].map(([callId, row]) => ({
      call_id: callId, approve: row.choice, reason: row.reason.value.trim(),
    }));
    this.setState("sending");
    this.note.textContent = "Sending your decision…";
    try {
      await this.onDecide?.(decisions); // the view then settles the card with them
    } catch (err) {
      for (const row of this.rows.values()) {
        row.choice = null;
        delete row.el.dataset.choice;
        row.el.querySelector(".approval-choice").hidden = true;
      }
      this.setState("open");
      this.note.textContent = `Your decision was not accepted: ${err.message}`;
    }
  }
}

function showChoice(row, approve, reason) {
  row.choice = approve;
  row.el.dataset.choice = approve ? "approved" : "rejected";
  const said = row.el.querySelector(".approval-choice");
  said.hidden = false;
  said.textContent = approve ? "Approved" : `Rejected${reason ? `: ${reason}` : ""}`;
}

function pretty(value) {
  try {
    return JSON.stringify(value ?? {}, null, 2);
  } catch {
    return String(value);
  }
}
