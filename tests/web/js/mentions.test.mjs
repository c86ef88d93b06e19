// @mentions as text (apps/web/js/text/mentions.js): what is being typed, who matches, and
// the message after picking one.

import assert from "node:assert/strict";
import { test } from "node:test";

import { insertMention, matchAgents, mentionQuery } from "../../../apps/web/js/text/mentions.js";

const ROSTER = [
  { key: "analyst", name: "Ada" },
  { key: "critic", name: "Anton" },
  { key: "scribe", name: "Scribe" },
];

test("the query is the word after an @ that ends at the caret", () => {
  assert.equal(mentionQuery("@", 1), "");
  assert.equal(mentionQuery("hi @an", 6), "an");
  assert.equal(mentionQuery("@an and more", 3), "an", "the caret, not the end, counts");
  assert.equal(mentionQuery("line\n@cr", 8), "cr");
  assert.equal(mentionQuery("@a-b_c9", 7), "a-b_c9");
});

test("no query outside a mention", () => {
  assert.equal(mentionQuery("mail me at a@b", 14), null, "an @ inside a word is an address");
  assert.equal(mentionQuery("@an done", 8), null, "the caret is past the mention");
  assert.equal(mentionQuery("@an.", 4), null);
  assert.equal(mentionQuery("", 0), null);
});

test("agents match by key or name prefix, ignoring case, in roster order", () => {
  assert.deepEqual(matchAgents(ROSTER, "a").map((a) => a.key), ["analyst", "critic"]);
  assert.deepEqual(matchAgents(ROSTER, "CR").map((a) => a.key), ["critic"]);
  assert.deepEqual(matchAgents(ROSTER, "").map((a) => a.key), ["analyst", "critic", "scribe"]);
  assert.deepEqual(matchAgents(ROSTER, "lyst"), [], "a prefix, not a substring");
});

test("inserting replaces the typed mention and puts the caret after a space", () => {
  assert.deepEqual(insertMention("ask @an please", 7, "an", "analyst"),
    { value: "ask @analyst  please", caret: 13 });
  assert.deepEqual(insertMention("@", 1, "", "critic"), { value: "@critic ", caret: 8 });
});
