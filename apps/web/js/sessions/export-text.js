// The text of a session export: Markdown for people, JSON with everything the API stores
// (the session, and each turn as GET /v1/turns/{id} returns it). Pure: export.js fetches
// the turns and downloads what these return.

import { exportCost, reviewStopText, reviewVerdictText, sessionLabel } from "../text/format.js";

/**
 * The session as Markdown: each message, each agent's answer under its round, usage. A
 * turn may carry a review field ({reviews, completed}: its reviewers' verdict events and
 * its review_completed event): reviewers read as their verdicts, the chosen draft closes it.
 */
export function toMarkdown(session, where, turns, exportedAt = new Date()) {
  const out = [`# ${sessionLabel(session)}`, "", `${where} · exported ${exportedAt.toISOString()}`, ""];
  for (const turn of turns) {
    out.push(`## You (${turn.mode}, ${turn.status})`, "", turn.message, "");
    let round = null;
    for (const m of turn.messages) {
      if (m.role === "user") continue;
      if (m.round !== null && m.round !== round) {
        round = m.round;
        out.push(`### Round ${round}`, "");
      }
      const who = m.role === "manager" ? "Manager synthesis" : `${m.agent_name ?? m.agent_key} (@${m.agent_key})`;
      const state = m.status === "ok" ? "" : ` (${m.status}${m.error_code ? `: ${m.error_code}` : ""})`;
      const verdict = turn.review?.reviews.find((r) => r.round === m.round && r.agent_key === m.agent_key);
      const text = verdict ? `${reviewVerdictText(verdict)}${verdict.feedback ? ` · ${verdict.feedback}` : ""}` : m.content;
      out.push(`**${who}**${state}`, "", text || "_(no text)_", "");
    }
    const done = turn.review?.completed;
    if (done) {
      const which = done.round ? `the round ${done.round} draft` : "no draft";
      const score = done.score === null || done.score === undefined ? "" : `, score ${done.score}`;
      out.push(`### Answer (${which}${score}; stopped: ${reviewStopText(done.reason)})`, "");
      if (done.text) out.push(done.text, "");
    }
    const u = turn.usage;
    out.push(`_${u.input_tokens} tokens in · ${u.output_tokens} out · ${exportCost(u.cost_usd)}_`, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** The session as JSON text, two-space indented. */
export function toJson(session, where, turns, exportedAt = new Date()) {
  const data = { exported_at: exportedAt.toISOString(), where, session, turns };
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** "pantheon-<title>" with every run of non-letters/digits as one "-", at most 60 long. */
export function exportFileName(title) {
  const base = title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `pantheon-${base || "session"}`;
}
