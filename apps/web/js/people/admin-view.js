// The admin view (#/admin, admins only): every user with their role and status; invite a
// person (POST /v1/admin/users, then their one-time /invite/<token> link to pass on),
// approve a pending person, change a role, disable and enable (PATCH /v1/admin/users/{id}).
// The page has no keys or budgets screen: those stay on the CLI and the API (linked).

import { copyButton } from "../core/clipboard.js";
import { formDialog, showModal } from "../core/dialogs.js";
import { h } from "../core/dom.js";
import { notifyError } from "../core/notify.js";
import { formatTime } from "../text/format.js";
import { peopleApi } from "./people-api.js";
import { ROLES, STATUSES, label } from "./values.js";

/** The action a user's status offers: approve, disable or enable (the next status). */
const STATUS_ACTION = { pending: ["Approve", "active"], active: ["Disable", "disabled"], disabled: ["Enable", "active"] };

function showInviteLink(user, inviteUrl) {
  const url = new URL(inviteUrl, location.origin).href;
  const dialog = h("dialog", { class: "modal", "aria-label": `Invitation for ${user.login}` },
    h("div", { class: "dialog-form" },
      h("h2", {}, `Invitation for ${user.display_name || user.login}`),
      h("p", { class: "dialog-text" }, "Send this link to them: it sets their password once. It is shown only now."),
      h("div", { class: "share-url" },
        h("input", { type: "text", readonly: true, value: url, "aria-label": "Invitation link" }),
        copyButton(() => url, "Copy invitation link")),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, "Done"))));
  return new Promise((resolve) => {
    showModal(dialog, resolve);
    dialog.querySelector("input").focus();
  });
}

async function invite(redraw) {
  const made = await formDialog({
    title: "Invite a person", submitLabel: "Invite",
    fields: [
      { name: "login", label: "Login", required: true, maxlength: 100 },
      { name: "display_name", label: "Display name (optional)", maxlength: 200 },
      { name: "email", label: "Email (optional)", type: "email", maxlength: 320 },
      { name: "role", label: "Role", type: "select", value: ROLES[0].value, options: ROLES },
    ],
    onSubmit: ({ login, display_name: name, email, role }) =>
      peopleApi.invite({ login: login.trim(), display_name: name.trim(), email: email.trim() || null, role }),
  });
  if (!made) return;
  await redraw();
  await showInviteLink(made.user, made.invite_url);
}

function userRow(user, change) {
  const name = user.display_name || user.login;
  const role = h("select", { "aria-label": `Role of ${name}`, onchange: (e) => change(user, { role: e.target.value }) },
    ROLES.map((r) => h("option", { value: r.value }, r.label)));
  role.value = user.role;
  const [actionLabel, next] = STATUS_ACTION[user.status] ?? [];
  return h("tr", { dataset: { login: user.login } },
    h("th", { scope: "row" }, name),
    h("td", {}, user.login),
    h("td", {}, user.email ?? ""),
    h("td", {}, role),
    h("td", {}, h("span", { class: `badge status-${user.status}` }, label(STATUSES, user.status))),
    h("td", {}, String(user.keys?.filter((k) => !k.revoked_at).length ?? 0)),
    h("td", {}, formatTime(user.created_at)),
    h("td", { class: "user-actions" }, actionLabel ? h("button", { type: "button", class: "small",
      "aria-label": `${actionLabel} ${name}`, onclick: () => change(user, { status: next }) }, actionLabel) : null));
}

/** The user list in `main`. */
export async function showAdmin(main) {
  const body = h("div", { class: "users-wrap" }, h("p", { class: "loading" }, "Loading…"));
  const el = h("section", { class: "admin-view" },
    h("div", { class: "admin-head" }, h("h1", {}, "People"),
      h("button", { type: "button", class: "primary", onclick: () => invite(draw) }, "+ Invite a person")),
    body,
    h("p", { class: "muted" }, "API keys and budgets are managed with ", h("code", {}, "pantheon users"),
      " and the admin API (", h("a", { href: "/docs#/admin" }, "API docs"), ")."));
  main.replaceChildren(el);

  async function change(user, data) {
    try {
      await peopleApi.updateUser(user.id, data);
    } catch (err) {
      notifyError(err);
    }
    await draw();
    body.querySelector(`tr[data-login="${CSS.escape(user.login)}"] ${data.role ? "select" : "button"}`)?.focus();
  }

  async function draw() {
    try {
      const users = await peopleApi.users();
      if (!el.isConnected) return;
      body.replaceChildren(h("table", { class: "users-table", "aria-label": "People" },
        h("thead", {}, h("tr", {}, ["Name", "Login", "Email", "Role", "Status", "Keys", "Since", "Actions"]
          .map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, users.map((u) => userRow(u, change)))));
    } catch (err) {
      body.replaceChildren(h("p", { class: "form-error", role: "alert" }, err.message));
    }
  }
  await draw();
}
