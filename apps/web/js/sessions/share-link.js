// A session's share link (POST/GET/DELETE /v1/sessions/{id}/share): a read-only snapshot
// anyone with the URL can open, without signing in. Making a new link replaces the old one
// (which stops working); revoking ends it. The server keeps only the token's hash, so the
// URL is shown once, when it is made; read back later, the link has no URL.

import { copyButton } from "../core/clipboard.js";
import { h } from "../core/dom.js";
import { showModal } from "../core/dialogs.js";
import { peopleApi } from "../people/people-api.js";
import { formatTime } from "../text/format.js";

export function openShareLinkDialog(session) {
  const body = h("div", { class: "share-body", role: "status" }, h("p", { class: "muted" }, "Loading…"));
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const dialog = h("dialog", { class: "modal share-link-dialog", "aria-label": "Share link" },
    h("div", { class: "dialog-form" },
      h("h2", {}, "Share link"),
      h("p", { class: "dialog-text" },
        "Anyone with the link can read this session as it is now, without signing in. Later turns are not included."),
      body, error,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Close"))));

  async function act(fn) {
    error.hidden = true;
    for (const b of body.querySelectorAll("button")) b.disabled = true;
    try {
      render(await fn());
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      for (const b of body.querySelectorAll("button")) b.disabled = false;
    }
  }

  function render(link) {
    if (!link) {
      body.replaceChildren(h("p", {}, "This session is not shared."),
        h("button", { type: "button", class: "primary", onclick: () => act(() => peopleApi.share(session.id)) },
          "Create link"));
      return;
    }
    const url = link.url ? new URL(link.url, location.origin).href : null;
    const field = url ? h("input", { type: "text", readonly: true, value: url, "aria-label": "Share link URL",
      onfocus: (e) => e.target.select() }) : null;
    body.replaceChildren(
      url ? h("div", { class: "share-url" }, field, copyButton(() => url, "Copy share link"))
        : h("p", {}, "This session is shared. Its link was shown when it was made; for a new one, make a new snapshot."),
      h("p", { class: "muted" }, `Snapshot of ${formatTime(link.created_at)}.`),
      h("div", { class: "welcome-actions" },
        h("button", { type: "button", onclick: () => act(() => peopleApi.share(session.id)) }, "New snapshot"),
        h("button", { type: "button", class: "danger",
          onclick: () => act(async () => { await peopleApi.unshare(session.id); return null; }) }, "Revoke link")));
  }

  showModal(dialog);
  dialog.querySelector("button").focus();
  act(() => peopleApi.shareLink(session.id));
}
