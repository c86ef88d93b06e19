// Every set of values the people views use, in one place: account roles and statuses
// (pantheon/db/models.py UserRole, UserStatus), room member roles and access (the sharing
// API), and the sign-in error codes the OIDC callback puts in /?signin_error=<code>. The
// server does not list these at a route, so the page keeps this one copy; every picker,
// badge and message reads it, and tests/test_web_values.py checks it against the server's
// (pantheon/db/models.py, rooms/access.py, users/oidc_errors.py, engine/values.py budget
// periods). Pure: node-tested.

/** Account roles, in the order a picker shows them. */
export const ROLES = Object.freeze([
  { value: "member", label: "Member" },
  { value: "admin", label: "Admin" },
]);

/** Account statuses; only "active" people can sign in. */
export const STATUSES = Object.freeze([
  { value: "active", label: "Active" },
  { value: "pending", label: "Pending approval" },
  { value: "disabled", label: "Disabled" },
]);

/** What a room member may do: the Share dialog's choices (the owner is not one). */
export const MEMBER_ROLES = Object.freeze([
  { value: "viewer", label: "Can view" },
  { value: "editor", label: "Can edit" },
]);

/** A budget's periods (a limit per UTC day and per UTC month; docs/budgets.md). */
export const BUDGET_PERIODS = Object.freeze([
  { value: "day", label: "Daily", field: "daily_usd" },
  { value: "month", label: "Monthly", field: "monthly_usd" },
]);

/** A room read's `access`: the caller's own standing in it. */
export const ACCESS = Object.freeze({
  owner: "owner",
  editor: "editor",
  viewer: "viewer",
});

/** The messages for /?signin_error=<code> (pantheon/users/oidc_errors.py SigninError). */
const SIGNIN_ERRORS = Object.freeze({
  state: "That sign-in took too long or was already used. Try again.",
  denied: "The provider did not let you sign in (cancelled or refused). Try again.",
  provider: "The sign-in provider could not be reached or refused the sign-in. Try again later.",
  token: "The provider's answer could not be verified. Try again, or ask an administrator.",
  domain: "Your account's email address is not one this server accepts.",
  refused: "There is no account for you here yet. Ask an administrator to invite you.",
  pending: "Your account is waiting for an administrator's approval. Try again once it is approved.",
  disabled: "This account is disabled. Ask an administrator if that is a mistake.",
  busy: "Too many sign-ins were started from here just now. Wait a minute, then try again.",
});

export function label(values, value) {
  return values.find((item) => item.value === value)?.label ?? String(value ?? "");
}

/** The sentence for a sign-in error code; a code this page does not know still says so. */
export function signinErrorMessage(code) {
  if (!code) return "";
  return SIGNIN_ERRORS[code] ?? `Sign-in did not finish (${code}). Try again.`;
}

/** Whether a room's `access` lets the caller change it (rename, roster, modes, sessions). */
export function canEdit(room) {
  return (room?.access ?? ACCESS.owner) !== ACCESS.viewer;
}

/** Whether the caller owns the room (only the owner shares or deletes it). */
export function isOwner(room) {
  return (room?.access ?? ACCESS.owner) === ACCESS.owner;
}

/** The token of an invitation page's path (/invite/<token>), or null elsewhere. */
export function inviteToken(pathname) {
  const match = /^\/invite\/([^/]+)\/?$/.exec(pathname || "");
  return match ? decodeURIComponent(match[1]) : null;
}

/** The body of PUT /v1/admin/users/{id}/budgets from the form's text values (USD; empty:
 *  no limit for that period; `room_id` empty: all rooms). Throws when nothing is set or a
 *  limit is not a number of dollars at or above 0. */
export function budgetBody(form) {
  const body = {};
  for (const { label: name, field } of BUDGET_PERIODS) {
    const text = String(form[field] ?? "").trim();
    if (!text) continue;
    const usd = Number(text);
    if (!Number.isFinite(usd) || usd < 0) throw new Error(`${name} limit: a number of dollars, 0 or more.`);
    body[field] = usd;
  }
  if (!Object.keys(body).length) throw new Error("Set a daily or a monthly limit (Clear lifts a budget).");
  const room = String(form.room_id ?? "").trim();
  if (room) body.room_id = room;
  return body;
}

/** One limit of a budget as the page says it: "Daily: $1.20 of $5.00 spent". */
export function spendText(spend) {
  const money = (usd) => `$${Number(usd).toFixed(2)}`;
  return `${label(BUDGET_PERIODS, spend.period)}: ${money(spend.spent_usd)} of ${money(spend.limit_usd)} spent`;
}
