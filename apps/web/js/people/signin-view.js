// The screens of a page that is not signed in (PANTHEON_AUTH_MODE=keys): sign in with a
// login and password, with an OIDC provider (GET /auth/providers), or, as a second choice,
// with a pasted API key; and the invitation page (/invite/<token>) that sets a password.
// Local mode never shows them: its server answers no 401. Every success reloads the page,
// which then boots signed in (the session cookie, or the key in localStorage).

import { h } from "../core/dom.js";
import { setApiKey } from "../core/api.js";
import { peopleApi } from "./people-api.js";
import { signinErrorMessage } from "./values.js";

/** Where a sign-in lands: the page's start, keeping the route asked for (not the error). */
function enter() {
  location.replace(`/${location.hash}`);
}

function field(label, attrs) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), h("input", attrs));
}

/** A form whose submit runs `action(values)`; its error shows inside it (role=alert). */
function screenForm({ className, fields, submitLabel, action }) {
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", class: "primary" }, submitLabel);
  const form = h("form", { class: `signin-form ${className}` }, ...fields, error, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form).entries());
    submit.disabled = true;
    error.hidden = true;
    try {
      await action(values);
    } catch (err) {
      error.textContent = err.message || String(err);
      error.hidden = false;
      submit.disabled = false;
    }
  });
  return form;
}

function passwordForm() {
  return screenForm({
    className: "password-signin",
    submitLabel: "Sign in",
    fields: [
      field("Login", { name: "login", required: true, autocomplete: "username", autocapitalize: "none" }),
      field("Password", { name: "password", type: "password", required: true, autocomplete: "current-password" }),
    ],
    action: async ({ login, password }) => {
      try {
        await peopleApi.login(login.trim(), password);
      } catch (err) {
        if (err.status === 401) throw new Error("Wrong login or password.");
        throw err;
      }
      enter();
    },
  });
}

function keyForm() {
  return screenForm({
    className: "key-signin",
    submitLabel: "Use this key",
    fields: [field("API key", { name: "key", type: "password", required: true, placeholder: "pk_…", autocomplete: "off" }),
      h("p", { class: "field-hint" }, "The key is kept in this browser's local storage.")],
    action: async ({ key }) => {
      const check = await fetch("/v1/models", { headers: { Authorization: `Bearer ${key.trim()}` } });
      if (check.status === 401) throw new Error("That key was not accepted.");
      setApiKey(key.trim());
      enter();
    },
  });
}

function providerLinks(oidc) {
  if (!oidc.length) return null;
  return h("ul", { class: "signin-providers", "aria-label": "Other ways to sign in" },
    oidc.map((p) => h("li", {}, h("a", { class: "button", href: `/auth/oidc/${encodeURIComponent(p.name)}/login` },
      `Sign in with ${p.label || p.name}`))));
}

function screen(main, title, ...children) {
  document.body.classList.add("signed-out");
  const section = h("section", { class: "signin", "aria-labelledby": "signin-title" },
    h("span", { class: "brand-mark", "aria-hidden": "true" }, "Π"),
    h("h1", { id: "signin-title" }, title), ...children);
  main.replaceChildren(section);
  section.querySelector("input")?.focus();
}

/**
 * The sign-in screen in `main` (the server answered 401: no key, no session, or an ended
 * one). `reason` is the server's sentence; /?signin_error=<code> (an OIDC callback that
 * failed) adds its own. Never resolves: a sign-in reloads the page.
 */
export async function showSignIn(main, reason = "") {
  let providers = { password: true, oidc: [] };
  try {
    providers = await peopleApi.providers();
  } catch {
    // the form still works; the provider buttons are left out
  }
  const code = new URLSearchParams(location.search).get("signin_error");
  const message = code ? signinErrorMessage(code) : "";
  screen(main, "Sign in to Pantheon",
    message ? h("p", { class: "form-error signin-error", role: "alert" }, message) : null,
    !message && reason ? h("p", { class: "muted" }, reason) : null,
    providers.password !== false ? passwordForm() : null,
    providerLinks(providers.oidc ?? []),
    h("details", { class: "signin-key" }, h("summary", {}, "Use an API key instead"), keyForm()));
  return new Promise(() => {});
}

/** The invitation page (/invite/<token>): choose a password, then the page signs in. */
export function showInvite(main, token) {
  screen(main, "Welcome to Pantheon",
    h("p", { class: "muted" }, "Choose a password to finish setting up your account."),
    screenForm({
      className: "invite-form",
      submitLabel: "Set password and sign in",
      fields: [
        field("New password", { name: "password", type: "password", required: true, autocomplete: "new-password" }),
        field("Repeat the password", { name: "repeat", type: "password", required: true, autocomplete: "new-password" }),
      ],
      action: async ({ password, repeat }) => {
        if (password !== repeat) throw new Error("The two passwords differ.");
        await peopleApi.acceptInvite(token, password);
        location.replace("/");
      },
    }));
}
