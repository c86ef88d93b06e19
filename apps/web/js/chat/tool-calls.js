// One agent's tool calls inside its panel: a collapsed <details> per call (name, state
// badge, duration); opened, the arguments (pretty JSON, or the model's raw text when it
// was not a JSON object) and the result, always as text. data-state on each row:
// running -> ok | failed | unfinished (the turn ended before its result); a call that
// needs a person's approval: running -> awaiting (its result comes in the continuation),
// where data-approval (approved | rejected, from the stored turn) names the decision.

import { h } from "../core/dom.js";
import { formatMs } from "../text/format.js";

const BADGE = { running: "running…", ok: "ok", failed: "failed", unfinished: "no result",
  awaiting: "awaits approval" };
const PASSAGE = /^\[(\d+)\] ([^\n]*)\n?([\s\S]*)$/;

export class ToolCalls {
  constructor() {
    this.rows = new Map();
    this.el = h("div", { class: "tool-calls", role: "group", "aria-label": "Tool calls" });
  }

  call(e) {
    const row = new ToolCallRow(e);
    this.rows.set(e.call_id, row);
    this.el.append(row.el);
  }

  result(e) {
    this.rows.get(e.call_id)?.finish(e);
  }

  /** approval_required: the call waits for a person instead of running. */
  awaiting(e) {
    const row = this.rows.get(e.call_id);
    if (!row) return;
    row.setState("awaiting");
    row.resultEl.replaceChildren(h("p", { class: "placeholder" }, "Waiting for a person's approval."));
  }

  /** The stored call's approval (GET /v1/turns/{id}): a rejected call reads "rejected". */
  approval(callId, status) {
    this.rows.get(callId)?.setApproval(status);
  }

  /** The turn ended: calls still waiting for a result say so. */
  stop() {
    for (const row of this.rows.values()) if (row.state === "running") row.setState("unfinished");
  }
}

class ToolCallRow {
  constructor(e) {
    this.badge = h("span", { class: "tool-badge" });
    this.duration = h("span", { class: "tool-duration" });
    this.resultEl = h("div", { class: "tool-result" }, h("p", { class: "placeholder" }, "Waiting for the result…"));
    const raw = typeof e.arguments_raw === "string";
    this.el = h("details", { class: "tool-call", dataset: { callId: e.call_id, tool: e.name } },
      h("summary", {},
        h("span", { class: "tool-icon", "aria-hidden": "true" }, "⚙"),
        h("code", { class: "tool-name" }, e.name),
        h("span", { class: "tool-preview" }, raw ? e.arguments_raw : preview(e.arguments)),
        this.badge,
        this.duration),
      h("div", { class: "tool-detail" },
        h("div", { class: "tool-label" }, raw ? "Arguments (not a JSON object, as the model wrote them)" : "Arguments"),
        h("pre", { class: `tool-args${raw ? " raw" : ""}` }, raw ? e.arguments_raw : prettyJson(e.arguments)),
        h("div", { class: "tool-label" }, "Result"),
        this.resultEl));
    this.setState("running");
  }

  get state() {
    return this.el.dataset.state;
  }

  setState(state) {
    this.el.dataset.state = state;
    this.badge.textContent = BADGE[state] ?? state;
    if (state === "unfinished") {
      this.resultEl.replaceChildren(h("p", { class: "placeholder" }, "The turn ended before this call returned."));
    }
  }

  setApproval(status) {
    if (status !== "approved" && status !== "rejected") return;
    this.el.dataset.approval = status;
    if (status === "rejected") this.badge.textContent = "rejected";
    else if (this.state === "ok") this.badge.textContent = "approved · ok";
  }

  finish(e) {
    this.setState(e.ok ? "ok" : "failed");
    this.duration.textContent = typeof e.duration_ms === "number" ? formatMs(e.duration_ms) : "";
    this.resultEl.replaceChildren(...resultNodes(e.name, String(e.content ?? ""), e.ok));
  }
}

/** One line for the collapsed row: `expression: "17*23"`, cut short by CSS. */
function preview(args) {
  if (!args || typeof args !== "object") return "";
  return Object.entries(args).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ").slice(0, 200);
}

function prettyJson(value) {
  try {
    return JSON.stringify(value ?? {}, null, 2);
  } catch {
    return String(value);
  }
}

/** search_knowledge answers "[n] file, page p\ntext" blocks: one passage each, as text. */
function resultNodes(name, content, ok) {
  if (!content) return [h("p", { class: "placeholder" }, "(empty)")];
  if (ok && name === "search_knowledge") {
    const blocks = content.split(/\n\n(?=\[\d+\] )/);
    const passages = blocks.map((block) => PASSAGE.exec(block));
    if (passages.every(Boolean)) {
      return [h("ol", { class: "tool-passages" }, passages.map(([, n, source, text]) =>
        h("li", { class: "tool-passage", dataset: { n } },
          h("div", { class: "tool-passage-source" }, `[${n}] ${source}`),
          h("div", { class: "tool-passage-text" }, text.trim()))))];
    }
  }
  return [h("pre", { class: `tool-text${ok ? "" : " failed"}` }, content)];
}
