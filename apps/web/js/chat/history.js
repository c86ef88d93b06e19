// A session's finished turns, a page at a time (GET /v1/sessions/{id}/history: newest page
// first, each turn with the events it streamed and its stored figures), rebuilt through
// the same renderers as a live turn. A reopened session looks exactly as it streamed, and
// opening one costs one request however long it is; older pages load on demand.

import { api } from "../core/api.js";
import { h } from "../core/dom.js";
import { TurnView } from "./turn-view.js";

export const PAGE_TURNS = 20;

/** One stored turn (an item of the history) as a TurnView; `actions` as for TurnView. */
export function storedTurn(item, { actions } = {}) {
  const view = new TurnView({ message: item.message, mode: item.mode, actions });
  view.turnId = item.id;
  view.el.dataset.turnId = item.id;
  view.el.dataset.sessionId = item.session_id;
  for (const event of item.events) view.apply(event);
  if (!view.finished) view.finish(item.status); // a log without its last event (interrupted)
  view.applyDetail(item);
  return view;
}

/** The pages of one session's history, newest first: `next()` reads the next older one. */
export class HistoryPages {
  /** through: a turn id; the history then ends with it (a fork not made yet). */
  constructor(sessionId, through = null) {
    this.sessionId = sessionId;
    this.through = through;
    this.before = null;
    this.hasMore = true;
  }

  /** The next older page's turns, oldest first. */
  async next() {
    const through = this.before ? null : this.through;
    const page = await api.history(this.sessionId, { before: this.before, through, limit: PAGE_TURNS });
    this.before = page.before;
    this.hasMore = page.has_more;
    return page.items;
  }
}

/** A placeholder while a long history loads. */
export function loadingNote() {
  return h("p", { class: "loading", role: "status" }, "Loading the conversation…");
}
