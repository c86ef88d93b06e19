// The open room's or agent's sessions in the sidebar, under its entry: searchable by title
// and message text (the server's ?q=), the open one marked, and the ones with a turn
// running in this tab marked "live" (several may run at once), and the ones whose turn
// waits for the person's approval marked "needs you" (the server's `awaiting_approval`).

import { h } from "../core/dom.js";
import { sessionLabel } from "../text/format.js";

const SEARCH_DELAY_MS = 250;

export class SessionNav {
  /** list(owner, q) -> Promise<sessions>; running() -> Set of session ids running here. */
  constructor({ list, running }) {
    this.list = list;
    this.running = running;
    this.owner = null;
    this.sessions = [];
    this.currentId = null;
    this.generation = 0;
    this.search = h("input", { type: "search", class: "side-search", "aria-label": "Search sessions",
      placeholder: "Search sessions", autocomplete: "off" });
    this.status = h("p", { class: "side-empty", role: "status" });
    this.items = h("ul", { class: "side-sessions-list", "aria-label": "Sessions" });
    this.el = h("div", { class: "side-sessions" }, this.search, this.status, this.items);
    let timer = null;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.load(), SEARCH_DELAY_MS);
    });
  }

  /** Show `owner`'s sessions ({kind, id}), as the page just read them (unless searching). */
  show(owner, sessions, currentId) {
    const same = this.owner && this.owner.kind === owner.kind && this.owner.id === owner.id;
    this.owner = owner;
    this.currentId = currentId;
    if (!same) this.search.value = "";
    if (this.search.value.trim()) this.load();
    else {
      this.sessions = sessions;
      this.render();
    }
  }

  async load() {
    if (!this.owner) return;
    const mine = ++this.generation;
    const q = this.search.value.trim();
    let sessions;
    try {
      sessions = await this.list(this.owner, q);
    } catch (err) {
      if (mine === this.generation) this.status.textContent = err.message;
      return;
    }
    if (mine !== this.generation) return;
    this.sessions = sessions;
    this.render();
  }

  /** Draw the list again (the open session or the running ones changed). */
  render() {
    const q = this.search.value.trim();
    const running = this.running();
    this.status.textContent = this.sessions.length ? ""
      : q ? `No session mentions “${q}”.` : "No sessions yet.";
    this.status.hidden = !this.status.textContent;
    const base = this.owner ? `#/${this.owner.kind}s/${this.owner.id}` : "#/";
    this.items.replaceChildren(...this.sessions.map((session) => {
      const live = running.has(session.id);
      const waiting = !live && Boolean(session.awaiting_approval);
      return h("li", {}, h("a", { class: "side-session", href: `${base}/sessions/${session.id}`,
        dataset: { id: session.id, live: String(live), waiting: String(waiting) },
        "aria-current": session.id === this.currentId ? "page" : null },
      h("span", { class: "side-session-title" }, sessionLabel(session)),
      live ? h("span", { class: "badge live", title: "A turn is running in this session" }, "live") : null,
      waiting ? h("span", { class: "badge waiting", title: "A tool call waits for your approval" }, "needs you") : null));
    }));
  }
}
