// The mode catalogue (apps/web/js/core/modes.js): the server's GET /v1/modes items, kept in
// its order and read by spec, never by name. The modes here are made up on purpose: the
// page must work for whatever modes the server lists.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  defaultMode, latestRerunnable, modeSpec, roomModes, setModes,
} from "../../../apps/web/js/core/modes.js";

function item(name, constraints = {}) {
  return {
    name, label: `${name} (label)`, description: `${name} does things`, hint: null,
    output: "speakers", answer: "each_agent",
    constraints: {
      session: "room", min_agents: 1, needs_mentions: false, uses_manager: false,
      can_pause: true, can_rerun: false, ...constraints,
    },
  };
}

const ITEMS = [
  item("solo", { session: "agent" }),
  item("relay", { can_rerun: true }),
  item("panel", { uses_manager: true }),
  item("chain", { can_rerun: true }),
  item("picked", { needs_mentions: true }),
];

beforeEach(() => setModes(ITEMS));

test("a spec is the item with its constraints flattened, looked up by name", () => {
  const spec = modeSpec("panel");
  assert.equal(spec.name, "panel");
  assert.equal(spec.label, "panel (label)");
  assert.equal(spec.description, "panel does things");
  assert.equal(spec.uses_manager, true);
  assert.equal(spec.session, "room");
  assert.equal(spec.constraints, undefined, "no nested copy");
  assert.equal(modeSpec("picked").needs_mentions, true);
  assert.ok(Object.isFrozen(spec));
});

test("an unknown or empty name has no spec", () => {
  assert.equal(modeSpec("nope"), null);
  assert.equal(modeSpec(""), null);
  assert.equal(modeSpec(undefined), null);
});

test("room modes are the room-session specs, in the server's order", () => {
  assert.deepEqual(roomModes().map((spec) => spec.name), ["relay", "panel", "chain", "picked"]);
});

test("the default mode of a session kind is the first the server lists for it", () => {
  assert.equal(defaultMode("agent"), "solo");
  assert.equal(defaultMode("room"), "relay");
  assert.equal(defaultMode("elsewhere"), "");
});

test("loading again replaces the catalogue", () => {
  setModes([item("only")]);
  assert.equal(modeSpec("panel"), null);
  assert.deepEqual(roomModes().map((spec) => spec.name), ["only"]);
  assert.equal(defaultMode("agent"), "");
});

test("an empty list leaves nothing known", () => {
  setModes([]);
  assert.equal(modeSpec("solo"), null);
  assert.deepEqual(roomModes(), []);
});

test("only the latest turn of each re-runnable mode can be re-run from", () => {
  const turns = [
    { id: 1, mode: "relay" }, { id: 2, mode: "chain" }, { id: 3, mode: "relay" },
    { id: 4, mode: "panel" }, { id: 5, mode: "unknown" }, { id: 6, mode: "" },
  ];
  const latest = latestRerunnable(turns);
  assert.deepEqual([...latest].map((t) => t.id).sort(), [2, 3]);
});

test("no turns, or none re-runnable, leave nothing to re-run", () => {
  assert.equal(latestRerunnable([]).size, 0);
  assert.equal(latestRerunnable([{ mode: "panel" }, { mode: "solo" }]).size, 0);
});
