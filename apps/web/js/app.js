// Entry point: loads rooms, agents and models, routes on the URL hash, wires the views.
// Routes: #/  #/rooms/<id>[/sessions/<sid>]  #/agents/<id>[/sessions/<sid>]

import { api, hasApiKey, setApiKey, setUnauthorizedHandler } from "./api.js";
import { agentDialog } from "./agent-form.js";
import { ChatPane } from "./chat.js";
import { confirmDialog, formDialog } from "./dialogs.js";
import { h } from "./dom.js";
import { notifyError } from "./notify.js";
import { clearRunning, loadRunning } from "./resume-store.js";
import { openRosterDialog } from "./roster.js";
import { renderSidebar } from "./sidebar.js";
import { agentHeader, notFound, roomHeader, welcome } from "./views.js";

const state = { rooms: [], agents: [], models: [], route: { kind: null } };
const sidebar = document.getElementById("sidebar");
const main = document.getElementById("main");
const chat = new ChatPane({ onTurnFinished: () => refreshSidebar() });
let routeToken = 0;

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const kind = { rooms: "room", agents: "agent" }[parts[0]] ?? null;
  return { kind, id: kind ? parts[1] : null, sessionId: parts[2] === "sessions" ? parts[3] : null };
}

function go(hash, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", hash);
  else if (location.hash !== hash) history.pushState(null, "", hash);
  route();
}

async function loadAll() {
  [state.rooms, state.agents, state.models] = await Promise.all([api.rooms(), api.agents(), api.models()]);
}

async function refreshSidebar() {
  try {
    await loadAll();
  } catch (err) {
    notifyError(err);
  }
  drawSidebar();
}

function drawSidebar() {
  renderSidebar(sidebar, { ...state, onNewRoom: newRoom, onNewAgent: newAgent,
    onForgetKey: hasApiKey() ? forgetKey : null });
}

async function route() {
  const token = ++routeToken;
  state.route = parseHash();
  document.body.classList.remove("menu-open");
  document.getElementById("menu-toggle").setAttribute("aria-expanded", "false");
  drawSidebar();
  const { kind, id, sessionId } = state.route;
  if (kind === "room") {
    const room = state.rooms.find((r) => r.id === id);
    if (!room) return main.replaceChildren(notFound("Room"));
    let sessions = [];
    try {
      sessions = await api.roomSessions(room.id);
    } catch (err) {
      notifyError(err);
    }
    if (token !== routeToken) return undefined;
    if (!sessionId && sessions.length) return go(`#/rooms/${room.id}/sessions/${sessions[0].id}`, { replace: true });
    main.replaceChildren(roomHeader(room, { sessions, sessionId, actions: roomActions(room) }), chat.el);
    return chat.show({ room, sessionId, ensureSession: (m) => ensureSession(sessionId, () => api.createRoomSession(room.id, title(m)), (s) => `#/rooms/${room.id}/sessions/${s.id}`) });
  }
  if (kind === "agent") {
    const agent = state.agents.find((a) => a.id === id);
    if (!agent) return main.replaceChildren(notFound("Agent"));
    const sessions = await api.agentSessions(agent.id);
    if (token !== routeToken) return undefined;
    if (!sessionId && sessions.length) return go(`#/agents/${agent.id}/sessions/${sessions[0].id}`, { replace: true });
    main.replaceChildren(agentHeader(agent, { sessions, sessionId, actions: agentActions(agent) }), chat.el);
    return chat.show({ agent, sessionId, ensureSession: (m) => ensureSession(sessionId, () => api.createAgentSession(agent.id, title(m)), (s) => `#/agents/${agent.id}/sessions/${s.id}`) });
  }
  main.replaceChildren(welcome({
    hasAgents: state.agents.length > 0, hasRooms: state.rooms.length > 0, onNewAgent: newAgent, onNewRoom: newRoom,
  }));
  return undefined;
}

function title(message) {
  const line = message.split("\n")[0].trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/** The open session, or a new one (its URL replaces the current one without a reload). */
async function ensureSession(sessionId, create, hashOf) {
  if (sessionId) return sessionId;
  const session = await create();
  history.replaceState(null, "", hashOf(session));
  state.route = parseHash();
  chat.context.sessionId = session.id;
  const picker = main.querySelector(".session-select");
  if (picker) {
    picker.prepend(h("option", { value: session.id }, session.title || "New session"));
    picker.querySelector('option[value=""]')?.remove();
    picker.value = session.id;
  }
  return session.id;
}

function roomActions(room) {
  const reroute = async () => { await refreshSidebar(); route(); };
  return {
    selectSession: (sid) => go(`#/rooms/${room.id}/sessions/${sid}`),
    newSession: () => formDialog({
      title: "New session", submitLabel: "Start session",
      fields: [{ name: "title", label: "Title (optional)", maxlength: 200 }],
      onSubmit: (v) => api.createRoomSession(room.id, v.title),
    }).then((s) => s && go(`#/rooms/${room.id}/sessions/${s.id}`)),
    rename: () => formDialog({
      title: "Rename room",
      fields: [{ name: "name", label: "Name", value: room.name, required: true, maxlength: 200 },
        { name: "description", label: "Description", type: "textarea", rows: 2, value: room.description }],
      onSubmit: (v) => api.updateRoom(room.id, v),
    }).then((r) => r && reroute()),
    setMode: (mode) => api.updateRoom(room.id, { mode }).then(reroute, (err) => { notifyError(err); reroute(); }),
    roster: () => openRosterDialog({ room, agents: state.agents, onChange: (updated) => {
      Object.assign(room, updated);
      reroute();
    } }),
    remove: async () => {
      if (!(await confirmDialog(`Delete ${room.name}?`, "Its sessions and turns go with it. Agents stay."))) return;
      try {
        await api.deleteRoom(room.id);
        await refreshSidebar();
        go("#/");
      } catch (err) {
        notifyError(err);
      }
    },
  };
}

function agentActions(agent) {
  return {
    selectSession: (sid) => go(`#/agents/${agent.id}/sessions/${sid}`),
    newSession: async () => {
      try {
        const s = await api.createAgentSession(agent.id, "");
        go(`#/agents/${agent.id}/sessions/${s.id}`);
      } catch (err) {
        notifyError(err);
      }
    },
    edit: () => agentDialog({ agent, models: state.models }).then(async (a) => { if (a) { await refreshSidebar(); route(); } }),
    remove: async () => {
      if (!(await confirmDialog(`Delete ${agent.name}?`, "It leaves every roster and stops answering."))) return;
      try {
        await api.deleteAgent(agent.id);
        await refreshSidebar();
        go("#/");
      } catch (err) {
        notifyError(err);
      }
    },
  };
}

async function newRoom() {
  const room = await formDialog({
    title: "New room", submitLabel: "Create room",
    fields: [
      { name: "name", label: "Name", required: true, maxlength: 200, placeholder: "Launch planning" },
      { name: "description", label: "Description (optional)", type: "textarea", rows: 2 },
      { name: "mode", label: "Mode", type: "select", value: "orchestrator", options: [
        { value: "orchestrator", label: "orchestrator: a manager routes specialists" },
        { value: "roundtable", label: "roundtable: everyone, in roster order" },
        { value: "manual", label: "manual: only @mentioned agents" }] },
    ],
    onSubmit: (v) => api.createRoom(v),
  });
  if (room) {
    await refreshSidebar();
    go(`#/rooms/${room.id}`);
  }
}

async function newAgent() {
  const agent = await agentDialog({ models: state.models });
  if (agent) {
    await refreshSidebar();
    if (state.route.kind !== "room") go(`#/agents/${agent.id}`);
  }
}

/** The server wants an API key (PANTHEON_AUTH_MODE=keys): ask for one and check it. */
async function askForKey(detail) {
  const ok = await formDialog({
    title: "API key needed",
    description: `This server asks for an API key (${detail}). The key is kept in this browser's local storage.`,
    submitLabel: "Use this key",
    fields: [{ name: "key", label: "API key", type: "password", required: true, placeholder: "pk_…" }],
    onSubmit: async ({ key }) => {
      setApiKey(key.trim());
      const check = await fetch("/v1/models", { headers: { Authorization: `Bearer ${key.trim()}` } });
      if (check.status === 401) {
        setApiKey("");
        throw new Error("That key was not accepted.");
      }
      return true;
    },
  });
  return ok === true;
}

function forgetKey() {
  setApiKey("");
  location.reload();
}

async function boot() {
  setUnauthorizedHandler(askForKey);
  const toggle = document.getElementById("menu-toggle");
  toggle.addEventListener("click", () => {
    toggle.setAttribute("aria-expanded", String(document.body.classList.toggle("menu-open")));
  });
  sidebar.addEventListener("click", (event) => {
    if (event.target.closest("a")) document.body.classList.remove("menu-open");
  });
  try {
    await loadAll();
  } catch (err) {
    main.replaceChildren(h("section", { class: "welcome error", role: "alert" },
      h("h1", {}, "Pantheon is not answering"), h("p", {}, err.message),
      h("button", { type: "button", onclick: () => location.reload() }, "Try again")));
    return;
  }
  await resumeRunningTurn();
  window.addEventListener("popstate", route); // back/forward and hand-edited hashes
  await route();
}

/** A turn was running when the page unloaded: go to its session and follow it again. */
async function resumeRunningTurn() {
  const running = loadRunning();
  if (!running) return;
  let session;
  try {
    session = await api.session(running.sessionId);
  } catch {
    clearRunning();
    return;
  }
  const hash = session.room_id
    ? `#/rooms/${session.room_id}/sessions/${session.id}`
    : `#/agents/${session.agent_id}/sessions/${session.id}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
  chat.resume(running);
}

boot();
