// The roster dialog: a room's agents in position order; add at a position, move, remove.
// Moving is "remove, then add at the new position" (the API has no reorder route). Stored
// positions may have gaps (0, 2, 3 after a removal), so every request uses the stored
// position of a neighbour, never the row's index in the list.

import { api } from "../core/api.js";
import { h } from "../core/dom.js";
import { showModal } from "../core/dialogs.js";

export function openRosterDialog({ room, agents, onChange }) {
  let current = room;
  let focusAfter = null; // {key, step}: the row (and button) to focus after the next render
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const list = h("ol", { class: "roster-list" });
  const agentSelect = h("select", { "aria-label": "Agent to add" });
  const positionSelect = h("select", { "aria-label": "Position" });
  const addButton = h("button", { type: "submit", class: "primary" }, "Add");
  const addForm = h("form", { class: "roster-add", onsubmit: (e) => { e.preventDefault(); add(); } },
    agentSelect, positionSelect, addButton);
  const dialog = h("dialog", { class: "modal roster-dialog", "aria-label": `Roster of ${room.name}` },
    h("div", { class: "dialog-form" },
      h("h2", {}, `Roster: ${room.name}`),
      h("p", { class: "dialog-text" }, "Roundtable answers in this order; the orchestrator's fallback is the first agent."),
      list, h("h3", {}, "Add an agent"), addForm, error,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Done"))));

  async function act(fn) {
    error.hidden = true;
    for (const b of dialog.querySelectorAll("button")) b.disabled = true;
    try {
      current = (await fn()) ?? (await api.room(current.id));
      onChange(current);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    } finally {
      for (const b of dialog.querySelectorAll("button")) b.disabled = false;
      render();
    }
  }

  function add() {
    if (!agentSelect.value) return;
    const position = positionSelect.value === "" ? null : Number(positionSelect.value);
    act(() => api.addMember(current.id, agentSelect.value, position));
  }

  /** Move `entry` one place up (-1) or down (+1); focus stays on the moved row. */
  function move(entry, members, index, step) {
    const neighbour = members[index + step];
    // Up: take the neighbour's place (it and later rows shift down). Down: go right after
    // the neighbour (rows from there shift down), whatever gaps the positions have.
    const to = step < 0 ? neighbour.position : neighbour.position + 1;
    focusAfter = { key: entry.key, step };
    act(async () => {
      await api.removeMember(current.id, entry.agent_id);
      return api.addMember(current.id, entry.agent_id, to);
    });
  }

  /** Focus then goes to the next row's Remove (the previous one at the end), else Add. */
  function remove(entry, members, index) {
    const next = members[index + 1] ?? members[index - 1];
    focusAfter = next ? { key: next.key, remove: true } : { add: true };
    act(() => api.removeMember(current.id, entry.agent_id));
  }

  function render() {
    const members = [...current.agents].sort((a, b) => a.position - b.position);
    list.replaceChildren(...members.map((entry, index) => h("li", { class: "roster-item", dataset: { key: entry.key } },
      h("span", { class: "roster-name" }, entry.name, " ", h("span", { class: "muted" }, `@${entry.key}`)),
      h("span", { class: "roster-actions" },
        h("button", { type: "button", class: "ghost icon", "aria-label": `Move ${entry.name} up`,
          dataset: { step: "-1" }, disabled: index === 0,
          onclick: () => move(entry, members, index, -1) }, "↑"),
        h("button", { type: "button", class: "ghost icon", "aria-label": `Move ${entry.name} down`,
          dataset: { step: "1" }, disabled: index === members.length - 1,
          onclick: () => move(entry, members, index, 1) }, "↓"),
        h("button", { type: "button", class: "ghost danger-text", "aria-label": `Remove ${entry.name}`,
          onclick: () => remove(entry, members, index) }, "Remove")))));
    if (!members.length) list.append(h("li", { class: "muted" }, "No agents in this room yet."));
    const inRoom = new Set(members.map((m) => m.agent_id));
    const free = agents.filter((a) => !inRoom.has(a.id));
    agentSelect.replaceChildren(...free.map((a) => h("option", { value: a.id }, `${a.name} (@${a.key})`)));
    if (!free.length) agentSelect.append(h("option", { value: "" }, agents.length ? "every agent is in" : "create an agent first"));
    positionSelect.replaceChildren(h("option", { value: "" }, "at the end"),
      ...members.map((m, i) => h("option", { value: String(m.position) }, `at position ${i + 1} (before ${m.name})`)));
    addButton.disabled = !free.length;
    restoreFocus();
  }

  function restoreFocus() {
    if (!focusAfter) return;
    if (focusAfter.add || focusAfter.remove) {
      const row = [...list.querySelectorAll(".roster-item")].find((li) => li.dataset.key === focusAfter.key);
      (row?.querySelector("button.danger-text") ?? agentSelect).focus();
      focusAfter = null;
      return;
    }
    const row = [...list.querySelectorAll(".roster-item")].find((li) => li.dataset.key === focusAfter.key);
    const buttons = row ? [...row.querySelectorAll("button[data-step]")] : [];
    // The same arrow if it still works, else the other one (the row reached an end).
    const same = buttons.find((b) => b.dataset.step === String(focusAfter.step) && !b.disabled);
    (same ?? buttons.find((b) => !b.disabled))?.focus();
    focusAfter = null;
  }

  render();
  showModal(dialog);
  agentSelect.focus();
}
