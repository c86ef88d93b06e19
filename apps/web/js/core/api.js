// The HTTP API, one function per route. Errors become ApiError carrying the server's detail.

import { describeError } from "../text/humanize.js";
import { csrfHeaders, signedInByCookie } from "./csrf.js";

/** `message` is for a person (see humanize.js); `detail` is the server's own text. */
export class ApiError extends Error {
  constructor(status, detail, code = null) {
    super(describeError({ status, message: formatDetail(detail) || `HTTP ${status}` }));
    this.status = status;
    this.detail = detail;
    this.code = code;
  }
}

/** FastAPI validation errors are a list; ours are a string. Either becomes one sentence. */
export function formatDetail(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        const where = (item.loc || []).filter((p) => p !== "body").join(".");
        return where ? `${where}: ${item.msg}` : item.msg;
      })
      .join("; ");
  }
  return detail ? JSON.stringify(detail) : "";
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (body && body.detail !== undefined) return new ApiError(response.status, body.detail, body.code);
  return new ApiError(response.status, `${response.status} ${response.statusText}`.trim());
}

// API keys (PANTHEON_AUTH_MODE=keys): sent as a Bearer token; asked for on the first 401.
const KEY_STORAGE = "pantheon.apiKey";
let apiKey = readKey();
let onUnauthorized = null;
let pendingLogin = null;

function readKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) || "";
  } catch {
    return "";
  }
}

export function hasApiKey() {
  return Boolean(apiKey);
}

/** True when the page is signed in by a session cookie (POST /auth/login). */
export function hasSession() {
  return signedInByCookie(document.cookie);
}

/**
 * The credentials a `method` request needs: the key's Authorization header, or for a
 * cookie session the CSRF token on writes. Also for requests made without `send` (upload
 * progress needs XHR).
 */
export function authHeaders(method = "GET") {
  return apiKey ? { Authorization: `Bearer ${apiKey}` } : csrfHeaders(method, document.cookie);
}

export function setApiKey(key) {
  apiKey = key || "";
  try {
    if (apiKey) localStorage.setItem(KEY_STORAGE, apiKey);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    // storage disabled: the key lasts until the page is closed
  }
}

/** handler(detail) -> Promise<boolean>: ask for a key; true when one was set. */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/**
 * fetch with the key or the session's CSRF token; on 401 ask once to sign in (shared by
 * concurrent calls), retry once.
 */
async function send(path, init, askToSignIn = true) {
  const attempt = () => fetch(path, { ...init, headers: { ...init.headers, ...authHeaders(init.method) } });
  let response;
  try {
    response = await attempt();
    if (response.status === 401 && onUnauthorized && askToSignIn) {
      const error = await errorFrom(response);
      pendingLogin ??= onUnauthorized(error.message).finally(() => { pendingLogin = null; });
      if (await pendingLogin) response = await attempt();
      else throw error;
    }
  } catch (err) {
    if (err.name === "AbortError" || err instanceof ApiError) throw err;
    throw new ApiError(0, "The server cannot be reached. Is Pantheon running?");
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

/** `askToSignIn: false`: a 401 is the caller's answer (a wrong password), not a sign-in prompt. */
export async function request(method, path, body, { signal, headers = {}, askToSignIn = true } = {}) {
  const init = { method, signal, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await send(path, init, askToSignIn);
  if (response.status === 204) return null;
  return response.json();
}

/** Every page of a paginated list route. */
export async function allPages(path) {
  const items = [];
  for (let offset = 0; ; offset += 200) {
    const sep = path.includes("?") ? "&" : "?";
    const page = await request("GET", `${path}${sep}limit=200&offset=${offset}`);
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) return items;
  }
}

const id = encodeURIComponent;
const search = (q) => (q ? `?q=${encodeURIComponent(q)}` : "");

export const api = {
  models: () => request("GET", "/v1/models").then((page) => page.items),
  modes: () => request("GET", "/v1/modes").then((page) => page.items),
  errorCodes: () => request("GET", "/v1/error-codes").then((page) => page.items),
  defaults: () => request("GET", "/v1/defaults"),
  tools: () => allPages("/v1/tools"),

  rooms: () => allPages("/v1/rooms"),
  room: (roomId) => request("GET", `/v1/rooms/${id(roomId)}`),
  createRoom: (data) => request("POST", "/v1/rooms", data),
  updateRoom: (roomId, data) => request("PATCH", `/v1/rooms/${id(roomId)}`, data),
  deleteRoom: (roomId) => request("DELETE", `/v1/rooms/${id(roomId)}`),
  addMember: (roomId, agentId, position) =>
    request("POST", `/v1/rooms/${id(roomId)}/agents`, { agent_id: agentId, position }),
  removeMember: (roomId, agentId) =>
    request("DELETE", `/v1/rooms/${id(roomId)}/agents/${id(agentId)}`),

  agents: () => allPages("/v1/agents"),
  agent: (agentId) => request("GET", `/v1/agents/${id(agentId)}`),
  createAgent: (data) => request("POST", "/v1/agents", data),
  updateAgent: (agentId, data) => request("PATCH", `/v1/agents/${id(agentId)}`, data),
  deleteAgent: (agentId) => request("DELETE", `/v1/agents/${id(agentId)}`),

  roomSessions: (roomId, q = "") => allPages(`/v1/rooms/${id(roomId)}/sessions${search(q)}`),
  agentSessions: (agentId, q = "") => allPages(`/v1/agents/${id(agentId)}/sessions${search(q)}`),
  updateSession: (sessionId, data) => request("PATCH", `/v1/sessions/${id(sessionId)}`, data),
  deleteSession: (sessionId) => request("DELETE", `/v1/sessions/${id(sessionId)}`),
  createRoomSession: (roomId, title = "") =>
    request("POST", `/v1/rooms/${id(roomId)}/sessions`, { title }),
  createAgentSession: (agentId, title = "") =>
    request("POST", `/v1/agents/${id(agentId)}/sessions`, { title }),
  session: (sessionId) => request("GET", `/v1/sessions/${id(sessionId)}`),
  messages: (sessionId) => allPages(`/v1/sessions/${id(sessionId)}/messages`),
  history: (sessionId, { before = null, through = null, limit = 20 } = {}) => request("GET",
    `/v1/sessions/${id(sessionId)}/history?limit=${limit}${before ? `&before=${id(before)}` : ""}`
    + (through ? `&through=${id(through)}` : "")),
  forkSession: (sessionId, turnId) =>
    request("POST", `/v1/sessions/${id(sessionId)}/fork`, { turn_id: turnId }),
  sessionUsage: (sessionId) => request("GET", `/v1/sessions/${id(sessionId)}/usage`),
  roomUsage: (roomId) => request("GET", `/v1/rooms/${id(roomId)}/usage`),

  turn: (turnId) => request("GET", `/v1/turns/${id(turnId)}`),
  cancelTurn: (turnId) => request("POST", `/v1/turns/${id(turnId)}/cancel`),
};

/** POST a turn asking for SSE; resolves to the streaming Response (errors: ApiError). */
export async function postTurnStream(sessionId, body, signal) {
  return openStream(`/v1/sessions/${id(sessionId)}/turns`, {
    method: "POST",
    signal,
    headers: { Accept: "text/event-stream", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Decide a turn awaiting approval; streams the continuation turn (docs/approvals.md). */
export async function postApprovalsStream(turnId, body, signal) {
  return openStream(`/v1/turns/${id(turnId)}/approvals`, {
    method: "POST",
    signal,
    headers: { Accept: "text/event-stream", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Run a turn's failed agents (or its synthesis alone) again; streams the new turn. */
export async function postRetryStream(turnId, body, signal) {
  return openStream(`/v1/turns/${id(turnId)}/retry`, {
    method: "POST",
    signal,
    headers: { Accept: "text/event-stream", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Follow a running or finished turn's events after event `after`. */
export async function followTurnStream(turnId, after, signal) {
  return openStream(`/v1/turns/${id(turnId)}/events`, {
    method: "GET",
    signal,
    headers: { Accept: "text/event-stream", "Last-Event-ID": String(after) },
  });
}

function openStream(path, init) {
  return send(path, init);
}
