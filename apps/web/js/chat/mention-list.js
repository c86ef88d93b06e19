// @mention suggestions in the composer: typing "@" and letters lists the matching roster
// agents; ArrowUp/ArrowDown choose, Enter or Tab inserts "@key ", Escape closes.
// A listbox tied to the textarea with aria-controls and aria-activedescendant. The textarea
// keeps its own role (a textbox with aria-autocomplete): ARIA does not let a textarea be a
// combobox, and aria-expanded belongs to that role.

import { h } from "../core/dom.js";
import { insertMention, matchAgents, mentionQuery } from "../text/mentions.js";

export function attachMentions(input, getRoster) {
  const list = h("ul", { class: "mention-list", role: "listbox", id: "mention-list",
    "aria-label": "Agents to mention", hidden: true });
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-controls", "mention-list");
  let matches = [];
  let active = 0;

  function typed() {
    return mentionQuery(input.value, input.selectionStart);
  }

  function close() {
    list.hidden = true;
    matches = [];
    input.removeAttribute("aria-activedescendant");
  }

  function update() {
    const query = typed();
    const roster = getRoster();
    if (query === null || !roster.length) return close();
    matches = matchAgents(roster, query);
    if (!matches.length) return close();
    active = Math.min(active, matches.length - 1);
    list.replaceChildren(...matches.map((agent, i) => h("li", {
      id: `mention-${i}`, role: "option", class: "mention-option",
      "aria-selected": String(i === active), dataset: { key: agent.key },
      onmousedown: (event) => { event.preventDefault(); choose(i); },
    }, h("strong", {}, `@${agent.key}`), " ", h("span", { class: "muted" }, agent.name))));
    list.hidden = false;
    input.setAttribute("aria-activedescendant", `mention-${active}`);
    return undefined;
  }

  function choose(index) {
    const query = typed();
    if (query === null) return close();
    const next = insertMention(input.value, input.selectionStart, query, matches[index].key);
    input.value = next.value;
    input.setSelectionRange(next.caret, next.caret);
    close();
    return undefined;
  }

  input.addEventListener("input", () => { active = 0; update(); });
  input.addEventListener("click", update);
  input.addEventListener("blur", close);

  /** Handle a keydown while suggestions show; true when the key was used. */
  function onKey(event) {
    if (list.hidden || !matches.length) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      active = (active + step + matches.length) % matches.length;
      update();
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      choose(active);
    } else if (event.key === "Escape") {
      close();
    } else {
      return false;
    }
    event.preventDefault();
    event.stopPropagation();
    return true;
  }

  return { list, onKey, close };
}
