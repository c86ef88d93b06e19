// Page-level messages: errors from actions outside a form (role=alert), and short notes.

import { h } from "./dom.js";

let region;

function host() {
  region ??= document.getElementById("toasts");
  return region;
}

/** A toast; the same text already shown is replaced (its timer restarts), not stacked. */
export function notify(text, kind = "info", ms = 4000) {
  for (const shown of host().querySelectorAll(".toast")) {
    if (shown.dataset.text === text && shown.dataset.kind === kind) shown.remove();
  }
  const toast = h(
    "div",
    { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status", dataset: { text, kind } },
    h("span", {}, text),
    h("button", { type: "button", class: "ghost", "aria-label": "Dismiss", onclick: () => toast.remove() }, "×"),
  );
  host().append(toast);
  if (ms) setTimeout(() => toast.remove(), ms);
  return toast;
}

/** Show an error (ApiError's message is the server's detail). */
export function notifyError(err, prefix = "") {
  if (err?.name === "AbortError") return;
  const text = err?.message || String(err);
  notify(prefix ? `${prefix}: ${text}` : text, "error", 10000);
}
