// Export a session as Markdown (for people) or JSON (everything the API stores: the
// session, and each turn with its messages and LLM calls). Built from GET /v1/turns/{id}.

import { api } from "./api.js";
import { sessionLabel } from "./views.js";

export async function exportSession(session, format, where) {
  const turns = await api.sessionTurns(session.id);
  const details = [];
  for (const turn of turns) details.push(await api.turn(turn.id));
  const name = fileName(sessionLabel(session));
  if (format === "json") {
    const data = { exported_at: new Date().toISOString(), where, session, turns: details };
    download(`${name}.json`, "application/json", `${JSON.stringify(data, null, 2)}\n`);
  } else {
    download(`${name}.md`, "text/markdown", toMarkdown(session, where, details));
  }
}

export function toMarkdown(session, where, turns) {
  const out = [`# ${sessionLabel(session)}`, "", `${where} · exported ${new Date().toISOString()}`, ""];
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
      out.push(`**${who}**${state}`, "", m.content || "_(no text)_", "");
    }
    const u = turn.usage;
    out.push(`_${u.input_tokens} tokens in · ${u.output_tokens} out · $${u.cost_usd}_`, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function fileName(title) {
  const base = title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `pantheon-${base || "session"}`;
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
