// The chat pane: a session's history (a page at a time, see history-log.js), the composer,
// the live turns (live-turn.js; one per session, several sessions may run at once), and
// the per-turn actions: copy, regenerate (the same message again, as a new turn),
// edit-and-resend (a changed message, new turn), fork (a new session with the history up
// to that turn) and fork and resend (a new session whose history stops before that turn).
// A fork is a draft until its first message: the page shows the history it will have and
// makes it on send, so leaving without sending leaves no empty fork behind.

import { h } from "../core/dom.js";
import { Composer } from "./composer.js";
import { loadingNote } from "./history.js";
import { HistoryLog } from "./history-log.js";
import { LiveTurn } from "./live-turn.js";
import { api, postApprovalsStream, postRetryStream } from "../core/api.js";
import { defaultMode, latestRerunnable, modeSpec } from "../core/modes.js";
import { clearRunning } from "../core/resume-store.js";
import { decisionText } from "../text/decisions.js";

export class ChatPane {
  constructor({ onTurnFinished } = {}) {
    this.onTurnFinished = onTurnFinished;
    this.lives = new Map(); // session id -> this tab's latest live turn there
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
    this.composer = new Composer({ onSend: (request) => this.send(request) });
    this.actions = {
      regenerate: (view) => this.send({ message: view.message, mode: this.modeFor(view) }),
      edit: (view) => this.composer.edit(view.message, view.mode),
      rerunFrom: (view, key) => this.send({ message: view.message, mode: this.modeFor(view), rerunFrom: key }),
      retryAgent: (view, key) => this.retryAgent(view, key),
      retrySynthesis: (view) => this.retryTurn(view, []),
      decide: (view, decisions) => this.decide(view, decisions),
      fork: (view) => this.fork(view),
      forkEdit: (view) => this.forkEdit(view),
    };
    this.el = h("section", { class: "chat" }, this.log, this.composer.el);
  }

  /** context: {sessionId|null, room|null, agent|null, ensureSession: async (msg) => id,
   * fork: {sessionId, turnId}|null (a draft fork: its history, shown until it is made),
   * openFork(fork), openSession(id|null), sessionHref(id)} */
  async show(context) {
    this.context = context;
    this.stick = true;
    this.composer.setRoom(context.room ?? null);
    this.updateComposer();
    if (this.pendingRestore && this.pendingRestore.sessionId === context.sessionId) {
      this.composer.restore(this.pendingRestore.message);
    }
    this.pendingRestore = null;
    if (!context.sessionId && !context.fork) {
      this.log.replaceChildren(this.emptyState());
      return;
    }
    this.log.replaceChildren(loadingNote());
    if (context.sessionId) await this.loadHistory(context.sessionId);
    else await this.loadHistory(context.fork.sessionId, context.fork.turnId);
  }

  /** The page is opening another chat: nothing is sent to this one until show() says which. */
  leave() {
    this.context = null;
    this.updateComposer();
  }

  emptyState() {
    const room = this.context.room;
    if (room && room.agents.length === 0) {
      return h("div", { class: "empty" }, h("h3", {}, "This room has no agents yet"),
        h("p", {}, "Open Roster above to add agents, then send a message."));
    }
    const who = room ? "the room" : `@${this.context.agent?.key}`;
    return h("div", { class: "empty" }, h("h3", {}, "New session"),
      h("p", {}, `Send a message to ${who}; the session is saved with it and named after it.`),
      room && modeSpec(room.mode)?.hint ? h("p", {}, modeSpec(room.mode).hint) : null);
  }

  /** The session's history, or with `through` a draft fork's: `sessionId`'s up to that
   * turn, whose turns offer only Fork (the others would act on a session not made yet). */
  async loadHistory(sessionId, through = null) {
    this.history?.stop();
    const context = this.context;
    const current = () => this.context === context && (context.sessionId ?? null) === (through ? null : sessionId);
    const history = new HistoryLog({ sessionId, through, log: this.log,
      actions: through ? { fork: this.actions.fork } : this.actions,
      sessionHref: context.sessionHref, onPage: () => this.updateComposer() });
    this.history = history;
    let views;
    try {
      const replayed = await history.first();
      if (!current()) return;
      // This tab's live turn here: running, or ended without reaching the history (lost).
      const mine = through ? null : this.lives.get(sessionId) ?? null;
      const live = mine && (!mine.done || !history.ids.includes(mine.turnId)) ? mine : null;
      views = replayed.filter((el) => !live || el.dataset.turnId !== live.turnId);
      if (live) views.push(live.view.el);
    } catch (err) {
      if (!current()) return;
      this.log.replaceChildren(h("div", { class: "empty error", role: "alert" },
        h("h3", {}, "Could not load this session"), h("p", {}, err.message),
        h("button", { type: "button", onclick: () => this.show(this.context) }, "Retry")));
      return;
    }
    if (!current()) return; // the user moved on meanwhile
    this.log.replaceChildren(...(views.length ? views : [this.emptyState()]));
    this.log.scrollTop = this.log.scrollHeight;
    history.attach();
    this.updateComposer(); // Edit/Regenerate wait while a turn runs
  }

  /** A failed agent again, in a new turn: a mode that re-runs from a stage does so (the
   * stages before it keep their output); a mode whose answer is a synthesis runs it again
   * then a synthesis that includes it (retryTurn); a room runs just that agent (`agent`);
   * an agent's session has only it, so the message is simply sent again. */
  retryAgent(view, key) {
    if (modeSpec(view.mode)?.can_rerun) return this.actions.rerunFrom(view, key);
    if (this.retriesHere(view)) return this.retryTurn(view, [key]);
    return this.send({ message: view.message, agent: this.context?.room ? key : null });
  }

  /** A turn of this very session (not a fork's parent) whose answer is a synthesis. */
  retriesHere(view) {
    const own = !view.el.dataset.sessionId || view.el.dataset.sessionId === this.context?.sessionId;
    return Boolean(view.turnId && own && modeSpec(view.mode)?.answer === "synthesis");
  }

  /** Run a turn's failed `agents` (none: its synthesis alone) again, then a new synthesis
   * over them and its recorded outputs, streamed below as a new turn (docs/web.md). */
  async retryTurn(view, agents) {
    if (this.busy) return;
    const live = new LiveTurn({ sessionId: this.context?.sessionId, message: view.message,
      mode: view.mode, actions: this.actions,
      onFinished: (done, outcome) => this.finished(done, outcome, null) });
    await this.run(live, (t) => t.open(() => postRetryStream(view.turnId, { agents }, t.controller.signal)));
  }

  /** The mode to send with a regenerated turn: its own, unless that is the room's default. */
  modeFor(view) {
    const room = this.context?.room;
    return room && view.mode && view.mode !== room.mode ? view.mode : "";
  }

  /** The live turn of the open session, if this tab started or resumed one there. */
  get live() {
    return this.lives.get(this.context?.sessionId) ?? null;
  }

  /** A turn of the open session is running: Send and the turn actions wait for it. */
  get busy() {
    return this.isRunning(this.context?.sessionId);
  }

  isRunning(sessionId) {
    const live = this.lives.get(sessionId);
    return Boolean(live && !live.done);
  }

  /** The sessions with a turn running in this tab (the sidebar marks them). */
  runningSessions() {
    return new Set([...this.lives.values()].filter((live) => !live.done).map((live) => live.sessionId));
  }

  updateComposer() {
    const noAgents = this.context?.room && this.context.room.agents.length === 0;
    let hint = "Enter sends · Shift+Enter newline";
    let link = null;
    const elsewhere = [...this.lives.values()].find((live) => !live.done && live.sessionId !== this.context?.sessionId);
    // The server refuses a message while the session's turn waits for a decision (409).
    const waiting = !this.busy && Boolean(this.log.querySelector("article.turn[data-status='awaiting_approval']"));
    if (this.busy) hint = "Agents are answering… (Esc stops)";
    else if (waiting) hint = "The turn above waits for your approval: approve or reject its tool call, then send.";
    else if (noAgents) hint = "Add agents to the roster first.";
    else if (elsewhere) {
      hint = "A turn is running in another chat of this tab; this one can run too.";
      if (elsewhere.href) link = { href: elsewhere.href, text: "Open the running one" };
    }
    this.composer.setBusy(Boolean(this.busy || waiting || noAgents || !this.context), hint, link, waiting);
    for (const button of this.log.querySelectorAll(".msg-actions button:not(.copy), .stage-rerun, .panel-retry, .answer-retry")) {
      button.disabled = this.busy;
    }
    // rerun_from reuses the session's latest turn in that mode: only its stages offer it.
    const staged = [...this.log.querySelectorAll("article.turn")]
      .filter((el) => el.querySelector(".stage-strip"))
      .map((el) => ({ el, mode: el.dataset.mode }));
    const latest = latestRerunnable(staged);
    for (const turn of staged) {
      const offer = latest.has(turn) && turn.el.dataset.status !== "running";
      for (const button of turn.el.querySelectorAll(".stage-rerun")) button.hidden = !offer;
    }
  }

  async send({ message, mode, rerunFrom = null, agent = null }) {
    if (this.busy) return;
    this.composer.setBusy(true, "Sending…");
    let sessionId;
    const fresh = !this.context.sessionId; // the first message makes the session
    try {
      sessionId = await this.context.ensureSession(message);
      if (fresh) this.history?.made();
    } catch (err) {
      this.composer.restore(message);
      this.log.append(h("div", { class: "inline-error", role: "alert" }, err.message));
      this.updateComposer();
      return;
    }
    const body = { message };
    if (this.context.room && mode) body.mode = mode;
    if (rerunFrom) body.rerun_from = rerunFrom;
    if (agent) body.agent = agent;
    const shown = body.mode ?? (agent ? "" : this.context.room?.mode) ?? defaultMode("agent");
    const live = new LiveTurn({ sessionId, message, mode: shown, actions: this.actions,
      onFinished: async (_live, outcome) => {
        // A refused first message leaves no empty session behind (docs/web.md).
        const here = this.context?.sessionId === sessionId;
        if (fresh && outcome?.refused) await this.context?.discardSession?.(sessionId);
        this.finished(_live, outcome, message, here);
      } });
    await this.run(live, (t) => t.start(body));
  }

  /**
   * Send a paused turn's decisions; the continuation turn then streams below it like any
   * turn. Rejects (the card shows why) when the server refuses them.
   */
  async decide(view, decisions) {
    if (this.busy) throw new Error("another turn is running; wait for it to finish");
    const sessionId = this.context?.sessionId;
    const live = new LiveTurn({ sessionId, message: decisionsNote(view, decisions), mode: view.mode,
      actions: this.actions, onFinished: (done, outcome) => this.finished(done, outcome, null) });
    const response = await postApprovalsStream(view.turnId, { decisions }, live.controller.signal);
    this.run(live, (t) => t.consume(response));
  }

  /**
   * Take over a turn that was running before a reload; call before show() so the history
   * leaves that turn out and the rebuilt view takes its place. Replays from event 0.
   */
  resume(state) {
    const live = new LiveTurn({ sessionId: state.sessionId, message: state.message, actions: this.actions,
      onFinished: (done, outcome) => this.finished(done, outcome, state.message) });
    live.turnId = state.turnId;
    if (state.href) live.href = state.href;
    this.lives.set(live.sessionId, live);
    live.resume(state.turnId).catch((err) => {
      clearRunning(state.sessionId);
      live.view.finish("error");
      live.view.notice(`Could not resume the turn: ${err.message}`, "error");
      live.settle(null);
    });
  }

  async run(live, go) {
    this.lives.set(live.sessionId, live);
    if (this.context?.sessionId === live.sessionId) {
      this.log.querySelector(".empty")?.remove();
      this.log.append(live.view.el);
      this.stick = true;
    }
    this.updateComposer();
    this.onLiveChange?.();
    await go(live);
  }

  finished(live, outcome, message, here = live.sessionId === this.context?.sessionId) {
    if (outcome?.restore && here && message) this.composer.restore(message);
    // Resumed on load and lost before the page showed the session: restore it on show().
    else if (outcome?.restore && !this.context) this.pendingRestore = { sessionId: live.sessionId, message };
    this.updateComposer();
    this.onTurnFinished?.(live);
    if (here && !typingElsewhere(this.composer)) this.composer.focus();
  }

  /** A draft fork with the history up to and including `view`'s turn (made on send). */
  async fork(view) {
    const sessionId = view.el.dataset.sessionId || this.context?.sessionId;
    if (!sessionId || !view.turnId) return;
    await this.context?.openFork?.({ sessionId, turnId: view.turnId });
  }

  /**
   * Fork and resend: a new session whose history stops just before `view`'s turn (no
   * session at all before the first turn), opened with the message in the composer; this
   * session stays as it is.
   */
  async forkEdit(view) {
    const sessionId = this.context?.sessionId;
    const { message, mode } = view;
    try {
      const before = await api.history(sessionId, { before: view.turnId, limit: 1 });
      const previous = before.items[0];
      if (previous) await this.context?.openFork?.({ sessionId: previous.session_id, turnId: previous.id });
      else await this.context?.openSession?.(null);
    } catch (err) {
      view.notice(`Could not fork here: ${err.message}`, "error");
      return;
    }
    this.composer.edit(message, mode);
  }

  /** Esc: stop the running turn of this tab, if any. */
  stopLive() {
    if (this.busy) this.live.stop();
    return this.busy;
  }
}

/** What the continuation shows as its message (the server stores these lines with call ids). */
function decisionsNote(view, decisions) {
  const names = new Map([...(view.approvals?.rows.keys() ?? [])].map((id) => [id,
    view.approvals.rows.get(id).el.dataset.tool]));
  return decisions.map((d) => decisionText({ approve: d.approve, tool: names.get(d.call_id) ?? "call",
    reason: d.reason })).join("\n");
}

/** True while the person types in a field outside the composer (an approval's reason, a
 * search box): a turn that ends then must not pull the focus, and their keys, away. */
function typingElsewhere(composer) {
  const active = document.activeElement;
  if (!active || composer.el.contains(active)) return false;
  return active.matches("textarea, select, [contenteditable='true'], input:not([type=checkbox], [type=radio], [type=button], [type=submit])");
}
