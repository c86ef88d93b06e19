// Session exports as text (apps/web/js/sessions/export-text.js) and the names the page
// gives sessions and figures (apps/web/js/text/format.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { exportFileName, toJson, toMarkdown } from "../../../apps/web/js/sessions/export-text.js";
import { formatCost, formatMs, formatTime, sessionLabel } from "../../../apps/web/js/text/format.js";

const AT = new Date("2025-03-04T05:06:07.000Z");
const SESSION = { id: "s1", title: "Tides & <moons>", created_at: "2025-03-01T10:00:00Z" };
const USAGE = { input_tokens: 120, output_tokens: 45, cost_usd: 0.0012 };

const ORCHESTRATED = {
  mode: "orchestrator", status: "completed", message: "When is high tide?", usage: USAGE,
  messages: [
    { role: "user", content: "When is high tide?", round: null },
    { role: "agent", agent_key: "analyst", agent_name: "Ada", round: 1, status: "ok", content: "At **noon**." },
    { role: "agent", agent_key: "critic", agent_name: null, round: 1, status: "failed", error_code: "timeout", content: "" },
    { role: "agent", agent_key: "analyst", agent_name: "Ada", round: 2, status: "ok", content: "Confirmed." },
    { role: "manager", agent_key: "manager", round: null, status: "ok", content: "Noon." },
  ],
};

test("Markdown: the message, answers under their rounds, failures, synthesis, usage", () => {
  const cancelled = { mode: "roundtable", status: "cancelled", message: "Second", usage: { ...USAGE, cost_usd: 0 },
    messages: [{ role: "agent", agent_key: "scribe", agent_name: "Scribe", round: 1, status: "cancelled", content: "Half" }] };
  assert.equal(toMarkdown(SESSION, "Room Harbour", [ORCHESTRATED, cancelled], AT), [
    "# Tides & <moons>", "", "Room Harbour · exported 2025-03-04T05:06:07.000Z", "",
    "## You (orchestrator, completed)", "", "When is high tide?", "",
    "### Round 1", "", "**Ada (@analyst)**", "", "At **noon**.", "",
    "**critic (@critic)** (failed: timeout)", "", "_(no text)_", "",
    "### Round 2", "", "**Ada (@analyst)**", "", "Confirmed.", "",
    "**Manager synthesis**", "", "Noon.", "",
    "_120 tokens in · 45 out · $0.0012_", "",
    "## You (roundtable, cancelled)", "", "Second", "",
    "### Round 1", "", "**Scribe (@scribe)** (cancelled)", "", "Half", "",
    "_120 tokens in · 45 out · $0_",
  ].join("\n") + "\n");
});

test("Markdown of a session without turns or title", () => {
  const md = toMarkdown({ id: "s2", title: null, created_at: "2025-03-01T10:00:00Z" }, "Agent Ada", [], AT);
  assert.match(md, /^# Untitled session of .+\n\nAgent Ada · exported 2025-03-04T05:06:07\.000Z\n$/);
});

test("JSON: the session and every turn as the API returned them", () => {
  const parsed = JSON.parse(toJson(SESSION, "Room Harbour", [ORCHESTRATED], AT));
  assert.deepEqual(parsed, { exported_at: "2025-03-04T05:06:07.000Z", where: "Room Harbour",
    session: SESSION, turns: [ORCHESTRATED] });
  assert.ok(toJson(SESSION, "x", [], AT).endsWith("}\n"));
});

test("file names keep letters and digits of any script, nothing else", () => {
  assert.equal(exportFileName("Tides & <moons>"), "pantheon-Tides-moons");
  assert.equal(exportFileName("../../etc/passwd"), "pantheon-etc-passwd");
  assert.equal(exportFileName("Été 2025 — 東京"), "pantheon-Été-2025-東京");
  assert.equal(exportFileName("***"), "pantheon-session");
  assert.equal(exportFileName("x".repeat(100)), `pantheon-${"x".repeat(60)}`);
});

test("session labels", () => {
  assert.equal(sessionLabel(SESSION), "Tides & <moons>");
  assert.equal(sessionLabel(null), "New session");
  assert.equal(sessionLabel({ title: "", created_at: "2025-03-01T10:00:00Z" }),
    `Untitled session of ${formatTime("2025-03-01T10:00:00Z")}`);
  assert.equal(formatTime(null), "");
});

test("durations and costs", () => {
  assert.deepEqual([formatMs(null), formatMs(undefined), formatMs(0), formatMs(12.4), formatMs(999.6), formatMs(1234)],
    ["–", "–", "0 ms", "12 ms", "1000 ms", "1.23 s"]);
  assert.deepEqual([formatCost(0), formatCost(null), formatCost(0.000123), formatCost(0.5)],
    ["$0", "$0", "$0.00012", "$0.500"]);
});

test("Markdown of a review turn: verdicts instead of JSON, the answer and why it stopped", () => {
  const verdict = JSON.stringify({ approved: true, score: 9, feedback: "good now" });
  const turn = {
    mode: "review", status: "completed", message: "Describe it",
    usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.0016714999999999998 },
    messages: [
      { role: "agent", agent_key: "writer", agent_name: "Writer", round: 1, status: "ok", content: "the draft" },
      { role: "agent", agent_key: "critic", agent_name: "Critic", round: 1, status: "ok", content: verdict },
    ],
    review: {
      reviews: [{ type: "review", round: 1, agent_key: "critic", approved: true, score: 9, feedback: "good now", fallback: false }],
      completed: { type: "review_completed", round: 1, score: 9, reason: "approved", text: "the draft" },
    },
  };
  const md = toMarkdown(SESSION, "Room R", [turn], AT);
  assert.ok(!md.includes("{"), md);
  assert.ok(md.includes("**Critic (@critic)**\n\napproved · 9/10 · good now\n"), md);
  assert.ok(md.includes("### Answer (the round 1 draft, score 9; stopped: every reviewer approved)\n\nthe draft\n"), md);
  assert.ok(md.endsWith("_10 tokens in · 5 out · $0.001671_\n"), md);
});
