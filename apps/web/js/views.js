// The header above the chat: a room (rename, mode, roster, delete, sessions) or an agent
// (edit, delete, standalone sessions). Actions are passed in; this only builds the DOM.

import { h, formatTime } from "./dom.js";

const MODES = [
  ["orchestrator", "orchestrator (manager routes)"],
  ["roundtable", "roundtable (all, in order)"],
  ["manual", "manual (@mentions only)"],
];

export function sessionLabel(session) {
  return session.title || `Session of ${formatTime(session.created_at)}`;
}

function sessionPicker(sessions, sessionId, actions) {
  const select = h("select", { class: "session-select", "aria-label": "Session",
    onchange: (e) => actions.selectSession(e.target.value) },
  sessions.length ? null : h("option", { value: "" }, "no sessions yet"),
  sessions.map((s) => h("option", { value: s.id }, sessionLabel(s))));
  select.value = sessionId ?? "";
  return h("span", { class: "session-picker" },
    h("label", { class: "inline-field" }, h("span", {}, "Session"), select),
    h("button", { type: "button", onclick: actions.newSession }, "+ New session"));
}

export function roomHeader(room, { sessions, sessionId, actions }) {
  const mode = h("select", { class: "room-mode", "aria-label": "Room mode",
    onchange: (e) => actions.setMode(e.target.value) },
  MODES.map(([value, label]) => h("option", { value }, label)));
  mode.value = room.mode;
  const roster = [...room.agents].sort((a, b) => a.position - b.position);
  return h("header", { class: "view-head" },
    h("div", { class: "title-row" },
      h("h1", { class: "view-title" }, room.name),
      h("div", { class: "title-actions" },
        h("button", { type: "button", class: "ghost small", onclick: actions.rename }, "Rename"),
        h("button", { type: "button", class: "ghost small danger-text", onclick: actions.remove }, "Delete"))),
    room.description ? h("p", { class: "muted" }, room.description) : null,
    h("div", { class: "controls-row" },
      h("label", { class: "inline-field" }, h("span", {}, "Mode"), mode),
      h("button", { type: "button", class: "roster-button", onclick: actions.roster },
        `Roster (${roster.length})`),
      h("span", { class: "roster-inline muted" },
        roster.length ? roster.map((a) => `@${a.key}`).join(" → ") : "no agents"),
      h("span", { class: "controls-gap", "aria-hidden": "true" }),
      sessionPicker(sessions, sessionId, actions)));
}

export function agentHeader(agent, { sessions, sessionId, actions }) {
  return h("header", { class: "view-head" },
    h("div", { class: "title-row" },
      h("h1", { class: "view-title" }, agent.name, " ", h("span", { class: "muted" }, `@${agent.key}`)),
      h("div", { class: "title-actions" },
        h("button", { type: "button", class: "ghost small", onclick: actions.edit }, "Edit"),
        h("button", { type: "button", class: "ghost small danger-text", onclick: actions.remove }, "Delete"))),
    h("details", { class: "role" },
      h("summary", {}, `Role prompt · model ${agent.model}`),
      h("p", { class: "role-text" }, agent.role_prompt)),
    h("div", { class: "controls-row" }, sessionPicker(sessions, sessionId, actions)));
}

export function welcome({ hasAgents, hasRooms, onNewAgent, onNewRoom }) {
  return h("section", { class: "welcome" },
    h("h1", {}, "Welcome to Pantheon"),
    h("p", {}, "Build a room of AI agents and watch them answer together."),
    h("ol", { class: "steps" },
      h("li", { dataset: { done: String(hasAgents) } }, "Create a few agents: a key, a name, a role prompt, a model."),
      h("li", { dataset: { done: String(hasRooms) } }, "Create a room, choose its mode, and add agents to its roster."),
      h("li", {}, "Send a message. In orchestrator mode a manager routes it to specialists, round by round, then writes a synthesis.")),
    h("div", { class: "welcome-actions" },
      h("button", { type: "button", class: hasAgents ? "" : "primary", onclick: onNewAgent }, "+ New agent"),
      h("button", { type: "button", class: hasAgents ? "primary" : "", onclick: onNewRoom }, "+ New room")));
}

export function notFound(what) {
  return h("section", { class: "welcome" }, h("h1", {}, `${what} not found`),
    h("p", {}, "It may have been deleted."), h("a", { href: "#/" }, "Back to the start"));
}
