// Export a session as Markdown (for people) or JSON (everything the API stores): fetch each
// turn (GET /v1/turns/{id}), build the text (export-text.js) and download it.

import { api } from "../core/api.js";
import { sessionLabel } from "../text/format.js";
import { exportFileName, toJson, toMarkdown } from "./export-text.js";

export async function exportSession(session, format, where) {
  const turns = await api.sessionTurns(session.id);
  const details = [];
  for (const turn of turns) details.push(await api.turn(turn.id));
  const name = exportFileName(sessionLabel(session));
  if (format === "json") {
    download(`${name}.json`, "application/json", toJson(session, where, details));
  } else {
    download(`${name}.md`, "text/markdown", toMarkdown(session, where, details));
  }
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
