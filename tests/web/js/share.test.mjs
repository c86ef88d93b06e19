// A share link's page: the token in its URL, the snapshot read page by page, the words.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  answerState, readSnapshot, sharedNote, snapshotUrl, tokenFromPath,
} from "../../../apps/web/js/share/snapshot.js";

test("the token is the one path segment after /share/", () => {
  assert.equal(tokenFromPath("/share/Ab_c-9"), "Ab_c-9");
  assert.equal(tokenFromPath("/share/Ab_c-9/"), "Ab_c-9");
  for (const path of ["/share/", "/share", "/", "/share/a/b", "/x/share/abc", "/share/a%2Fb", "/share/a.b", null]) {
    assert.equal(tokenFromPath(path), null, path);
  }
  assert.equal(tokenFromPath(`/share/${"a".repeat(101)}`), null);
});

test("the API URL asks for the largest page at an offset", () => {
  assert.equal(snapshotUrl("tok", 0), "/v1/shared/tok?limit=200&offset=0");
  assert.equal(snapshotUrl("tok", 400), "/v1/shared/tok?limit=200&offset=400");
});

test("every page is read until the snapshot's turns are all in", async () => {
  const all = Array.from({ length: 5 }, (_, i) => ({ message: `m${i}`, answers: [] }));
  const asked = [];
  const readPage = async (offset) => {
    asked.push(offset);
    return { title: "T", shared_at: "2026-12-02T10:00:00Z", total: 5, turns: all.slice(offset, offset + 2) };
  };
  const snapshot = await readSnapshot(readPage);
  assert.deepEqual(asked, [0, 2, 4]);
  assert.deepEqual(snapshot.turns.map((t) => t.message), ["m0", "m1", "m2", "m3", "m4"]);
  assert.equal(snapshot.title, "T");
  assert.equal(snapshot.sharedAt, "2026-12-02T10:00:00Z");
});

test("a page that brings nothing ends the reading (no endless loop)", async () => {
  let calls = 0;
  const readPage = async (offset) => {
    calls += 1;
    return { title: "", shared_at: null, total: 9, turns: offset === 0 ? [{ message: "m" }] : [] };
  };
  assert.equal((await readSnapshot(readPage)).turns.length, 1);
  assert.equal(calls, 2);
});

test("an answer's state in words; ok says nothing", () => {
  assert.equal(answerState("ok"), "");
  assert.equal(answerState("failed"), "failed");
  assert.equal(answerState("cancelled"), "stopped");
  assert.equal(answerState("awaiting_approval"), "waiting for approval");
});

test("the note under the title counts turns and says read-only", () => {
  assert.match(sharedNote("2026-12-02T10:00:00Z", 1), /^Shared on .+ · 1 turn · read-only$/);
  assert.equal(sharedNote(null, 3), "Shared · 3 turns · read-only");
});
