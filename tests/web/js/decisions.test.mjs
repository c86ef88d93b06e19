// A continuation's message (the server's decision lines) read for a person: no call ids.

import assert from "node:assert/strict";
import { test } from "node:test";

import { parseDecisions, readableDecisions } from "../../../apps/web/js/text/decisions.js";

test("decision lines: verdict, tool, call id and reason", () => {
  const message = "Approved calculator (call_0_01886d)\nRejected refund (call_2): needs a ticket";
  assert.deepEqual(parseDecisions(message), [
    { approve: true, tool: "calculator", callId: "call_0_01886d", reason: "" },
    { approve: false, tool: "refund", callId: "call_2", reason: "needs a ticket" },
  ]);
  assert.equal(readableDecisions(message), "Approved calculator\nRejected refund: needs a ticket");
});

test("a reason over several lines stays with its decision", () => {
  const message = "Rejected refund (c1): no\nnot today\nApproved calculator (c2)";
  assert.equal(parseDecisions(message)[0].reason, "no\nnot today");
  assert.equal(readableDecisions(message), "Rejected refund: no\nnot today\nApproved calculator");
});

test("anything else is left as written", () => {
  for (const text of ["What is 2*3?", "Approved by (me) yesterday", "", "Approved calculator"]) {
    assert.deepEqual(parseDecisions(text), []);
    assert.equal(readableDecisions(text), text);
  }
});
