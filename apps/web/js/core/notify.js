// Page-level messages: errors from actions outside a form (role=alert), and short notes.

import { h } from "./dom.js";

let region;

function host() {
  region ??= document.getElementById("toasts");
  return region;
}

export function notify(text, kind = "info", ms = 4000) {
  const toast = h(
    "div",
    { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" },
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
