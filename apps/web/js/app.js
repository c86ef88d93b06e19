// Entry point: loads rooms, agents and models, routes on the URL hash, wires the views.
// Routes: #/  #/rooms/<id>[/sessions/<sid> | /new]  #/agents/<id>[/sessions/<sid> | /new]
// #/evals[/<run id>]
// ".../new" is an empty chat: its session is created by the first message (same in rooms
// and on agents), so "+ New session" never leaves empty sessions behind.

import { api, hasApiKey, hasSession, setApiKey, setUnauthorizedHandler } from "./core/api.js";
import { ADMIN_HASH, accountMenu } from "./people/account.js";
import { showAdmin } from "./people/admin-view.js";
import { openShareDialog } from "./rooms/share-dialog.js";
import { inviteToken } from "./people/values.js";
import { showInvite, showSignIn } from "./people/signin-view.js";
import { peopleApi } from "./people/people-api.js";
import { agentDialog } from "./agents/agent-form.js";
import { ChatPane } from "./chat/chat.js";
import { openDocumentsDialog } from "./knowledge/documents-dialog.js";
import { confirmDialog, formDialog } from "./core/dialogs.js";
import { h, keepingFocus } from "./core/dom.js";
import { defaultMode, roomModes, setModes } from "./core/modes.js";
import { setDefaults } from "./core/defaults.js";
import { managerField, managerValue } from "./rooms/room-fields.js";
import { notify, notifyError } from "./core/notify.js";
import { clearRunning, loadRunning } from "./core/resume-store.js";
import { openRosterDialog } from "./rooms/roster.js";
import { sessionActions } from "./sessions/session-actions.js";
import { installShortcuts } from "./core/shortcuts.js";
import { renderSidebar } from "./shell/sidebar.js";
import { showEvals } from "./evals/evals-view.js";
import { SessionNav } from "./shell/session-nav.js";
import { setErrorCodes } from "./text/humanize.js";
import { openUsageDialog } from "./sessions/usage-dialog.js";
import { agentHeader, notFound, roomHeader, welcome } from "./shell/views.js";

const state = { rooms: [], agents: [], models: [], me: null, route: { kind: null } };
const sidebar = document.getElementById("sidebar");
const main = document.getElementById("main");
// A turn ended: its session is no longer "live" at once (the lists refresh after).
const chat = new ChatPane({ onTurnFinished: () => { sessionNav.render(); refreshSidebar(); refreshHeader(); } });
const sessionNav = new SessionNav({ running: () => chat.runningSessions(),
  list: (owner, q) => (owner.kind === "room" ? api.roomSessions(owner.id, q) : api.agentSessions(owner.id, q)) });
// A turn started: its session is marked live (a first message's new session is listed).
chat.onLiveChange = () => { sessionNav.render(); refreshHeader(); };
let routeToken = 0;
let headerToken = 0;
let current = null; // the open room or agent page's session actions

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const kind = { rooms: "room", agents: "agent" }[parts[0]] ?? null;
  return { kind, id: kind ? parts[1] : null, sessionId: parts[2] === "sessions" ? parts[3] : null,
    fresh: parts[2] === "new" };
}

function go(hash, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", hash);
  // Same hash but a draft fork's entry: "+ New session" must leave the draft.
  else if (location.hash !== hash || history.state !== null) history.pushState(null, "", hash);
  route();
}

/** Who is signed in (keys mode, by password or key); local mode has no account menu. */
async function loadMe() {
  state.me = hasSession() || hasApiKey() ? await peopleApi.me() : null;
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
  const open = state.route.kind && sessionNav.owner?.id === state.route.id;
  // The sessions' search box moves into the new list: a turn ending mid-typing keeps its keys.
  keepingFocus(() => renderSidebar(sidebar, { ...state, sessions: open ? sessionNav.el : null, onNewRoom: newRoom,
    onNewAgent: newAgent, account: state.me ? accountMenu(state.me) : null }));
}

async function route() {
  const token = ++routeToken;
  state.route = parseHash();
  document.body.classList.remove("menu-open");
  document.getElementById("menu-toggle").setAttribute("aria-expanded", "false");
  drawSidebar();
  if (location.hash.startsWith("#/evals")) { // the evaluations page (js/evals/)
    chat.leave();
    current = null;
    return showEvals(main, location.hash.split("/")[2] ?? null);
  }
  if (location.hash === ADMIN_HASH) { // the people (js/people/admin-view.js)
    chat.leave();
    current = null;
    return showAdmin(main);
  }
  const { kind, id, sessionId, fresh } = state.route;
  const owner = kind === "room" ? state.rooms.find((r) => r.id === id) : state.agents.find((a) => a.id === id);
  if (!kind || !owner) {
    current = null;
    if (kind) return main.replaceChildren(notFound(kind === "room" ? "Room" : "Agent"));
    return main.replaceChildren(welcome({ hasAgents: state.agents.length > 0, hasRooms: state.rooms.length > 0,
      onNewAgent: newAgent, onNewRoom: newRoom }));
  }
  const base = `#/${kind}s/${owner.id}`;
  main.querySelector(".view-head")?.setAttribute("inert", ""); // stale until redrawn below
  if (!showing(kind, owner, sessionId)) chat.leave(); // the old composer must not send meanwhile
  let sessions = [];
  try {
    sessions = await sessionsOf(kind, owner, sessionId);
  } catch (err) {
    notifyError(err);
  }
  if (token !== routeToken) return undefined;
  if (!sessionId && !fresh && sessions.length) return go(`${base}/sessions/${sessions[0].id}`, { replace: true });
  if (sessionId && !sessions.some((s) => s.id === sessionId)) {
    notify("That session no longer exists; it may have been deleted.", "error");
    return go(base, { replace: true });
  }
  sessionNav.show({ kind, id: owner.id }, sessions, sessionId);
  drawSidebar();
  main.replaceChildren(header(kind, owner, sessions, sessionId), chat.el);
  // A draft fork ("new" with the history it will have) lives in this history entry's state:
  // made by the first message, gone if the person goes elsewhere first.
  const fork = fresh && history.state?.fork?.owner === owner.id ? history.state.fork : null;
  const make = () => {
    if (fork) return api.forkSession(fork.sessionId, fork.turnId);
    return kind === "room" ? api.createRoomSession(owner.id) : api.createAgentSession(owner.id);
  };
  const create = () => make().then((s) => {
    history.replaceState(null, "", `${base}/sessions/${s.id}`);
    state.route = parseHash();
    chat.context.sessionId = s.id;
    return s.id;
  });
  // A session made for a first message the server then refused: deleted, back to "new".
  const discardSession = async (sid) => {
    try {
      await api.deleteSession(sid);
    } catch (err) {
      notifyError(err);
      return;
    }
    if (chat.context?.sessionId !== sid) return;
    history.replaceState(null, "", `${base}/new`);
    state.route = parseHash();
    chat.context.sessionId = null;
  };
  // A session (or a fresh chat, for null) of this owner, opened like any of its sessions.
  const openSession = (sid) => {
    history.pushState(null, "", sid ? `${base}/sessions/${sid}` : `${base}/new`);
    return route();
  };
  const openFork = ({ sessionId: source, turnId }) => {
    history.pushState({ fork: { owner: owner.id, sessionId: source, turnId } }, "", `${base}/new`);
    return route();
  };
  const sessionHref = (sid) => `${base}/sessions/${sid}`;
  await chat.show({ [kind]: owner, sessionId, discardSession, openSession, openFork, fork, sessionHref,
    ensureSession: async () => chat.context.sessionId ?? create() });
  if (fresh) chat.composer.focus();
  return undefined;
}

/** The owner's sessions as the server lists them (evaluation sessions left out), plus the
 * open one when the list leaves it out: an eval case's session opened from the eval page. */
async function sessionsOf(kind, owner, sessionId) {
  const sessions = kind === "room" ? await api.roomSessions(owner.id) : await api.agentSessions(owner.id);
  if (!sessionId || sessions.some((s) => s.id === sessionId)) return sessions;
  try {
    const open = await api.session(sessionId);
    return (kind === "room" ? open.room_id : open.agent_id) === owner.id ? [...sessions, open] : sessions;
  } catch (err) {
    if (err.status === 404) return sessions; // deleted: the caller says so
    throw err;
  }
}

/** True when the chat pane already shows this owner's session (or its new session). */
function showing(kind, owner, sessionId) {
  const context = chat.context;
  return Boolean(context) && context[kind]?.id === owner.id && (context.sessionId ?? null) === (sessionId ?? null);
}

function header(kind, owner, sessions, sessionId) {
  current = sessionActions({ owner: { kind, id: owner.id, name: owner.name }, currentId: sessionId, go,
    isRunning: (sid) => chat.isRunning(sid), refresh: () => route() });
  return kind === "room"
    ? roomHeader(owner, { sessions, sessionId, actions: { ...current, ...roomActions(owner) } })
    : agentHeader(owner, { sessions, sessionId, actions: { ...current, ...agentActions(owner) } });
}

/** After a turn: the session list changed (a new session, its title, its order). */
async function refreshHeader() {
  const { kind, id, sessionId } = state.route;
  const owner = kind === "room" ? state.rooms.find((r) => r.id === id) : state.agents.find((a) => a.id === id);
  if (!owner || !main.querySelector(".view-head")) return;
  const mine = ++headerToken; // a slower earlier refresh must not draw older sessions
  try {
    const sessions = await sessionsOf(kind, owner, sessionId);
    const old = main.querySelector(".view-head");
    const same = state.route.kind === kind && state.route.id === id && state.route.sessionId === sessionId;
    if (mine === headerToken && same && old) {
      sessionNav.show({ kind, id: owner.id }, sessions, sessionId);
      const focused = old.contains(document.activeElement);
      old.replaceWith(header(kind, owner, sessions, sessionId));
      if (focused) chat.composer.focus();
    }
  } catch (err) {
    notifyError(err);
  }
}

function roomActions(room) {
  const reroute = async () => { await refreshSidebar(); route(); };
  return {
    documents: () => openDocumentsDialog({ kind: "room", id: room.id, name: room.name }),
    share: state.me ? () => openShareDialog({ room }) : null, // keys mode: people to share with
    usage: () => openUsageDialog({ title: `Usage: ${room.name}`, load: () => api.roomUsage(room.id) }),
    rename: () => formDialog({
      title: "Edit room",
      fields: [{ name: "name", label: "Name", value: room.name, required: true, maxlength: 200 },
        { name: "description", label: "Description", type: "textarea", rows: 2, value: room.description },
        modeField(room.mode), managerField(room, state.models)],
      onSubmit: (v) => api.updateRoom(room.id, managerValue(v)),
    }).then((r) => r && reroute()),
    setMode: (mode) => api.updateRoom(room.id, { mode }).then(() => {
      notify(`Room default mode is now ${mode}.`);
      reroute();
    }, (err) => { notifyError(err); reroute(); }),
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
    documents: () => openDocumentsDialog({ kind: "agent", id: agent.id, name: agent.name }),
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

/** The room's default mode in the room forms (on a phone the header has no picker). */
function modeField(value) {
  return { name: "mode", label: "Mode", type: "select", value,
    options: roomModes().map((spec) => ({ value: spec.name, label: `${spec.name}: ${spec.description}` })) };
}

async function newRoom() {
  const room = await formDialog({
    title: "New room", submitLabel: "Create room",
    fields: [
      { name: "name", label: "Name", required: true, maxlength: 200, placeholder: "Launch planning" },
      { name: "description", label: "Description (optional)", type: "textarea", rows: 2 },
      modeField(defaultMode("room")),
      managerField(null, state.models),
    ],
    onSubmit: (v) => api.createRoom(managerValue(v)),
  });
  if (room) {
    await refreshSidebar();
    go(`#/rooms/${room.id}`);
  }
}

/** From a room's page the new agent can join that room's roster straight away. */
async function newAgent() {
  const room = state.route.kind === "room" ? state.rooms.find((r) => r.id === state.route.id) : null;
  const created = await agentDialog({ models: state.models, room });
  if (!created) return;
  await refreshSidebar();
  if (room && created.addedTo) {
    notify(`Created ${created.agent.name} (@${created.agent.key}) and added it to ${room.name}'s roster.`);
    route();
  } else if (created.joinError) {
    notify(`Created ${created.agent.name}, but it could not join ${room.name}: ${created.joinError.message}`, "error");
    route();
  } else {
    notify(`Created ${created.agent.name} (@${created.agent.key}).`);
    go(`#/agents/${created.agent.id}`);
  }
}

async function boot() {
  const invite = inviteToken(location.pathname);
  if (invite) return showInvite(main, invite); // /invite/<token>: set a password first
  // PANTHEON_AUTH_MODE=keys and no key or session (or an ended one): the sign-in screen.
  setUnauthorizedHandler((reason) => {
    const refused = hasApiKey() || hasSession() ? reason : ""; // a key or session that ended
    setApiKey(""); // a refused key would be sent again instead of the new sign-in
    return showSignIn(main, refused);
  });
  const toggle = document.getElementById("menu-toggle");
  toggle.addEventListener("click", () => {
    toggle.setAttribute("aria-expanded", String(document.body.classList.toggle("menu-open")));
  });
  sidebar.addEventListener("click", (event) => {
    if (event.target.closest("a")) document.body.classList.remove("menu-open");
  });
  installShortcuts({ chat, newSession: () => current?.newSession(), findSessions: () => current?.browseSessions() });
  try {
    // The modes and the error sentences: once per page.
    const [modes, errorCodes, defaults] = await Promise.all([api.modes(), api.errorCodes(), api.defaults(), loadAll(),
      loadMe()]);
    setModes(modes);
    setErrorCodes(errorCodes);
    setDefaults(defaults);
  } catch (err) {
    main.replaceChildren(h("section", { class: "welcome error", role: "alert" },
      h("h1", {}, "Pantheon is not answering"), h("p", {}, err.message),
      h("button", { type: "button", onclick: () => location.reload() }, "Try again")));
    return;
  }
  await resumeRunningTurns();
  window.addEventListener("popstate", route); // back/forward and hand-edited hashes
  await route();
}

/**
 * Turns were running when the page unloaded: follow each again (oldest first). The page
 * stays on the chat it shows if one of them runs there, else opens the newest one's.
 */
async function resumeRunningTurns() {
  const running = loadRunning();
  const sessions = await Promise.all(running.map((turn) => api.session(turn.sessionId).catch(() => null)));
  const hashes = [];
  running.forEach((turn, i) => {
    const session = sessions[i];
    if (!session) {
      clearRunning(turn.sessionId); // deleted, or no longer this user's
      return;
    }
    hashes.push(session.room_id
      ? `#/rooms/${session.room_id}/sessions/${session.id}`
      : `#/agents/${session.agent_id}/sessions/${session.id}`);
    chat.resume(turn);
  });
  if (hashes.length && !hashes.includes(location.hash)) history.replaceState(null, "", hashes[hashes.length - 1]);
}

boot();
