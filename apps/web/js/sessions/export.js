// Export a session as Markdown (for people) or JSON (everything the API stores): read its
// history (GET /v1/sessions/{id}/history, 50 turns a request, events included), build the
// text (export-text.js) and download it.

import { api } from "../core/api.js";
import { modeSpec } from "../core/modes.js";
import { sessionLabel } from "../text/format.js";
import { exportFileName, toJson, toMarkdown } from "./export-text.js";

const PAGE = 50; // the history route's largest page

export async function exportSession(session, format, where) {
  const turns = await allTurns(session.id);
  const details = turns.map((turn) => withoutEvents(turn)); // as GET /v1/turns/{id} has them
  const name = exportFileName(sessionLabel(session));
  if (format === "json") {
    download(`${name}.json`, "application/json", toJson(session, where, details));
  } else {
    const marked = turns.map((turn, i) => withReview(details[i], turn.events));
    download(`${name}.md`, "text/markdown", toMarkdown(session, where, marked));
  }
}

/** Every turn of the session's history (a fork's inherited ones too), oldest first. */
async function allTurns(sessionId) {
  const pages = [];
  let before = null;
  do {
    const page = await api.history(sessionId, { before, limit: PAGE });
    pages.unshift(page.items);
    before = page.before;
  } while (before);
  return pages.flat();
}

function withoutEvents(turn) {
  const detail = { ...turn };
  delete detail.events;
  return detail;
}

/** A turn whose answer is a chosen draft, with its verdicts and answer (from its events). */
function withReview(detail, events) {
  if (modeSpec(detail.mode)?.answer !== "chosen_draft") return detail;
  const review = { reviews: [], completed: null };
  for (const event of events) {
    if (event.type === "review_completed") review.completed = event;
    else if (typeof event.approved === "boolean") review.reviews.push(event); // a verdict
  }
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
