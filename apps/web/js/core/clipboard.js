// "Copy" buttons: copy text, say so for a moment (visibly and to screen readers).

import { h } from "./dom.js";

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http on another host): fall back to a hidden textarea.
    const area = h("textarea", { class: "visually-hidden", "aria-hidden": "true" });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** A small button that copies getText() and shows "Copied" for 1.5 s. */
export function copyButton(getText, label = "Copy", text = "Copy") {
  const button = h("button", { type: "button", class: "ghost small copy", "aria-label": label,
    onclick: async () => {
      const ok = await copyText(getText());
      button.textContent = ok ? "Copied" : "Copy failed";
      button.dataset.copied = String(ok);
      setTimeout(() => { button.textContent = text; delete button.dataset.copied; }, 1500);
    } }, text);
  return button;
}
