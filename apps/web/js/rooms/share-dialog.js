// The Share dialog of a room (its owner only): the people it is shared with and their
// role (GET/PUT/DELETE /v1/rooms/{id}/members...), and a person picker (GET /v1/people?q=)
// that adds someone with the role chosen beside it.

import { h } from "../core/dom.js";
import { showModal } from "../core/dialogs.js";
import { peopleApi } from "../people/people-api.js";
import { MEMBER_ROLES } from "../people/values.js";

const SEARCH_DELAY_MS = 250;

function personName(person) {
  return person.display_name && person.display_name !== person.login
    ? `${person.display_name} (@${person.login})` : `@${person.login}`;
}

function roleSelect(value, label, onchange) {
  const select = h("select", { "aria-label": label, onchange },
    MEMBER_ROLES.map((role) => h("option", { value: role.value }, role.label)));
  select.value = value;
  return select;
}

export function openShareDialog({ room }) {
  let members = { owner: null, items: [] };
  let searchTimer = null;
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const owner = h("p", { class: "muted" }, "Loading…");
  const list = h("ul", { class: "member-list", "aria-label": "People with access" });
  const query = h("input", { type: "search", autocomplete: "off", placeholder: "Name or login",
    oninput: () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, SEARCH_DELAY_MS); } });
  const newRole = roleSelect(MEMBER_ROLES[0].value, null, null); // named by its <label>
  const results = h("ul", { class: "person-results", "aria-label": "Matching people" });
  const status = h("p", { class: "visually-hidden", role: "status" });
  const dialog = h("dialog", { class: "modal share-dialog", "aria-label": `Share ${room.name}` },
    h("div", { class: "dialog-form" },
      h("h2", {}, `Share: ${room.name}`),
      owner, list,
      h("h3", {}, "Add a person"),
      h("label", { class: "field" }, h("span", { class: "field-label" }, "Find a person"), query),
      h("label", { class: "field" }, h("span", { class: "field-label" }, "Their role"), newRole),
      results, status, error,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Done"))));

  async function act(fn, focusSelector = null) {
    error.hidden = true;
    try {
      await fn();
      members = await peopleApi.members(room.id);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
    render();
    if (focusSelector) (dialog.querySelector(focusSelector) ?? query).focus();
  }

  function render() {
    owner.textContent = members.owner ? `Owner: ${personName(members.owner)}` : "";
    list.replaceChildren(...members.items.map((m) => h("li", { class: "member", dataset: { login: m.login } },
      h("span", { class: "member-name" }, personName(m)),
      roleSelect(m.role, `Role of ${personName(m)}`,
        (e) => act(() => peopleApi.setMember(room.id, m.id, e.target.value), `[data-login="${m.login}"] select`)),
      h("button", { type: "button", class: "ghost small", "aria-label": `Remove ${personName(m)}`,
        onclick: () => act(() => peopleApi.removeMember(room.id, m.id)) }, "Remove"))));
    if (!members.items.length) list.append(h("li", { class: "muted" }, "Not shared with anyone yet."));
  }

  async function search() {
    const q = query.value.trim();
    if (!q) { results.replaceChildren(); status.textContent = ""; return; }
    try {
      const shared = new Set([members.owner?.id, ...members.items.map((m) => m.id)]);
      const found = (await peopleApi.people(q)).filter((p) => !shared.has(p.id));
      if (query.value.trim() !== q) return; // typed on meanwhile
      results.replaceChildren(...found.map((p) => h("li", {},
        h("button", { type: "button", class: "ghost", onclick: () => add(p) }, `Add ${personName(p)}`))));
      status.textContent = found.length ? `${found.length} found` : "Nobody else matches.";
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  }

  function add(person) {
    query.value = "";
    results.replaceChildren();
    status.textContent = `Added ${personName(person)}.`;
    return act(() => peopleApi.setMember(room.id, person.id, newRole.value));
  }

  showModal(dialog);
  query.focus();
  act(async () => {});
}
