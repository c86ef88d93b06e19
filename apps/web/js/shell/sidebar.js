// The navigation column: rooms and agents, each with a "New" button and an empty state;
// the open one has its sessions under it (`sessions`: the SessionNav element).

import { h } from "../core/dom.js";
import { showShortcuts } from "../core/shortcuts.js";
import { MEMBER_ROLES, isOwner, label } from "../people/values.js";

function themeButton() {
  const theme = window.pantheonTheme;
  if (!theme) return null;
  const button = h("button", { type: "button", class: "ghost small theme-toggle",
    "aria-pressed": String(theme.current() === "dark"),
    onclick: () => {
      const next = theme.toggle();
      button.setAttribute("aria-pressed", String(next === "dark"));
    } }, "Dark theme");
  return button;
}

export function renderSidebar(el, { rooms, agents, route, sessions = null, onNewRoom, onNewAgent, account = null }) {
  const roomItems = rooms.map((room) => item(
    `#/rooms/${room.id}`, room.name,
    `${room.mode} · ${count(room.agents.length, "agent")}${isOwner(room) ? "" : ` · shared, ${label(MEMBER_ROLES, room.access)}`}`,
    route.kind === "room" && route.id === room.id, sessions));
  const agentItems = agents.map((agent) => item(
    `#/agents/${agent.id}`, agent.name, `@${agent.key} · ${agent.model}`,
    route.kind === "agent" && route.id === agent.id, sessions));
  el.replaceChildren(
    h("a", { class: "brand", href: "#/" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "Π"), "Pantheon"),
    group("Rooms", "New room", onNewRoom, roomItems, "No rooms yet. A room is a team of agents."),
    group("Agents", "New agent", onNewAgent, agentItems, "No agents yet. Start here: an agent is a role with a model."),
    h("div", { class: "side-foot" },
      themeButton(),
      h("button", { type: "button", class: "ghost small", "aria-keyshortcuts": "Control+/",
        onclick: showShortcuts }, "Keyboard shortcuts"),
      h("a", { href: "/docs" }, "API docs"),
      account),
  );
}

function group(title, action, onAction, items, emptyText) {
  return h("section", { class: "side-group" },
    h("div", { class: "side-head" }, h("h2", {}, title),
      h("button", { type: "button", class: "small", onclick: onAction }, `+ ${action}`)),
    items.length ? h("ul", { class: "side-list" }, items) : h("p", { class: "side-empty" }, emptyText));
}

function item(href, name, meta, current, sessions) {
  return h("li", {},
    h("a", { href, class: "side-item", "aria-current": current ? "page" : null },
      h("span", { class: "side-name" }, name), h("span", { class: "side-meta" }, meta)),
    current ? sessions : null);
}

function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
