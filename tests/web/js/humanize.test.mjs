// Error texts for a person (apps/web/js/text/humanize.js) and the API error that uses them
// (apps/web/js/core/api.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, formatDetail } from "../../../apps/web/js/core/api.js";
import {
  describeError, describeFailure, setErrorCodes, tidy,
} from "../../../apps/web/js/text/humanize.js";

const ID = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";

test("tidy drops ids, environment names and route hints, and starts with a capital", () => {
  assert.equal(tidy(`room ${ID} has no agents; add one with POST /v1/rooms/{id}/agents`), "Room has no agents");
  assert.equal(tidy("model is not configured (PANTHEON_DEFAULT_MODEL)"), "Model is not configured");
  assert.equal(tidy(`session (${ID}) was  deleted`), "Session was deleted");
  assert.equal(tidy(null), "");
  assert.equal(tidy("   "), "");
});

// What GET /v1/error-codes serves (pantheon/error_codes.py), as the page receives it.
const CATALOGUE = [
  { code: "rate_limited", sentence: "The model provider is limiting requests. Wait a minute and try again." },
  { code: "interrupted", sentence: "The server stopped while this turn was running, so it did not finish." },
];

test("before the server's catalogue arrives, a failure reads as its event's own text", () => {
  setErrorCodes([]);
  assert.equal(describeFailure("rate_limited", "The model provider is rate limiting requests; try again later."),
    "The model provider is rate limiting requests; try again later.");
  assert.equal(describeFailure("interrupted", "the server stopped", "turn"), "The turn could not run: The server stopped");
});

test("agent failures read as the server's sentences; unknown codes fall back to the tidied text", () => {
  setErrorCodes(CATALOGUE);
  assert.equal(describeFailure("rate_limited"), "The model provider is limiting requests. Wait a minute and try again.");
  assert.equal(describeFailure("interrupted", "ignored", "turn"), "The server stopped while this turn was running, so it did not finish.");
  assert.equal(describeFailure("weird", "upstream said no (OPENAI_API_KEY)"), "Upstream said no");
  assert.equal(describeFailure("weird"), "This agent failed.");
  assert.equal(describeFailure("weird", "boom", "turn"), "The turn could not run: Boom");
  assert.equal(describeFailure("weird", "", "turn"), "The turn could not run.");
  setErrorCodes([{ code: "weird", sentence: "A made-up code the server now knows." }]);
  assert.equal(describeFailure("weird", "ignored"), "A made-up code the server now knows.");
  assert.equal(describeFailure("rate_limited", "The event's text"), "The event's text");
});

test("statuses the page knows get their own sentence", () => {
  assert.match(describeError({ status: 0, message: "Failed to fetch" }), /^Pantheon is not answering/);
  assert.equal(describeError({ status: 404, message: `room ${ID} not found` }),
    "This room no longer exists; it may have been deleted.");
  assert.equal(describeError({ status: 404, message: "turn not found" }), "This turn is not on the server (any more).");
  assert.equal(describeError({ status: 404, message: "no such route" }), "No such route");
  assert.match(describeError({ status: 409, message: "session already has a running turn" }), /^A turn is already running/);
  assert.equal(describeError({ status: 429, message: "slow down" }), "Too many requests in a short time. Wait a moment and try again.");
  assert.equal(describeError({ status: 503, message: "draining" }), "The server is busy or restarting. Try again in a moment.");
});

test("a spending limit names the limit", () => {
  assert.equal(describeError({ status: 402, message: "the daily limit of $1.00 in room is spent; resets 00:00 UTC" }),
    "Spending limit reached. The daily limit of $1.00 for this room is spent; resets 00:00 UTC.");
});

test("known refusals are explained", () => {
  assert.equal(describeError({ status: 422, message: `room ${ID} has no agents` }),
    "This room has no agents yet: open Roster to add one.");
  assert.equal(describeError({ status: 409, message: "room already has 12 agents; the roster limit is 12" }),
    "This room is full: a room holds at most 12 agents.");
  assert.equal(describeError({ status: 422, message: "tools: unknown tool 'sh'; built-in tools: calculator, clock" }),
    "This server has no tool called “sh”. Untick it and pick from the list. The built-in tools are: calculator, clock.");
  assert.match(describeError({ status: 422, message: "unknown MCP server 'files'" }), /^No tool server called “files”/);
  assert.equal(describeError({ status: 409, message: "agent 'critic' is already in room" }), "@critic is already in this room.");
  assert.equal(describeError(null), "Something went wrong.");
  assert.equal(describeError(new Error("  ")), "Something went wrong.");
});

test("an ApiError carries the sentence as its message and the server's detail as sent", () => {
  const detail = [{ loc: ["body", "name"], msg: "field required" }, { loc: [], msg: "bad" }];
  assert.equal(formatDetail(detail), "name: field required; bad");
  assert.equal(formatDetail({ a: 1 }), '{"a":1}');
  assert.equal(formatDetail(null), "");
  const err = new ApiError(404, `agent ${ID} not found`, "not_found");
  assert.equal(err.message, "This agent no longer exists; it may have been deleted.");
  assert.deepEqual([err.status, err.detail, err.code], [404, `agent ${ID} not found`, "not_found"]);
  assert.equal(new ApiError(500, "").message, "HTTP 500");
});
