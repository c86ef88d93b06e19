// The chat pane: a session's history, the composer (Enter sends, Shift+Enter newline),
// the per-turn mode override, and the live turn (see live-turn.js).

import { api } from "./api.js";
import { h } from "./dom.js";
import { LiveTurn } from "./live-turn.js";
import { turnFromRecord } from "./turn-view.js";
import { clearRunning } from "./resume-store.js";

const MODES = ["manual", "roundtable", "orchestrator"];

export class ChatPane {
  /** ensureSession(message) returns a session id, creating one when none is open. */
  constructor({ onTurnFinished } = {}) {
    this.onTurnFinished = onTurnFinished;
    this.live = null;
    this.context = null;
    this.stick = true;
    this.log = h("div", { class: "chat-log", tabindex: "0", "aria-label": "Conversation" });
    this.log.addEventListener("scroll", () => {
      const { scrollTop, clientHeight, scrollHeight } = this.log;
      this.stick = scrollTop + clientHeight >= scrollHeight - 80;
    });
    new MutationObserver(() => {
      if (this.stick) this.log.scrollTop = this.log.scrollHeight;
    }).observe(this.log, { childList: true, subtree: true, characterData: true });
    this.input = h("textarea", {
      class: "composer-input",
      rows: 2,
      "aria-label": "Message",
      placeholder: "Write a message. Enter sends, Shift+Enter adds a line.",
      onkeydown: (event) => this.onKey(event),
    });
    this.modeSelect = h("select", { class: "mode-select", "aria-label": "Mode for this turn" });
    this.modeLabel = h("label", { class: "inline-field" }, h("span", {}, "Mode"), this.modeSelect);
    this.sendButton = h("button", { type: "submit", class: "primary" }, "Send");
    this.hint = h("span", { class: "composer-hint" });
    this.form = h("form", { class: "composer", onsubmit: (event) => this.onSubmit(event) },
      this.input, h("div", { class: "composer-bar" }, this.modeLabel, this.hint, this.sendButton));
    this.el = h("section", { class: "chat" }, this.log, this.form);
  }

  /** context: {sessionId|null, room|null, agent|null, ensureSession: async (msg) => id} */
  async show(context) {
    this.context = context;
    this.stick = true;
    const room = context.room;
    this.modeLabel.hidden = !room;
    if (room) {
      this.modeSelect.replaceChildren(
        h("option", { value: "" }, `room default (${room.mode})`),
        ...MODES.map((m) => h("option", { value: m }, m)),
      );
    }
    this.updateComposer();
    if (!context.sessionId) {
      this.log.replaceChildren(this.emptyState());
      return;
    }
    this.log.replaceChildren(h("p", { class: "loading" }, "Loading the conversation…"));
    await this.loadHistory(context.sessionId);
  }

  emptyState() {
    const room = this.context.room;
    if (room && room.agents.length === 0) {
      return h("div", { class: "empty" }, h("h3", {}, "This room has no agents yet"),
        h("p", {}, "Open Roster above to add agents, then send a message."));
    }
    const who = room ? "the room" : `@${this.context.agent?.key}`;
    return h("div", { class: "empty" }, h("h3", {}, "No messages yet"),
      h("p", {}, `Send a message to ${who}; a new session starts with it.`),
      room?.mode === "orchestrator"
        ? h("p", {}, "In orchestrator mode the manager routes it to specialists round by round.")
        : null,
      room?.mode === "manual" ? h("p", {}, "In manual mode, mention agents by key: @key.") : null);
  }

  async loadHistory(sessionId) {
    let turns;
    let messages;
    try {
      [turns, messages] = await Promise.all([api.sessionTurns(sessionId), api.messages(sessionId)]);
    } catch (err) {
      if (this.context?.sessionId !== sessionId) return;
      this.log.replaceChildren(h("div", { class: "empty error", role: "alert" },
        h("h3", {}, "Could not load this session"), h("p", {}, err.message),
        h("button", { type: "button", onclick: () => this.show(this.context) }, "Retry")));
      return;
    }
    if (this.context?.sessionId !== sessionId) return; // the user moved on meanwhile
    const byTurn = new Map();
    for (const m of messages) byTurn.set(m.turn_id, [...(byTurn.get(m.turn_id) ?? []), m]);
    const live = this.live && this.live.sessionId === sessionId ? this.live : null;
    const views = turns
      .filter((turn) => !live || turn.id !== live.turnId)
      .map((turn) => turnFromRecord(turn, byTurn.get(turn.id) ?? []).el);
    if (live) views.push(live.view.el);
    this.log.replaceChildren(...(views.length ? views : [this.emptyState()]));
    this.log.scrollTop = this.log.scrollHeight;
  }

  updateComposer() {
    const busy = this.live && !this.live.done;
    const noAgents = this.context?.room && this.context.room.agents.length === 0;
    this.sendButton.disabled = Boolean(busy || noAgents || !this.context);
    if (busy && this.live.sessionId !== this.context?.sessionId) {
      this.hint.textContent = "A turn is running in another session.";
    } else if (busy) this.hint.textContent = "Agents are answering…";
    else this.hint.textContent = "Enter sends · Shift+Enter newline";
  }

  onKey(event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.form.requestSubmit();
    }
  }

  async onSubmit(event) {
    event.preventDefault();
    const message = this.input.value.trim();
    if (!message || this.sendButton.disabled) return;
    this.sendButton.disabled = true;
    let sessionId;
    try {
      sessionId = await this.context.ensureSession(message);
    } catch (err) {
      this.showError(err);
      this.updateComposer();
      return;
    }
    this.input.value = "";
    const body = { message };
    if (this.context.room && this.modeSelect.value) body.mode = this.modeSelect.value;
    const onFinished = (_turn, err) => {
      if (err && !this.input.value) this.input.value = message; // not sent: let the user fix it
      this.finished();
    };
    const mode = body.mode ?? this.context.room?.mode ?? "standalone";
    await this.run(new LiveTurn({ sessionId, message, mode, onFinished }), (t) => t.start(body));
  }

  /**
   * Take over a turn that was running before a reload; call before show() so the history
   * leaves that turn out and the rebuilt view takes its place. Replays from event 0.
   */
  resume(state) {
    const live = new LiveTurn({ sessionId: state.sessionId, message: state.message,
      onFinished: () => this.finished() });
    live.turnId = state.turnId;
    this.live = live;
    live.resume(state.turnId).catch((err) => {
      clearRunning();
      live.view.finish("error");
      live.view.notice(`Could not resume the turn: ${err.message}`, "error");
      live.done = true;
      this.finished();
    });
  }

  async run(live, go) {
    this.live = live;
    this.log.querySelector(".empty")?.remove();
    this.log.append(live.view.el);
    this.stick = true;
    this.updateComposer();
    await go(live);
  }

  finished() {
    this.updateComposer();
    this.onTurnFinished?.(this.live);
    if (this.live?.sessionId === this.context?.sessionId) this.input.focus();
  }

  showError(err) {
    this.log.append(h("div", { class: "inline-error", role: "alert" }, err.message));
  }
}
