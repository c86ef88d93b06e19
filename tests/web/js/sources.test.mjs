// Sources under an answer (apps/web/js/text/sources.js): the search_knowledge text parsed,
// distinct (file, page) pairs, the cited ones first.

import assert from "node:assert/strict";
import { test } from "node:test";

import { citedSources, parsePassages } from "../../../apps/web/js/text/sources.js";

const RESULT = [
  "[1] manual.pdf, page 2", "Flaps set to fifteen degrees.", "Second line.", "",
  "[2] tower.txt", "Runway 27 closes at dusk.", "",
  "[3] manual.pdf, page 2", "Same page again.",
].join("\n");

test("passages: number, file, page and text", () => {
  assert.deepEqual(parsePassages(RESULT), [
    { n: 1, filename: "manual.pdf", page: 2, text: "Flaps set to fifteen degrees.\nSecond line." },
    { n: 2, filename: "tower.txt", page: null, text: "Runway 27 closes at dusk." },
    { n: 3, filename: "manual.pdf", page: 2, text: "Same page again." },
  ]);
  assert.deepEqual(parsePassages("No passages matched."), []);
  assert.deepEqual(parsePassages(null), []);
});

test("the answer's file names and [n] markers put sources first", () => {
  const byName = citedSources("Per tower.txt the runway closes.", [RESULT]);
  assert.deepEqual(byName.map((s) => [s.filename, s.page, s.cited]),
    [["tower.txt", null, true], ["manual.pdf", 2, false]]);
  const byMarker = citedSources("Flaps at fifteen [3].", [RESULT]);
  assert.deepEqual(byMarker.map((s) => [s.filename, s.cited]), [["manual.pdf", true], ["tower.txt", false]]);
});

test("[n] markers count only when the agent searched once", () => {
  const again = "[1] notes.md\nTide at noon.";
  const sources = citedSources("See [2].", [RESULT, again]);
  assert.deepEqual(sources.map((s) => [s.filename, s.cited]),
    [["manual.pdf", false], ["tower.txt", false], ["notes.md", false]]);
  assert.deepEqual(citedSources("anything", ["nothing found"]), []);
});

test("file names are data, even when they look like markup", () => {
  const hostile = "[1] <img src=x onerror=alert(1)>.pdf, page 1\ntext";
  assert.deepEqual(citedSources("", [hostile]).map((s) => s.filename), ["<img src=x onerror=alert(1)>.pdf"]);
});
