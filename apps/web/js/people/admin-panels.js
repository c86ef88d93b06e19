// A user's Keys and Budgets panels in the admin view (#/admin, under their row): list,
// create (the whole key shown once, with Copy) and revoke API keys
// (/v1/admin/users/{id}/keys); set and clear daily/monthly USD budgets, overall or for one
// of their rooms (/v1/admin/users/{id}/budgets, docs/budgets.md).

import { copyButton } from "../core/clipboard.js";
import { confirmDialog, formDialog, showModal } from "../core/dialogs.js";
import { h } from "../core/dom.js";
import { notifyError } from "../core/notify.js";
import { formatTime } from "../text/format.js";
import { peopleApi } from "./people-api.js";
import { BUDGET_PERIODS, budgetBody, spendText } from "./values.js";

/** A secret shown once in a dialog (an invitation link, a new key), with Copy. */
export function showOnce({ title, text, value, name }) {
  const dialog = h("dialog", { class: "modal", "aria-label": title },
    h("div", { class: "dialog-form" },
      h("h2", {}, title),
      h("p", { class: "dialog-text" }, text),
      h("div", { class: "share-url" },
        h("input", { type: "text", readonly: true, value, "aria-label": name }),
        copyButton(() => value, `Copy ${name.toLowerCase()}`)),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, "Done"))));
  return new Promise((resolve) => {
    showModal(dialog, resolve);
    dialog.querySelector("input").select();
  });
}

/** A panel: a heading, an action button, a list that `load` fills (and refills). */
function panel(title, action, load) {
  const list = h("div", {}, h("p", { class: "loading" }, "Loading…"));
  const el = h("section", { class: "user-panel", "aria-label": title },
    h("div", { class: "user-panel-head" }, h("h3", {}, title), action), list);
  async function refill() {
    try {
      list.replaceChildren(...await load());
    } catch (err) {
      list.replaceChildren(h("p", { class: "form-error", role: "alert" }, err.message));
    }
  }
  refill();
  return { el, refill };
}

function keyItem(user, key, refill) {
  const live = !key.revoked_at;
  return h("li", { dataset: { prefix: key.prefix } },
    h("code", {}, key.prefix), " ",
    h("span", { class: "muted" }, `made ${formatTime(key.created_at)}`), " ",
    live ? null : h("span", { class: "badge status-disabled" }, `Revoked ${formatTime(key.revoked_at)}`),
    live ? h("button", { type: "button", class: "small danger", "aria-label": `Revoke key ${key.prefix}`,
      onclick: async () => {
        const sure = await confirmDialog(`Revoke key ${key.prefix}?`,
          "Programs using it are refused from their next request. This cannot be undone.", "Revoke");
        if (!sure) return;
        try { await peopleApi.revokeKey(user.id, key.id); } catch (err) { notifyError(err); }
        await refill();
      } }, "Revoke") : null);
}

/** The user's API keys: prefixes, when made, revoked or not; New key; Revoke.
 *  `onCount(n)`: the number of live keys, each time the list is read. */
export function keysPanel(user, name, onCount = () => {}) {
  const create = async () => {
    try {
      const made = await peopleApi.createKey(user.id);
      await keys.refill();
      await showOnce({ title: `New API key for ${name}`, value: made.key, name: "API key",
        text: "Give it to them now: it is shown only once (the server keeps only its hash)." });
    } catch (err) {
      notifyError(err);
    }
  };
  const keys = panel("API keys", h("button", { type: "button", class: "small",
    "aria-label": `New key for ${name}`, onclick: create }, "New key"), async () => {
    const items = await peopleApi.keys(user.id);
    onCount(items.filter((k) => !k.revoked_at).length);
    if (!items.length) return [h("p", { class: "muted" }, "No keys.")];
    return [h("ul", { class: "user-panel-list" }, items.map((k) => keyItem(user, k, keys.refill)))];
  });
  return keys.el;
}

function budgetItem(user, budget, refill) {
  const scope = budget.room_id ? `Room ${budget.room_id}` : "All rooms";
  const spent = budget.spend.map(spendText).join(" · ");
  return h("li", { dataset: { room: budget.room_id ?? "" } },
    h("strong", {}, scope), " ", h("span", {}, spent), " ",
    h("button", { type: "button", class: "small", "aria-label": `Clear budget: ${scope}`, onclick: async () => {
      try { await peopleApi.clearBudget(user.id, budget.room_id); } catch (err) { notifyError(err); }
      await refill();
    } }, "Clear"));
}

async function setBudget(user, name, refill) {
  const set = await formDialog({
    title: `Budget for ${name}`, submitLabel: "Set budget",
    description: "USD per UTC day and/or month; leave one empty for no limit there.",
    fields: [
      ...BUDGET_PERIODS.map((p) => ({ name: p.field, label: `${p.label} limit (USD)`, type: "number",
        step: "0.01", min: "0" })),
      { name: "room_id", label: "Room id (optional: only their turns in that room)", maxlength: 64 },
    ],
    onSubmit: (values) => peopleApi.setBudget(user.id, budgetBody(values)),
  });
  if (set) await refill();
}

/** The user's budgets with what is spent in the current windows; Set; Clear. */
export function budgetsPanel(user, name) {
  const budgets = panel("Budgets", h("button", { type: "button", class: "small",
    "aria-label": `Set budget for ${name}`, onclick: () => setBudget(user, name, budgets.refill) }, "Set budget"),
  async () => {
    const items = await peopleApi.budgets(user.id);
    if (!items.length) return [h("p", { class: "muted" }, "No budget: no limit.")];
    return [h("ul", { class: "user-panel-list" }, items.map((b) => budgetItem(user, b, budgets.refill)))];
  });
  return budgets.el;
}
