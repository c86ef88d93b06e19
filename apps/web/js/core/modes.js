// The turn modes as the server declares them (GET /v1/modes, engine/modes/specs.py),
// loaded once at start-up (app.js) and read by every picker and renderer. The page keeps
// no list of its own and does not branch on a mode's name: it asks the mode's spec
// (uses_manager, needs_mentions, can_rerun, session ...). Pure: node's tests import it.

let catalogue = [];
let byName = new Map();

/**
 * Keep the server's modes, in its order (the pickers' order). Each item becomes one flat
 * spec: {name, label, description, hint, output, answer, session, min_agents,
 * needs_mentions, uses_manager, can_pause, can_rerun}.
 */
export function setModes(items) {
  catalogue = items.map(({ constraints, ...copy }) => Object.freeze({ ...copy, ...constraints }));
  byName = new Map(catalogue.map((spec) => [spec.name, spec]));
}

/** The spec of mode `name`, or null for a name the server did not list (or ""). */
export function modeSpec(name) {
  return byName.get(name) ?? null;
}

/** The modes a room can run (its default picker, the per-turn picker, a new room's). */
export function roomModes() {
  return catalogue.filter((spec) => spec.session === "room");
}

/**
 * The first mode the server lists for sessions of this kind ("room" | "agent"): the one an
 * agent's session runs, and the mode a new room starts with.
 */
export function defaultMode(session) {
  return catalogue.find((spec) => spec.session === session)?.name ?? "";
}

/**
 * Of `turns` (oldest first, each with a `mode`), the latest turn of each mode that can
 * re-run from a stage: a `rerun_from` takes over that turn's earlier stages (turns/rerun.py).
 */
export function latestRerunnable(turns) {
  const latest = new Map();
  for (const turn of turns) {
    if (modeSpec(turn.mode)?.can_rerun) latest.set(turn.mode, turn);
  }
  return new Set(latest.values());
}
