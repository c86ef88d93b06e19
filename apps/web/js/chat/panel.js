// One agent's answer box: header (name, key, state, copy), Markdown body, footer (figures,
// error). data-state: waiting (routed, not started) -> started -> streaming (has deltas)
//             -> done | failed | stopped, or paused (waits for a person's approval) -> decided;
// retrying (a failed call waits to be tried again) between started and streaming.
// Tests and CSS read it.

import { h } from "../core/dom.js";
import { formatMs } from "../text/format.js";
import { renderInto } from "../text/markdown-dom.js";
import { copyButton } from "../core/clipboard.js";
import { ToolCalls } from "./tool-calls.js";
import { describeFailure } from "../text/humanize.js";

const STATE_LABEL = {
  waiting: "queued",
  started: "thinking…",
  streaming: "writing…",
  done: "done",
  failed: "failed",
  stopped: "stopped",
  paused: "waiting for approval",
  decided: "decided: goes on below", // a paused agent once the person decided
};

/** The key of a panel inside a turn: its round and agent. */
export function panelId(round, key) {
  return `${round ?? "-"}:${key}`;
}

export class AgentPanel {
  constructor({ key, name = key, round = null, kind = "agent" }) {
    this.key = key;
    this.text = "";
    this.deltas = 0;
    this.renderQueued = false;
    this.nameEl = h("span", { class: "panel-name" }, name);
    this.stateEl = h("span", { class: "panel-state" });
    this.body = h("div", { class: "panel-body md" });
    this.foot = h("div", { class: "panel-foot" });
    this.toolGroups = []; // [{offset, calls: ToolCalls}]: calls made after `offset` chars of text
    this.copy = copyButton(() => this.textParts().join("\n\n"), `Copy ${name}'s answer`);
    this.copy.hidden = true;
    this.el = h(
      "section",
      {
        class: `panel panel-${kind}`,
        dataset: { agent: key, round: round ?? "" },
        "aria-label": `${name} answer`,
      },
      h("header", { class: "panel-head" }, this.nameEl,
        kind === "agent" ? h("span", { class: "panel-key" }, `@${key}`) : null, this.stateEl, this.copy),
      this.body,
      this.foot,
    );
    this.setState("waiting");
  }

  get state() {
    return this.el.dataset.state;
  }

  setState(state) {
    this.el.dataset.state = state;
    this.stateEl.textContent = STATE_LABEL[state] ?? state;
    this.copy.hidden = !this.text || !["done", "stopped"].includes(state);
  }

  setName(name) {
    if (!name) return;
    this.nameEl.textContent = name;
    this.el.setAttribute("aria-label", `${name} answer`);
    this.copy.setAttribute("aria-label", `Copy ${name}'s answer`);
  }

  start() {
    if (this.state === "waiting") this.setState("started");
  }

  append(text) {
    this.text += text;
    this.deltas += 1;
    this.el.dataset.deltas = String(this.deltas);
    if (["waiting", "started", "retrying"].includes(this.state)) this.setState("streaming");
    this.scheduleRender();
  }

  /** retrying: the call failed before any text and the server tries it again after a
   * wait; shown until text comes (or the agent ends). */
  retrying(e) {
    this.retry = e;
    this.setState("retrying");
    this.stateEl.textContent = `retrying ${e.attempt}/${e.max_attempts}`;
    this.render();
  }

  /** A tool call announced (tool_call) and its outcome (tool_result), by call_id. */
  toolCall(e) {
    this.start();
    let group = this.toolGroups.at(-1);
    if (!group || group.offset !== this.text.length) {
      group = { offset: this.text.length, calls: new ToolCalls() };
      this.toolGroups.push(group);
    }
    group.calls.call(e);
    this.render();
  }

  toolResult(e) {
    const group = this.toolGroups.find((g) => g.calls.rows.has(e.call_id));
    if (group) group.calls.result(e);
    else { // a result without its announcement (should not happen): still show it
      this.toolCall({ ...e, arguments: {}, arguments_raw: null });
      this.toolGroups.at(-1).calls.result(e);
    }
  }

  /** approval_required: the call waits, and so does this agent. */
  approvalRequired(e) {
    const group = this.toolGroups.find((g) => g.calls.rows.has(e.call_id));
    group?.calls.awaiting(e);
    this.setState("paused");
    this.render();
  }

  /** Final text: the completed event carries the whole answer, which wins over deltas. */
  complete(text, usage) {
    if (typeof text === "string") this.text = text;
    this.setState("done");
    this.render();
    if (usage) this.setFigures(usage);
  }

  /** message: a sentence for a person; code: the machine code, shown small. */
  fail(message, code) {
    this.failure = message || "This agent failed."; // the Answer block repeats it
    this.setState("failed");
    this.render();
    this.foot.replaceChildren(
      h("span", { class: "panel-error", role: "status" }, message || "This agent failed."),
      code ? h("span", { class: "panel-code" }, ` (${code})`) : null,
    );
  }

  /** A failed agent's "Retry" button (after its reason): runs it again in a new turn. */
  offerRetry(retry) {
    const name = this.nameEl.textContent;
    this.foot.append(h("button", { type: "button", class: "ghost small panel-retry",
      "aria-label": `Retry ${name}`, title: `Ask ${name} again, alone, in a new turn of this session`,
      onclick: () => retry() }, "Retry"));
  }

  /** The turn ended while this panel was still open (cancelled or broken turn). */
  stop() {
    for (const group of this.toolGroups) group.calls.stop();
    if (!["done", "failed", "paused"].includes(this.state)) {
      this.setState("stopped");
      this.render();
    }
  }

  /** Tokens (from agent_completed or summed calls), LLM calls and their latency. */
  setFigures(usage, calls = null, latencyMs = null) {
    this.usage = usage ?? this.usage;
    if (calls !== null) this.calls = calls;
    if (latencyMs !== null) this.latencyMs = latencyMs;
    if (this.state === "failed") return;
    const parts = [];
    if (this.usage) parts.push(`${this.usage.input_tokens} in · ${this.usage.output_tokens} out`);
    if (this.calls) parts.push(`${this.calls} call${this.calls === 1 ? "" : "s"}`);
    if (this.latencyMs !== undefined) parts.push(formatMs(this.latencyMs));
    this.foot.replaceChildren(h("span", { class: "panel-usage" }, parts.join(" · ")));
  }

  scheduleRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  /** A reviewer's verdict, read by the server: shown instead of the JSON it wrote. */
  showVerdict(nodes) {
    this.verdict = nodes;
    this.render();
  }

  render() {
    if (this.verdict) return this.body.replaceChildren(...this.verdict);
    if (this.toolGroups.length) return this.renderWithTools();
    renderInto(this.body, this.text);
    if (!this.text && this.state === "retrying") this.body.replaceChildren(this.retryNote());
    else if (!this.text && this.state !== "failed") {
      this.body.replaceChildren(h("p", { class: "placeholder" }, this.state === "stopped" ? "(no text)" : "…"));
    }
  }

  retryNote() {
    const { attempt, max_attempts: max, reason, delay_s: delay } = this.retry;
    const why = describeFailure(reason).split(/(?<=\.)\s/)[0]; // its first sentence: what happened
    return h("p", { class: "retry-note", role: "status" },
      `${why} Retrying after a ${formatMs(delay * 1000)} wait: attempt ${attempt} of ${max}.`);
  }

  /** The text cut where tool calls happened (one part without tool calls). */
  textParts() {
    const cuts = [...this.toolGroups.map((g) => g.offset), this.text.length];
    const parts = [];
    let from = 0;
    for (const cut of cuts) {
      if (cut < from) continue;
      parts.push(this.text.slice(from, cut));
      from = cut;
    }
    return this.toolGroups.length ? parts.map((p) => p.trim()).filter(Boolean) : [this.text];
  }

  /** Text and tool calls in the order they happened: the text written before a round of
   * calls, the calls (kept as nodes, so opened rows stay open), the text after. */
  renderWithTools() {
    const nodes = [];
    let from = 0;
    for (const group of this.toolGroups) {
      const before = this.text.slice(from, group.offset);
      if (before.trim()) nodes.push(renderInto(h("div", { class: "md-part" }), before));
      nodes.push(group.calls.el);
      from = Math.max(from, group.offset);
    }
    const after = this.text.slice(from);
    if (after.trim()) nodes.push(renderInto(h("div", { class: "md-part" }), after));
    else if (this.state === "retrying") nodes.push(this.retryNote());
    else if (!["done", "failed", "stopped", "paused"].includes(this.state)) nodes.push(h("p", { class: "placeholder" }, "…"));
    this.body.replaceChildren(...nodes);
  }
}
