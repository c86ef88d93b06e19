// The header above the chat: a room (rename, default mode, roster, delete) or an agent
// (edit, delete), then the session bar (sessions, new session, this session's actions).
// Actions are passed in; this only builds the DOM.

import { h } from "../core/dom.js";
import { sessionLabel } from "../text/format.js";
import { menuButton } from "../core/menu.js";
import { defaultMode, modeSpec, roomModes } from "../core/modes.js";
import { MEMBER_ROLES, canEdit, isOwner, label } from "../people/values.js";

/**
 * Sessions button (opens the list), "+ New session", and this session's menu. Sessions are
 * always the caller's own, in a room shared with them too (docs/adr/0044).
 */
function sessionBar(sessions, sessionId, actions) {
  const current = sessions.find((s) => s.id === sessionId) ?? null;
  const none = !current;
  return h("div", { class: "session-bar" },
    // Its name is its text (a screen reader and voice control say what is shown).
    h("button", { type: "button", class: "session-button", "aria-haspopup": "dialog", onclick: actions.browseSessions },
    h("span", { class: "session-count" }, `Sessions (${sessions.length})`),
    // A new chat has no title yet; "+ New session" beside it already says what it is.
    ...(current ? [" ", h("span", { class: "session-current" }, sessionLabel(current))] : [])),
    h("button", { type: "button", class: "new-session", "aria-keyshortcuts": "Control+Shift+O",
      onclick: actions.newSession }, "+ New session"),
    menuButton("Session", [
      { label: "Rename session…", onSelect: () => actions.renameSession(current), disabled: none },
      { label: "Usage…", onSelect: () => actions.sessionUsage(current), disabled: none },
      { label: "Share link…", onSelect: () => actions.shareLink(current), disabled: none },
      { label: "Export as Markdown", onSelect: () => actions.exportSession(current, "md"), disabled: none },
      { label: "Export as JSON", onSelect: () => actions.exportSession(current, "json"), disabled: none },
      { label: "Delete session…", onSelect: () => actions.deleteSession(current), disabled: none, danger: true },
    ], { ariaLabel: "Session actions", compact: true }));
}

/** A room shared with the caller says so, with their role in it. */
function accessBadge(room) {
  if (isOwner(room)) return null;
  return h("span", { class: "badge access-badge" }, `Shared with you · ${label(MEMBER_ROLES, room.access)}`);
}

export function roomHeader(room, { sessions, sessionId, actions }) {
  const edit = canEdit(room);
  const own = isOwner(room);
  // Every option says it is the room's default: the composer has a look-alike picker for
  // one turn, whose options say "This turn".
  const mode = h("select", { class: "room-mode", "aria-label": "Room default mode",
    onchange: (e) => actions.setMode(e.target.value) },
  roomModes().map((spec) => h("option", { value: spec.name }, `Room default: ${spec.name}`)));
  mode.value = room.mode;
  const roster = [...room.agents].sort((a, b) => a.position - b.position);
  return h("header", { class: "view-head" },
    h("div", { class: "title-row" },
      h("h1", { class: "view-title" }, room.name, accessBadge(room)),
      sessionBar(sessions, sessionId, actions),
      h("div", { class: "title-actions" },
        edit ? h("button", { type: "button", class: "roster-button", onclick: actions.roster },
          `Roster (${roster.length})`) : null,
        menuButton("Room", [
          { label: "Documents…", onSelect: actions.documents },
          { label: "Room usage…", onSelect: actions.usage },
          own && actions.share ? { label: "Share…", onSelect: actions.share } : null,
          edit ? { label: "Edit room…", onSelect: actions.rename } : null,
          own ? { label: "Delete room…", onSelect: actions.remove, danger: true } : null,
        ], { ariaLabel: "Room actions" }))),
    room.description ? h("p", { class: "muted view-description" }, room.description) : null,
    h("div", { class: "controls-row" },
      edit ? h("label", { class: "inline-field room-mode-field",
        title: "Used for every message unless you pick another mode for one turn below" }, mode,
      h("span", { class: "mode-hint" }, modeSpec(room.mode)?.description ?? "")) : null,
      h("span", { class: "roster-inline muted" },
        roster.length ? roster.map((a) => `@${a.key}`).join(" → ") : "no agents")));
}

export function agentHeader(agent, { sessions, sessionId, actions }) {
  return h("header", { class: "view-head" },
    h("div", { class: "title-row" },
      h("h1", { class: "view-title" }, agent.name, " ", h("span", { class: "muted" }, `@${agent.key}`)),
      sessionBar(sessions, sessionId, actions),
      h("div", { class: "title-actions" },
        menuButton("Agent", [
          { label: "Documents…", onSelect: actions.documents },
          { label: "Edit agent…", onSelect: actions.edit },
          { label: "Delete agent…", onSelect: actions.remove, danger: true },
        ], { ariaLabel: "Agent actions" }))),
    h("details", { class: "role" },
      h("summary", {}, `Role prompt · model ${agent.model}`),
      h("p", { class: "role-text" }, agent.role_prompt)));
}

export function welcome({ hasAgents, hasRooms, onNewAgent, onNewRoom }) {
  return h("section", { class: "welcome" },
    h("h1", {}, "Welcome to Pantheon"),
    h("p", {}, "Build a room of AI agents and watch them answer together."),
    h("ol", { class: "steps" },
      h("li", { dataset: { done: String(hasAgents) } }, "Create a few agents: a key, a name, a role prompt, a model."),
      h("li", { dataset: { done: String(hasRooms) } }, "Create a room, choose its mode, and add agents to its roster."),
      h("li", {}, `Send a message. ${modeSpec(defaultMode("room"))?.hint ?? ""}`.trim())),
    h("div", { class: "welcome-actions" },
      h("button", { type: "button", class: hasAgents ? "" : "primary", onclick: onNewAgent }, "+ New agent"),
      h("button", { type: "button", class: hasAgents ? "primary" : "", onclick: onNewRoom }, "+ New room")),
    h("p", { class: "muted" }, "Compare rooms and modes on a dataset: ", h("a", { href: "#/evals" }, "Evaluations"), "."));
}

export function notFound(what) {
  return h("section", { class: "welcome" }, h("h1", {}, `${what} not found`),
    h("p", {}, "It may have been deleted."), h("a", { href: "#/" }, "Back to the start"));
}
