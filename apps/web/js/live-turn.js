// Drives one live turn: POST it (or resume it), read its SSE events into a TurnView,
// reconnect with Last-Event-ID when the connection drops, Stop, and final figures.

import { api, postTurnStream, followTurnStream, ApiError } from "./api.js";
import { readEvents } from "./sse.js";
import { TurnView } from "./turn-view.js";
import { saveRunning, clearRunning } from "./resume-store.js";

const RECONNECT_DELAYS_MS = [250, 1000, 2000, 4000, 8000];

export class LiveTurn {
  constructor({ sessionId, message, mode = "", onFinished }) {
    this.sessionId = sessionId;
    this.message = message;
    this.onFinished = onFinished;
    this.turnId = null;
    this.lastEventId = 0;
    this.done = false;
    this.controller = new AbortController();
    this.view = new TurnView({ message, mode, onStop: () => this.stop() });
  }

  /** Start a new turn. Resolves when it has ended (or could not start). */
  async start(body) {
    let response;
    try {
      response = await postTurnStream(this.sessionId, body, this.controller.signal);
    } catch (err) {
      this.view.finish("error");
      this.view.notice(`Could not start the turn: ${err.message}`, "error");
      this.done = true;
      this.onFinished?.(this, err);
      return;
    }
    await this.consume(response);
  }

  /** Resume a turn after a reload: replay it from the first event and rebuild the view. */
  async resume(turnId) {
    this.turnId = turnId;
    this.view.notice("Reconnected: replaying this turn…");
    await this.follow(0);
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
      saveRunning({
        turnId: this.turnId,
        sessionId: this.sessionId,
        message: this.message,
        lastEventId: this.lastEventId,
      });
    }
    if (event.type === "turn_completed" || event.type === "error") this.end();
  }

  async follow(after) {
    const response = await followTurnStream(this.turnId, after, this.controller.signal);
    await this.consume(response);
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
        if (err instanceof ApiError && err.status === 404) break;
      }
    }
    if (!this.done) {
      this.view.finish("error");
      this.view.notice("Lost the connection to this turn. It keeps running on the server: reload to see it.", "error");
      clearRunning();
      this.done = true;
      this.onFinished?.(this, null);
    }
  }

  async end() {
    this.done = true;
    clearRunning();
    this.view.notice("");
    if (this.turnId) {
      try {
        this.view.applyDetail(await api.turn(this.turnId));
      } catch {
        // figures are a bonus; the turn itself is shown
      }
    }
    this.onFinished?.(this, null);
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
