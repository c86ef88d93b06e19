// Export a session as Markdown (for people) or JSON (everything the API stores): fetch each
// turn (GET /v1/turns/{id}), build the text (export-text.js) and download it.

import { api, followTurnStream } from "../core/api.js";
import { modeSpec } from "../core/modes.js";
import { readEvents } from "../core/sse.js";
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
    const marked = [];
    for (const detail of details) marked.push(await withReview(detail));
    download(`${name}.md`, "text/markdown", toMarkdown(session, where, marked));
  }
}

/** A turn whose answer is a chosen draft, with its verdicts and answer (from its events). */
async function withReview(detail) {
  if (modeSpec(detail.mode)?.answer !== "chosen_draft") return detail;
  const review = { reviews: [], completed: null };
  await readEvents(await followTurnStream(detail.id, 0), (event) => {
    if (event.type === "review_completed") review.completed = event;
    else if (typeof event.approved === "boolean") review.reviews.push(event); // a verdict
  });
  return { ...detail, review };
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
