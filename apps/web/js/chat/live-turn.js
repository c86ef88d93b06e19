// Drives one live turn: POST it (or resume it), read its SSE events into a TurnView,
// reconnect with Last-Event-ID when the connection drops, Stop, and final figures.
// Every ending says what is true: a turn the server no longer knows was lost (its message
// goes back to the composer); a server that does not answer may still finish it.

import { api, postTurnStream, followTurnStream, ApiError } from "../core/api.js";
import { readEvents } from "../core/sse.js";
import { TurnView } from "./turn-view.js";
import { saveRunning, clearRunning } from "../core/resume-store.js";

const RECONNECT_DELAYS_MS = [250, 1000, 2000, 4000, 8000];
const FIGURE_RETRY_MS = [1000, 2000, 4000, 8000, 16000]; // the figures after a failed first read

export const LOST_NOTICE = "The server no longer knows this turn: it was restarted (or stopped) "
  + "while the turn ran, so nothing of it was saved. Your message is back in the composer; "
  + "send it again when you are ready.";
const UNREACHABLE_NOTICE = "The server stopped answering while this turn ran. When it is back, "
  + "reload the page: a turn that finished will be in the history; a lost one gives you your "
  + "message back.";

export class LiveTurn {
  /**
   * onFinished(live, outcome): outcome is null when the turn ended on the server, or
   * {restore: true, error} when the message did not become a turn (could not start, lost,
   * interrupted): the caller puts it back in the composer.
   */
  constructor({ sessionId, message, mode = "", onFinished, actions = null }) {
    this.sessionId = sessionId;
    this.message = message;
    this.onFinished = onFinished;
    this.turnId = null;
    this.href = location.hash; // where this chat is: other chats link to it while it runs
    this.lastEventId = 0;
    this.done = false;
    this.controller = new AbortController();
    this.view = new TurnView({ message, mode, onStop: () => this.stop(), actions });
  }

  /** Start a new turn. Resolves when it has ended (or could not start). */
  async start(body) {
    await this.open(() => postTurnStream(this.sessionId, body, this.controller.signal));
  }

  /** Start from a request that opens the stream (a turn, or a continuation). */
  async open(request) {
    let response;
    try {
      response = await request();
    } catch (err) {
      if (err.name === "AbortError") return;
      this.view.finish("error");
      this.view.refused(); // no turn exists: nothing to edit or regenerate
      this.view.notice(`Could not start the turn: ${err.message}`, "error");
      this.settle({ restore: true, error: err, refused: true });
      return;
    }
    await this.consume(response);
  }

  /** Resume a turn after a reload: replay it from the first event and rebuild the view. */
  async resume(turnId) {
    this.turnId = turnId;
    this.view.el.dataset.turnId = turnId;
    this.view.notice("Reconnected: replaying this turn…");
    try {
      await this.consume(await followTurnStream(turnId, 0, this.controller.signal));
    } catch (err) {
      if (err.name === "AbortError") return;
      if (err instanceof ApiError && err.status === 404) this.lost();
      else this.unreachable();
    }
  }

  async consume(response) {
    try {
      await readEvents(response, (event, id) => this.onEvent(event, id));
    } catch (err) {
      if (err.name === "AbortError") return;
    }
    if (!this.done) await this.reconnect();
  }

  onEvent(event, id) {
    if (id !== null && id <= this.lastEventId) return; // a replay overlap; already shown
    if (id !== null) this.lastEventId = id;
    if (event.type === "turn_started") {
      this.turnId = event.turn_id;
      this.view.notice("");
    }
    this.view.apply(event);
    if (this.turnId && !this.done) {
      saveRunning({ turnId: this.turnId, sessionId: this.sessionId, message: this.message,
        lastEventId: this.lastEventId, href: this.href });
    }
    if (event.type === "turn_completed") this.end();
    if (event.type === "error") {
      clearRunning(this.sessionId);
      // Interrupted: the server recorded what it had; the user may want to ask again.
      this.settle(event.code === "interrupted" ? { restore: true, error: null } : null);
    }
  }

  async reconnect() {
    for (const delay of RECONNECT_DELAYS_MS) {
      if (this.done || !this.turnId) break;
      this.view.notice("Connection lost; reconnecting…");
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const response = await followTurnStream(this.turnId, this.lastEventId, this.controller.signal);
        this.view.notice("");
        await readEvents(response, (event, id) => this.onEvent(event, id));
      } catch (err) {
        if (err.name === "AbortError") return;
        if (err instanceof ApiError && err.status === 404) {
          this.lost();
          return;
        }
      }
    }
    if (!this.done) this.unreachable();
  }

  /** The server answers 404 for this turn: it is gone for good. */
  lost() {
    clearRunning(this.sessionId);
    this.view.finish("error");
    this.view.setStatus("lost");
    this.view.notice(LOST_NOTICE, "error");
    this.settle({ restore: true, error: null });
  }

  /** No answer at all: the turn may still finish there; the next load finds out. */
  unreachable() {
    this.view.finish("error");
    this.view.setStatus("unknown");
    this.view.notice(UNREACHABLE_NOTICE, "error");
    this.settle(null); // the running state stays stored, so a reload resumes or reports it
  }

  async end() {
    clearRunning(this.sessionId);
    this.view.notice("");
    this.done = true;
    this.settle(null); // the composer is free once the turn is, not after its figures load
    if (this.turnId && (await this.loadFigures())) this.retryFigures();
  }

  /** The stored figures (GET /v1/turns/{id}); true when worth trying again later (the
   * server did not answer or failed, e.g. it was stopping as the turn ended). */
  async loadFigures() {
    try {
      this.view.applyDetail(await api.turn(this.turnId));
      return false;
    } catch (err) {
      return err instanceof ApiError && (err.status === 0 || err.status >= 500);
    }
  }

  /** Figures are a bonus, but they should not go missing because of a restart. */
  async retryFigures() {
    for (const delay of FIGURE_RETRY_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (!this.view.el.isConnected || !(await this.loadFigures())) return;
    }
  }

  settle(outcome) {
    if (this.settled) return;
    this.settled = true;
    this.done = true;
    this.onFinished?.(this, outcome);
  }

  async stop() {
    if (!this.turnId || this.done) return;
    const button = this.view.stopButton;
    button.disabled = true;
    button.textContent = "Stopping…";
    try {
      await api.cancelTurn(this.turnId);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) this.view.notice(`Stop failed: ${err.message}`);
    } finally {
      button.disabled = false;
      button.textContent = "Stop";
    }
  }

  /** Stop listening (navigation away); the turn itself goes on on the server. */
  detach() {
    this.controller.abort();
  }
}
