// The account menu at the sidebar's foot (PANTHEON_AUTH_MODE=keys, signed in by password
// or by key): who is signed in (GET /v1/me), change password, the admin view for admins,
// and sign out (POST /auth/logout; with a key, the key is forgotten). Local mode has none.

import { formDialog } from "../core/dialogs.js";
import { h } from "../core/dom.js";
import { hasSession, setApiKey } from "../core/api.js";
import { menuButton } from "../core/menu.js";
import { notify, notifyError } from "../core/notify.js";
import { peopleApi } from "./people-api.js";
import { ROLES, label } from "./values.js";

export const ADMIN_HASH = "#/admin";

function changePassword() {
  return formDialog({
    title: "Change password",
    description: "Your other signed-in browsers are signed out.",
    submitLabel: "Change password",
    fields: [
      { name: "current", label: "Current password", type: "password", required: true },
      { name: "next", label: "New password", type: "password", required: true },
      { name: "repeat", label: "Repeat the new password", type: "password", required: true },
    ],
    onSubmit: async ({ current, next, repeat }) => {
      if (next !== repeat) throw new Error("The two new passwords differ.");
      await peopleApi.changePassword(current, next);
      return true;
    },
  }).then((done) => done && notify("Password changed."));
}

async function signOut() {
  if (hasSession()) {
    try {
      await peopleApi.logout();
    } catch (err) {
      notifyError(err, "Sign-out failed");
      return;
    }
  }
  setApiKey(""); // signed in by key: forgetting it is signing out
  location.replace("/");
}

/** The menu for `me` (GET /v1/me). */
export function accountMenu(me) {
  const name = me.display_name || me.login;
  return h("div", { class: "account", title: `Signed in as ${me.login} (${label(ROLES, me.role)})` },
    menuButton(name, [
      hasSession() ? { label: "Change password…", onSelect: changePassword } : null,
      me.role === "admin" ? { label: "Admin", onSelect: () => { location.hash = ADMIN_HASH; } } : null,
      { label: "Sign out", onSelect: signOut },
    ], { ariaLabel: `Account: ${name}`, className: "account-button" }));
}
