// A menu button (WAI-ARIA menu button pattern): Enter, Space or ArrowDown opens it on the
// first item; arrows move; Escape closes and gives focus back; a click outside closes it.

import { h } from "./dom.js";

let openMenu = null;
document.addEventListener("click", (event) => {
  if (openMenu && !openMenu.wrap.contains(event.target)) openMenu.close(false);
});

/** items: [{label, onSelect, danger, disabled}] */
/** compact: on a phone the button shows only "⋯" (its aria-label still names it). */
export function menuButton(label, items, { ariaLabel = label, className = "", compact = false } = {}) {
  const list = h("ul", { class: "menu", role: "menu", hidden: true });
  const button = h("button", { type: "button", class: `ghost small menu-button ${compact ? "compact" : ""} ${className}`,
    "aria-haspopup": "menu", "aria-expanded": "false", "aria-label": ariaLabel },
  h("span", { class: "menu-label" }, label, " ▾"), h("span", { class: "menu-dots", "aria-hidden": "true" }, "⋯"));
  const wrap = h("span", { class: "menu-wrap" }, button, list);
  const entries = items.filter(Boolean).map((item) => h("li", { role: "none" },
    h("button", { type: "button", role: "menuitem", tabindex: "-1", disabled: item.disabled,
      class: item.danger ? "danger-text" : "",
      onclick: () => { menu.close(true); item.onSelect(); } }, item.label)));
  list.append(...entries);
  const buttons = () => [...list.querySelectorAll("button:not(:disabled)")];

  const menu = {
    wrap,
    open(focusLast = false) {
      if (openMenu && openMenu !== menu) openMenu.close(false);
      list.hidden = false;
      button.setAttribute("aria-expanded", "true");
      openMenu = menu;
      const all = buttons();
      (focusLast ? all.at(-1) : all[0])?.focus();
    },
    close(returnFocus) {
      list.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (openMenu === menu) openMenu = null;
      if (returnFocus) button.focus();
    },
  };
  button.addEventListener("click", () => (list.hidden ? menu.open() : menu.close(false)));
  button.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      menu.open(event.key === "ArrowUp");
    }
  });
  list.addEventListener("keydown", (event) => {
    const all = buttons();
    const at = all.indexOf(document.activeElement);
    if (event.key === "ArrowDown") all[(at + 1) % all.length]?.focus();
    else if (event.key === "ArrowUp") all[(at - 1 + all.length) % all.length]?.focus();
    else if (event.key === "Home") all[0]?.focus();
    else if (event.key === "End") all.at(-1)?.focus();
    else if (event.key === "Escape") menu.close(true);
    else if (event.key === "Tab") { menu.close(false); return; }
    else return;
    event.preventDefault();
    event.stopPropagation();
  });
  return wrap;
}
