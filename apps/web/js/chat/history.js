// A session's finished turns, rebuilt from their recorded events (GET /v1/turns/{id}/events
// replays a finished turn) through the same renderers as a live turn, then given the
// stored figures (GET /v1/turns/{id}). A reopened session looks exactly as it streamed.

import { api, followTurnStream } from "../core/api.js";
import { h } from "../core/dom.js";
import { readEvents } from "../core/sse.js";
import { TurnView } from "./turn-view.js";

const PARALLEL = 4; // requests in flight while loading a long history

/** One stored turn as a TurnView; `actions` as for TurnView. */
export async function replayTurn(turn, { signal, actions } = {}) {
  const view = new TurnView({ message: turn.message, mode: turn.mode, actions });
  view.el.dataset.turnId = turn.id;
  const [events, detail] = await Promise.allSettled([
    followTurnStream(turn.id, 0, signal).then((response) =>
      readEvents(response, (event) => view.apply(event))),
    api.turn(turn.id),
  ]);
  if (events.status === "rejected") {
    if (events.reason?.name === "AbortError") throw events.reason;
    view.finish(turn.status);
    view.notice(`This turn's details could not be loaded: ${events.reason.message}`, "error");
  } else if (!view.finished) {
    view.finish(turn.status); // a log without its last event (an interrupted turn)
  }
  if (detail.status === "fulfilled") view.applyDetail(detail.value);
  return view;
}

/** Every turn of `turns` (oldest first) as views, in order, at most PARALLEL loads at once. */
export async function replayTurns(turns, options = {}) {
  const views = new Array(turns.length);
  let next = 0;
  async function worker() {
    while (next < turns.length) {
      const index = next++;
      views[index] = await replayTurn(turns[index], options);
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, turns.length) }, worker));
  return views;
}

/** A placeholder while a long history loads. */
export function loadingNote() {
  return h("p", { class: "loading", role: "status" }, "Loading the conversation…");
}
