// Tiny DOM builder. Text always goes through text nodes: nothing here parses HTML.

/**
 * h("button", {class: "primary", onclick: fn, disabled: true}, "Send")
 * Attributes: `class`, `dataset` (object), `on<event>` (listener), booleans as properties,
 * everything else via setAttribute. Children: nodes, strings (text nodes), arrays, null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (value === true) el.setAttribute(name, "");
    else if (name === "value") el.value = value;
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function replaceChildren(el, ...children) {
  clear(el);
  return append(el, children);
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/**
 * Run `redraw` and give the focus back to the element that had it, caret and selection
 * included, if the redraw only moved it: moving an element drops its focus, and the keys a
 * person was typing into it would go nowhere.
 */
export function keepingFocus(redraw) {
  const focused = document.activeElement;
  const selection = selectionOf(focused);
  redraw();
  if (!focused || focused === document.body || focused === document.activeElement || !focused.isConnected) return;
  focused.focus({ preventScroll: true });
  if (selection) focused.setSelectionRange(...selection);
}

function selectionOf(el) {
  if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) return null;
  if (el.selectionStart === null) return null; // an input type without a caret (checkbox, …)
  return [el.selectionStart, el.selectionEnd, el.selectionDirection];
}
