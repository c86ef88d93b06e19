// The sessions of a room or agent: latest activity first, searchable by title and content
// (the server's ?q=), each openable, renameable and deletable.

import { h } from "../core/dom.js";
import { showModal } from "../core/dialogs.js";
import { formatTime, sessionLabel } from "../text/format.js";

const SEARCH_DELAY_MS = 250;

/**
 * list(q) -> Promise<sessions>; open(session); rename(session) -> Promise<bool>;
 * remove(session) -> Promise<bool>. Resolves when the dialog closes.
 */
export function openSessionsDialog({ title, currentId, list, open, rename, remove }) {
  return new Promise((resolve) => {
    const search = h("input", { type: "search", class: "session-search", "aria-label": "Search sessions",
      placeholder: "Search titles and messages", autocomplete: "off" });
    const status = h("p", { class: "muted session-status", role: "status" });
    const items = h("ul", { class: "session-list", "aria-label": "Sessions" });
    const dialog = h("dialog", { class: "modal sessions-dialog", "aria-label": title },
      h("div", { class: "dialog-form" },
        h("h2", {}, title),
        search, status, items,
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Close"))));
    let timer = null;
    let generation = 0;

    async function load() {
      const mine = ++generation;
      const q = search.value.trim();
      status.textContent = "Searching…";
      let sessions;
      try {
        sessions = await list(q);
      } catch (err) {
        if (mine === generation) status.textContent = err.message;
        return;
      }
      if (mine !== generation) return;
      status.textContent = sessions.length
        ? `${sessions.length} session${sessions.length === 1 ? "" : "s"}${q ? ` matching “${q}”` : ""}, latest activity first`
        : q ? `No session mentions “${q}”.` : "No sessions yet: send a message to start one.";
      items.replaceChildren(...sessions.map(row));
    }

    function row(session) {
      const name = sessionLabel(session);
      const meta = `${session.turn_count} turn${session.turn_count === 1 ? "" : "s"} · ${formatTime(session.last_activity_at)}`;
      return h("li", { class: "session-item", dataset: { id: session.id } },
        h("button", { type: "button", class: "session-open ghost",
          "aria-current": session.id === currentId ? "true" : null,
          onclick: () => { dialog.close(); open(session); } },
        h("span", { class: "session-title" }, name), h("span", { class: "session-meta" }, meta)),
        h("button", { type: "button", class: "ghost small", "aria-label": `Rename ${name}`,
          onclick: async () => { if (await rename(session)) load(); } }, "Rename"),
        h("button", { type: "button", class: "ghost small danger-text", "aria-label": `Delete ${name}`,
          onclick: async () => { if (await remove(session)) load(); } }, "Delete"));
    }

    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(load, SEARCH_DELAY_MS);
    });
    showModal(dialog, () => { clearTimeout(timer); resolve(); });
    search.focus();
    load();
  });
}
