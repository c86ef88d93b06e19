// @mention suggestions in the composer: typing "@" and letters lists the matching roster
// agents; ArrowUp/ArrowDown choose, Enter or Tab inserts "@key ", Escape closes.
// A listbox tied to the textarea with aria-activedescendant, as a combobox does.

import { h } from "./dom.js";

const TOKEN = /(^|\s)@([A-Za-z0-9_-]*)$/;

export function attachMentions(input, getRoster) {
  const list = h("ul", { class: "mention-list", role: "listbox", id: "mention-list",
    "aria-label": "Agents to mention", hidden: true });
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-controls", "mention-list");
  input.setAttribute("aria-expanded", "false");
  let matches = [];
  let active = 0;

  function token() {
    const before = input.value.slice(0, input.selectionStart);
    return TOKEN.exec(before);
  }

  function close() {
    list.hidden = true;
    matches = [];
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function update() {
    const found = token();
    const roster = getRoster();
    if (!found || !roster.length) return close();
    const typed = found[2].toLowerCase();
    matches = roster.filter((a) => a.key.toLowerCase().startsWith(typed)
      || a.name.toLowerCase().startsWith(typed));
    if (!matches.length) return close();
    active = Math.min(active, matches.length - 1);
    list.replaceChildren(...matches.map((agent, i) => h("li", {
      id: `mention-${i}`, role: "option", class: "mention-option",
      "aria-selected": String(i === active), dataset: { key: agent.key },
      onmousedown: (event) => { event.preventDefault(); choose(i); },
    }, h("strong", {}, `@${agent.key}`), " ", h("span", { class: "muted" }, agent.name))));
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    input.setAttribute("aria-activedescendant", `mention-${active}`);
    return undefined;
  }

  function choose(index) {
    const found = token();
    if (!found) return close();
    const start = input.selectionStart - found[2].length - 1;
    const insert = `@${matches[index].key} `;
    input.value = input.value.slice(0, start) + insert + input.value.slice(input.selectionStart);
    const caret = start + insert.length;
    input.setSelectionRange(caret, caret);
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
