// The history part of the chat log: the newest page of a session's turns on open, older
// pages prepended on "Load earlier turns" (or when that button scrolls into view), the
// reading position kept. A paused turn whose continuation is known shows as decided; in a
// fork, a line marks where the inherited turns end, with a link to the session they come
// from; a draft fork (`through`: not made until its first message) ends with a line that
// says so.

import { h } from "../core/dom.js";
import { parseDecisions } from "../text/decisions.js";
import { HistoryPages, storedTurn } from "./history.js";

export class HistoryLog {
  /** log: the scrolling element; actions: for each TurnView; onPage(): after a page is shown. */
  constructor({ sessionId, through = null, log, actions, onPage, sessionHref = null }) {
    this.pages = new HistoryPages(sessionId, through);
    this.sessionId = sessionId;
    this.draft = through !== null;
    this.sessionHref = sessionHref;
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
    if (this.draft) {
      this.draftEnd = { line: this.draftLine(newest), above: newest };
      elements.push(this.draftEnd.line);
    }
    else if (newest && newest.session_id !== this.sessionId) elements.push(this.forkLine(true, newest)); // a new fork
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
      if (after && after.session_id !== item.session_id) elements.push(this.forkLine(after.session_id === this.sessionId, item));
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

  /** Where a fork's inherited turns end, after `above` (`own`: the turns below are this
   * session's); the source session's name links to it. */
  forkLine(own, above) {
    const source = this.link(above.session_id, own ? "the session this one was forked from" : "an earlier session");
    // One span between the line's two dashes (it is a flex row).
    return h("p", { class: "fork-line", role: "note" }, h("span", {}, own
      ? ["Forked here: the turns above come from ", source, "."]
      : ["Forked here from ", source, "."]));
  }

  /** The draft fork was made (its first message sent): its line becomes a fork's. */
  made() {
    if (!this.draftEnd) return;
    this.draft = false;
    this.draftEnd.line.replaceWith(this.forkLine(true, this.draftEnd.above));
    this.draftEnd = null;
  }

  /** The end of a draft fork's history: nothing is saved until a message is sent. */
  draftLine(newest) {
    return h("p", { class: "fork-line fork-draft", role: "note" }, h("span", {},
      "A new fork from here: send a message to start it (nothing is saved until you do), or go back to ",
      this.link(newest?.session_id ?? this.sessionId, "the session it comes from"), "."));
  }

  link(sessionId, text) {
    const href = this.sessionHref?.(sessionId);
    return href ? h("a", { href, class: "fork-source" }, text) : text;
  }
}
