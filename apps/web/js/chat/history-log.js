// The history part of the chat log: the newest page of a session's turns on open, older
// pages prepended on "Load earlier turns" (or when that button scrolls into view), the
// reading position kept. A paused turn whose continuation is known shows as decided; in a
// fork, a line marks where the inherited turns end.

import { h } from "../core/dom.js";
import { parseDecisions } from "../text/decisions.js";
import { HistoryPages, storedTurn } from "./history.js";

export class HistoryLog {
  /** log: the scrolling element; actions: for each TurnView; onPage(): after a page is shown. */
  constructor({ sessionId, log, actions, onPage }) {
    this.pages = new HistoryPages(sessionId);
    this.sessionId = sessionId;
    this.oldest = null; // the oldest turn shown so far (an item of the history)
    this.log = log;
    this.actions = actions;
    this.onPage = onPage;
    this.continuations = new Map(); // paused turn id -> the turn that continues it
    this.button = h("button", { type: "button", class: "load-earlier ghost small",
      onclick: () => this.loadEarlier() }, "Load earlier turns");
    this.observer = typeof IntersectionObserver === "function"
      ? new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) this.loadEarlier();
      }, { root: log })
      : null;
  }

  /** The newest page's elements (turns, and the fork line if it falls here), oldest first. */
  async first() {
    const items = await this.pages.next();
    this.ids = items.map((item) => item.id);
    const elements = this.elements(items);
    const newest = items[items.length - 1];
    if (newest && newest.session_id !== this.sessionId) elements.push(forkLine(true)); // a new fork
    return elements;
  }

  /** Call once the first page is in the log: offers the older pages, if any. */
  attach() {
    if (!this.pages.hasMore) return;
    this.log.prepend(this.button);
    this.observer?.observe(this.button);
  }

  elements(items) {
    for (const item of items) if (item.continues) this.continuations.set(item.continues, item);
    const newer = this.oldest;
    const elements = [];
    items.forEach((item, i) => {
      const view = storedTurn(item, { actions: this.actions });
      const next = this.continuations.get(item.id);
      if (next) view.markDecided(parseDecisions(next.message));
      elements.push(view.el);
      const after = items[i + 1] ?? newer;
      if (after && after.session_id !== item.session_id) elements.push(forkLine(after.session_id === this.sessionId));
    });
    if (items.length) this.oldest = items[0];
    return elements;
  }

  async loadEarlier() {
    if (this.loading || !this.button.isConnected) return;
    this.loading = true;
    this.button.disabled = true;
    this.button.textContent = "Loading earlier turns…";
    let elements;
    try {
      elements = this.elements(await this.pages.next());
    } catch (err) {
      this.button.textContent = `Load earlier turns (the last try failed: ${err.message})`;
      return;
    } finally {
      this.loading = false;
      this.button.disabled = false;
    }
    const fromBottom = this.log.scrollHeight - this.log.scrollTop;
    this.button.after(...elements);
    if (this.pages.hasMore) this.button.textContent = "Load earlier turns";
    else this.stop();
    this.log.scrollTop = this.log.scrollHeight - fromBottom; // the turn read stays in place
    this.onPage?.();
  }

  /** No more pages (or the log shows another session now). */
  stop() {
    this.observer?.disconnect();
    this.button.remove();
  }
}

/** Where a fork's inherited turns end (`own`: the turns below are this session's). */
function forkLine(own) {
  return h("p", { class: "fork-line", role: "note" }, own
    ? "Forked here: the turns above come from the session this one was forked from."
    : "Forked here from an earlier session.");
}
