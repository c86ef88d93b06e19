// Modal forms on <dialog>: Esc closes, focus moves into the form, server errors
// (the API's `detail`) appear inside the form and keep it open.

import { h } from "./dom.js";

/**
 * Show `dialog` as a modal that removes itself once closed (then runs `onClose`) and gives
 * the focus back to what had it. Chromium moves the focus back by itself, but when the
 * dialog is removed as it closes, a text box gets the focus without its caret and drops
 * every key typed next (Ctrl+K then Esc, issue 33): focusing it again restores the caret.
 */
export function showModal(dialog, onClose = () => {}) {
  const opener = document.activeElement;
  dialog.addEventListener("close", () => {
    dialog.remove();
    const back = document.activeElement === opener || document.activeElement === document.body;
    if (opener instanceof HTMLElement && opener !== document.body && opener.isConnected && back) {
      opener.blur();
      opener.focus({ preventScroll: true });
    }
    onClose();
  });
  document.body.append(dialog);
  dialog.showModal();
}

/**
 * fields: [{name, label, type: text|textarea|select|number|checkbox, value, options: [{value,label}],
 *           required, pattern, placeholder, hint, min, step}], or a custom control {name, element, read()}
 *           (its value is read() when submitted; read() returning undefined leaves it out).
 * onSubmit(values) may throw; its message is shown and the dialog stays open.
 * Resolves with onSubmit's result, or null when cancelled.
 */
export function formDialog({ title, description = "", fields, submitLabel = "Save", onSubmit, danger = false }) {
  return new Promise((resolve) => {
    const error = h("p", { class: "form-error", role: "alert", hidden: true });
    const inputs = new Map();
    const custom = new Map();
    const rows = fields.map((field) => {
      if (field.element) {
        custom.set(field.name, field.read);
        return field.element;
      }
      const input = fieldInput(field);
      inputs.set(field.name, input);
      if (field.type === "checkbox") return h("label", { class: "field check" }, input, h("span", {}, field.label));
      return h("label", { class: "field" },
        h("span", { class: "field-label" }, field.label),
        input,
        field.hint ? h("span", { class: "field-hint" }, field.hint) : null);
    });
    const submit = h("button", { type: "submit", class: danger ? "danger" : "primary" }, submitLabel);
    const cancel = h("button", { type: "button", class: "ghost", onclick: () => close(null) }, "Cancel");
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", {}, title), description ? h("p", { class: "dialog-text" }, description) : null, ...rows, error, h("div", { class: "dialog-actions" }, cancel, submit));
    const dialog = h("dialog", { class: "modal" }, form);
    let settled = false;

    function close(result) {
      if (settled) return;
      settled = true;
      dialog.close(); // showModal's close handler removes it and gives the focus back
      resolve(result);
    }

    dialog.addEventListener("cancel", (event) => { event.preventDefault(); close(null); });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = {};
      for (const [name, input] of inputs) values[name] = input.type === "checkbox" ? input.checked : input.value;
      for (const [name, read] of custom) {
        const value = read();
        if (value !== undefined) values[name] = value;
      }
      submit.disabled = true;
      error.hidden = true;
      try {
        close(await onSubmit(values));
      } catch (err) {
        error.textContent = err.message || String(err);
        error.hidden = false;
      } finally {
        submit.disabled = false;
      }
    });
    showModal(dialog);
    (inputs.values().next().value ?? submit).focus();
  });
}

function fieldInput(field) {
  const common = {
    name: field.name,
    required: field.required,
    placeholder: field.placeholder,
    pattern: field.pattern,
    maxlength: field.maxlength,
    min: field.min,
    step: field.step,
  };
  if (field.type === "textarea") {
    const el = h("textarea", { ...common, rows: field.rows ?? 5 });
    el.value = field.value ?? "";
    return el;
  }
  if (field.type === "checkbox") {
    const el = h("input", { name: field.name, type: "checkbox" });
    el.checked = Boolean(field.value);
    return el;
  }
  if (field.type === "select") {
    const el = h("select", common, field.options.map((o) => h("option", { value: o.value }, o.label)));
    el.value = field.value ?? field.options[0]?.value ?? "";
    return el;
  }
  return h("input", { ...common, type: field.type ?? "text", value: field.value ?? "", autocomplete: "off" });
}

/** A yes/no question; resolves true when confirmed. */
export async function confirmDialog(title, description, confirmLabel = "Delete") {
  const result = await formDialog({
    title,
    description,
    fields: [],
    submitLabel: confirmLabel,
    danger: true,
    onSubmit: async () => true,
  });
  return result === true;
}
