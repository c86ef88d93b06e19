// The message box: Enter sends, Shift+Enter adds a line, the per-message mode for rooms,
// an "editing" banner for edit-and-resend, @mention suggestions, and a live count against
// the server's message limit (GET /v1/defaults): an over-long message is not sent.

import { h } from "../core/dom.js";
import { attachMentions } from "./mention-list.js";
import { defaultMode, modeSpec, roomModes } from "../core/modes.js";
import { serverDefaults } from "../core/defaults.js";

const NUMBER = new Intl.NumberFormat("en");
const NEAR = 0.9; // the count turns to a warning from this share of the limit

export class Composer {
  /** onSend({message, mode}) -> Promise; mode is "" for the room's default. */
  constructor({ onSend }) {
    this.onSend = onSend;
    this.roster = [];
    this.input = h("textarea", {
      class: "composer-input", rows: 2, "aria-label": "Message", "aria-keyshortcuts": "Shift+Escape",
      placeholder: "Write a message. Enter sends, Shift+Enter adds a line.",
      onkeydown: (event) => this.onKey(event),
      oninput: () => this.fit(),
      "aria-describedby": "composer-count",
    });
    this.mentions = attachMentions(this.input,
      () => (modeSpec(this.effectiveMode)?.needs_mentions ? this.roster : []));
    this.modeSelect = h("select", { class: "mode-select", "aria-label": "Mode for this turn only",
      "aria-describedby": "mode-note" });
    this.modeNote = h("span", { id: "mode-note", class: "mode-note" }, "the room's default stays");
    this.modeField = h("label", { class: "inline-field turn-mode" }, this.modeSelect, this.modeNote);
    this.sendButton = h("button", { type: "submit", class: "primary" }, "Send");
    this.hint = h("span", { class: "composer-hint" });
    this.count = h("span", { id: "composer-count", class: "composer-count", "aria-live": "polite" });
    this.tooLong = h("p", { class: "composer-too-long", role: "alert", hidden: true });
    this.editNote = h("div", { class: "edit-note", role: "status", hidden: true },
      h("span", {}, "Editing a sent message: Send posts it as a new turn; the original stays above."),
      h("button", { type: "button", class: "ghost small", onclick: () => this.cancelEdit() }, "Cancel edit"));
    this.el = h("form", { class: "composer", onsubmit: (event) => this.submit(event) },
      this.editNote, this.mentions.list, this.input, this.tooLong,
      h("div", { class: "composer-bar" }, this.modeField, this.hint, this.count, this.sendButton));
  }

  /** room: the room (its mode and roster) or null on an agent's page. */
  setRoom(room) {
    this.roster = room ? [...room.agents].sort((a, b) => a.position - b.position) : [];
    this.modeField.hidden = !room;
    if (!room) return;
    const keep = this.modeSelect.value;
    const modes = roomModes();
    this.modeSelect.replaceChildren(
      h("option", { value: "" }, `This turn: room default (${room.mode})`),
      ...modes.map((spec) => h("option", { value: spec.name }, `This turn: ${spec.label}`)),
    );
    this.modeSelect.value = modes.some((spec) => spec.name === keep) ? keep : "";
    this.roomMode = room.mode;
  }

  /** The mode the next message will use (for @mention suggestions and the hint). */
  get effectiveMode() {
    return this.modeSelect.value || this.roomMode || defaultMode("agent");
  }

  /** link: {href, text} after the hint (e.g. the chat whose turn is running), or null;
   * important: the hint says why Send is off, so a phone shows it too. */
  setBusy(busy, hint, link = null, important = false) {
    this.busy = busy;
    this.hint.dataset.important = String(important);
    this.sendButton.disabled = busy || this.over(this.input.value.trim());
    this.hint.replaceChildren(hint,
      ...(link ? [" ", h("a", { class: "composer-hint-link", href: link.href }, link.text)] : []));
  }

  onKey(event) {
    if (this.mentions.onKey(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.el.requestSubmit();
    }
  }

  async submit(event) {
    event.preventDefault();
    const message = this.input.value.trim();
    if (!message || this.busy) return;
    if (this.over(message)) { // refused here: the server would refuse it too
      this.tooLong.hidden = false;
      this.input.focus();
      return;
    }
    const mode = this.modeField.hidden ? "" : this.modeSelect.value;
    this.input.value = "";
    this.fit();
    this.cancelEdit();
    await this.onSend({ message, mode });
  }

  /** Edit-and-resend: the old message, ready to change; the turn it came from stays. */
  edit(message, mode) {
    this.input.value = message;
    if (!this.modeField.hidden && mode) this.modeSelect.value = mode === this.roomMode ? "" : mode;
    this.editNote.hidden = false;
    this.focus();
  }

  cancelEdit() {
    this.editNote.hidden = true;
  }

  /** Put a message that did not become a turn back, unless the user typed something new. */
  restore(message) {
    if (!this.input.value.trim()) this.input.value = message;
  }

  /** The box grows with its text (up to a cap in CSS, then it scrolls) and shrinks back;
   * the count follows. */
  fit() {
    this.input.style.height = "auto";
    this.input.style.height = `${this.input.scrollHeight + 2}px`;
    this.updateCount();
  }

  /** Characters as the server counts them (code points of the trimmed text). */
  length(text = this.input.value.trim()) {
    return Array.from(text).length;
  }

  over(text) {
    const limit = serverDefaults().max_message_chars;
    return Boolean(limit) && this.length(text) > limit;
  }

  /** "1,234 / 32,000" under the box: a warning near the limit, an error above it, when
   * Send is refused with a sentence saying by how much. */
  updateCount() {
    const limit = serverDefaults().max_message_chars;
    const n = this.length();
    this.count.hidden = !limit || n === 0;
    if (!limit) return;
    const state = n > limit ? "over" : n >= limit * NEAR ? "near" : "ok";
    this.count.textContent = `${NUMBER.format(n)} / ${NUMBER.format(limit)}`;
    this.count.dataset.state = state;
    this.count.title = `${NUMBER.format(n)} of the ${NUMBER.format(limit)} characters a message may have`;
    this.input.setAttribute("aria-invalid", String(state === "over"));
    const extra = n - limit;
    this.tooLong.textContent = `This message is ${NUMBER.format(extra)} character${extra === 1 ? "" : "s"} `
      + `over the server's limit of ${NUMBER.format(limit)}. Shorten it to send it.`;
    this.tooLong.hidden = state !== "over";
    this.sendButton.disabled = Boolean(this.busy) || state === "over";
  }

  focus() {
    this.fit(); // text may have been put in (edit, restore) or taken out (sent)
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
  }
}
