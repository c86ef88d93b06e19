// The people routes (docs/adr/0040 and issue 35): sign-in, the caller, room sharing, share
// links and the admin's users, keys and budgets. One function per route, like core/api.js.

import { allPages, request } from "../core/api.js";

const id = encodeURIComponent;
const quiet = { askToSignIn: false }; // a 401 here is the answer, not a reason to ask

export const peopleApi = {
  /** {password, oidc: [{name, label}]}; a server without the route offers passwords only. */
  providers: () => request("GET", "/auth/providers", undefined, quiet).catch((err) => {
    if (err.status === 404) return { password: true, oidc: [] };
    throw err;
  }),
  login: (login, password) => request("POST", "/auth/login", { login, password }, quiet),
  acceptInvite: (token, password) => request("POST", "/auth/invite", { token, password }, quiet),
  logout: () => request("POST", "/auth/logout", undefined, quiet),
  me: () => request("GET", "/v1/me"),
  changePassword: (current, next) => request("POST", "/v1/me/password", { current, new: next }),

  people: (q) => request("GET", `/v1/people?q=${id(q)}`).then((page) => page.items),
  members: (roomId) => request("GET", `/v1/rooms/${id(roomId)}/members`),
  setMember: (roomId, userId, role) =>
    request("PUT", `/v1/rooms/${id(roomId)}/members/${id(userId)}`, { role }),
  removeMember: (roomId, userId) => request("DELETE", `/v1/rooms/${id(roomId)}/members/${id(userId)}`),

  shareLink: (sessionId) => request("GET", `/v1/sessions/${id(sessionId)}/share`).catch((err) => {
    if (err.status === 404) return null; // not shared (or the route is not there)
    throw err;
  }),
  share: (sessionId) => request("POST", `/v1/sessions/${id(sessionId)}/share`),
  unshare: (sessionId) => request("DELETE", `/v1/sessions/${id(sessionId)}/share`),

  users: () => allPages("/v1/admin/users"),
  invite: (data) => request("POST", "/v1/admin/users", data),
  updateUser: (userId, data) => request("PATCH", `/v1/admin/users/${id(userId)}`, data),
  keys: (userId) => request("GET", `/v1/admin/users/${id(userId)}/keys`).then((page) => page.items),
  createKey: (userId) => request("POST", `/v1/admin/users/${id(userId)}/keys`),
  revokeKey: (userId, keyId) => request("DELETE", `/v1/admin/users/${id(userId)}/keys/${id(keyId)}`),
  budgets: (userId) => request("GET", `/v1/admin/users/${id(userId)}/budgets`).then((page) => page.items),
  setBudget: (userId, body) => request("PUT", `/v1/admin/users/${id(userId)}/budgets`, body),
  clearBudget: (userId, roomId) => request("DELETE",
    `/v1/admin/users/${id(userId)}/budgets${roomId ? `?room_id=${id(roomId)}` : ""}`),
};
