// Keyboard shortcuts for the whole page, and the dialog that lists them.
//   Ctrl/⌘+Shift+O  new session        Shift+Esc  focus the message box
//   Ctrl/⌘+K        find sessions      Esc        stop the running turn
//   Ctrl/⌘+/        this list

import { h } from "./dom.js";
import { showModal } from "./dialogs.js";

export const SHORTCUTS = [
  ["Ctrl+Shift+O", "Start a new session (⌘+Shift+O on a Mac)"],
  ["Ctrl+K", "Find sessions by title or content"],
  ["Shift+Esc", "Focus the message box"],
  ["Esc", "Stop the running turn (when no dialog or list is open)"],
  ["Enter / Shift+Enter", "Send / new line in the message box"],
  ["@", "Suggest agents to mention (manual mode)"],
  ["Ctrl+/", "Show these shortcuts"],
];

export function installShortcuts({ chat, newSession, findSessions }) {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || document.querySelector("dialog[open]")) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    let handled = true;
    if (mod && event.shiftKey && key === "o") newSession();
    else if (mod && !event.shiftKey && key === "k") findSessions();
    else if (mod && key === "/") showShortcuts();
    else if (event.key === "Escape" && event.shiftKey) chat.composer.focus();
    else if (event.key === "Escape" && !mod) handled = chat.stopLive();
    else handled = false;
    if (handled) event.preventDefault();
  });
}

export function showShortcuts() {
  const dialog = h("dialog", { class: "modal", "aria-labelledby": "shortcuts-title" },
    h("div", { class: "dialog-form" },
      h("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
      h("dl", { class: "shortcut-list" }, SHORTCUTS.map(([keys, what]) => [
        h("dt", {}, keys.split(" / ").map((k, i) => [i ? " / " : null, h("kbd", {}, k)])), h("dd", {}, what)])),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, "Close"))));
  showModal(dialog);
  dialog.querySelector("button").focus();
}
