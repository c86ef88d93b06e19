// The SSE parser and reader (apps/web/js/core/sse.js) over real ReadableStream bodies.

import assert from "node:assert/strict";
import { test } from "node:test";

import { SSEParser, readEvents } from "../../../apps/web/js/core/sse.js";

function collect(chunks) {
  const messages = [];
  const parser = new SSEParser((m) => messages.push(m));
  for (const chunk of chunks) parser.feed(chunk);
  return messages;
}

function body(chunks) {
  const bytes = chunks.map((c) => (typeof c === "string" ? new TextEncoder().encode(c) : c));
  return { body: new ReadableStream({ start(controller) { bytes.forEach((b) => controller.enqueue(b)); controller.close(); } }) };
}

test("messages end at a blank line; data lines join with newlines", () => {
  assert.deepEqual(collect(["id: 7\nevent: turn\ndata: a\ndata:b\n\n"]),
    [{ id: "7", event: "turn", data: "a\nb" }]);
});

test("any line ending works and messages may be split anywhere", () => {
  const stream = "data: one\r\n\r\nid: 2\rdata: two\r\rdata: three\n\n";
  const whole = collect([stream]);
  const byChar = collect([...stream]);
  assert.deepEqual(whole.map((m) => m.data), ["one", "two", "three"]);
  assert.deepEqual(byChar.map((m) => m.data), ["one", "two", "three"]);
});

test("comments, unknown fields and empty messages are ignored; event defaults to message", () => {
  assert.deepEqual(collect([": keep-alive\n\nretry: 10\nfoo: bar\n\ndata\n\n"]),
    [{ id: null, event: "message", data: "" }]);
  assert.deepEqual(collect(["data: unfinished"]), [], "nothing is dispatched before the blank line");
});

test("readEvents parses JSON data, numbers ids and skips what is not JSON", async () => {
  const euro = new TextEncoder().encode('id: 1\ndata: {"type":"token","text":"€"}\n\n');
  const cut = euro.indexOf(0xe2) + 1; // inside the three bytes of "€"
  const seen = [];
  await readEvents(body([euro.slice(0, cut), euro.slice(cut), "data: not json\n\n", 'data: {"type":"done"}\n\n']),
    (event, id) => seen.push([event, id]));
  assert.deepEqual(seen, [[{ type: "token", text: "€" }, 1], [{ type: "done" }, null]]);
});

test("readEvents rejects when the body fails", async () => {
  const failing = { body: new ReadableStream({ pull(controller) { controller.error(new Error("reset")); } }) };
  await assert.rejects(readEvents(failing, () => {}), /reset/);
});
