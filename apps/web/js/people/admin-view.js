// The admin view (#/admin, admins only): every user with their role and status; invite a
// person (POST /v1/admin/users, then their one-time /invite/<token> link to pass on),
// approve a pending person, change a role, disable and enable (PATCH /v1/admin/users/{id});
// under a person's row, their API keys and budgets (admin-panels.js).

import { formDialog } from "../core/dialogs.js";
import { h } from "../core/dom.js";
import { notifyError } from "../core/notify.js";
import { formatTime } from "../text/format.js";
import { budgetsPanel, keysPanel, showOnce } from "./admin-panels.js";
import { peopleApi } from "./people-api.js";
import { ROLES, STATUSES, label } from "./values.js";

/** The action a user's status offers: approve, disable or enable (the next status). */
const STATUS_ACTION = { pending: ["Approve", "active"], active: ["Disable", "disabled"], disabled: ["Enable", "active"] };

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
  await showOnce({ title: `Invitation for ${made.user.display_name || made.user.login}`,
    text: "Send this link to them: it sets their password once. It is shown only now.",
    value: new URL(made.invite_url, location.origin).href, name: "Invitation link" });
}

const COLUMNS = ["Name", "Login", "Email", "Role", "Status", "Keys", "Since", "Actions"];

/** A user's row, and under it (when `open`) their Keys and Budgets panels. */
function userRows(user, change, open, toggle) {
  const name = user.display_name || user.login;
  const role = h("select", { "aria-label": `Role of ${name}`, onchange: (e) => change(user, { role: e.target.value }) },
    ROLES.map((r) => h("option", { value: r.value }, r.label)));
  role.value = user.role;
  const [actionLabel, next] = STATUS_ACTION[user.status] ?? [];
  const detailId = `user-detail-${user.id}`;
  const count = h("td", {}, String(user.keys?.filter((k) => !k.revoked_at).length ?? 0));
  const row = h("tr", { dataset: { login: user.login } },
    h("th", { scope: "row" }, name),
    h("td", {}, user.login),
    h("td", {}, user.email ?? ""),
    h("td", {}, role),
    h("td", {}, h("span", { class: `badge status-${user.status}` }, label(STATUSES, user.status))),
    count,
    h("td", {}, formatTime(user.created_at)),
    h("td", { class: "user-actions" },
      actionLabel ? h("button", { type: "button", class: "small", "aria-label": `${actionLabel} ${name}`,
        onclick: () => change(user, { status: next }) }, actionLabel) : null, " ",
      h("button", { type: "button", class: "small ghost", "aria-expanded": String(open), "aria-controls": detailId,
        "aria-label": `Keys and budgets of ${name}`, onclick: () => toggle(user) }, "Keys and budgets")));
  if (!open) return [row];
  return [row, h("tr", { class: "user-detail", id: detailId, dataset: { detailOf: user.login } },
    h("td", { colspan: COLUMNS.length },
      h("div", { class: "user-panels" }, keysPanel(user, name, (n) => { count.textContent = String(n); }), budgetsPanel(user, name))))];
}

/** The user list in `main`. */
export async function showAdmin(main) {
  const body = h("div", { class: "users-wrap" }, h("p", { class: "loading" }, "Loading…"));
  const el = h("section", { class: "admin-view" },
    h("div", { class: "admin-head" }, h("h1", {}, "People"),
      h("button", { type: "button", class: "primary", onclick: () => invite(draw) }, "+ Invite a person")),
    body);
  main.replaceChildren(el);
  const open = new Set(); // the ids of the users whose panels are shown

  function toggle(user) {
    if (open.has(user.id)) open.delete(user.id);
    else open.add(user.id);
    return draw().then(() => body.querySelector(`tr[data-login="${CSS.escape(user.login)}"] [aria-controls]`)?.focus());
  }

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
        h("thead", {}, h("tr", {}, COLUMNS.map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, users.map((u) => userRows(u, change, open.has(u.id), toggle)))));
    } catch (err) {
      body.replaceChildren(h("p", { class: "form-error", role: "alert" }, err.message));
    }
  }
  await draw();
}
