// Pipe tables (apps/web/js/text/md-table.js), alone and inside the Markdown parser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { parseMarkdown } from "../../../apps/web/js/text/markdown.js";
import { isTableStart, splitRow, table } from "../../../apps/web/js/text/md-table.js";

const cellTexts = (tr) => tr.children.map((cell) => cell.children.join(""));

test("rows split on pipes; an escaped pipe is part of the cell", () => {
  assert.deepEqual(splitRow("| a | b \\| c |  d  |"), ["a", "b | c", "d"]);
  assert.deepEqual(splitRow("a|b"), ["a", "b"]);
  assert.deepEqual(splitRow("| ends with escape \\|"), ["ends with escape |"]);
});

test("a table starts only with a matching delimiter row", () => {
  assert.equal(isTableStart(["| a | b |", "|---|:-:|"], 0), true);
  assert.equal(isTableStart(["| a | b |", "|---|"], 0), false, "column count differs");
  assert.equal(isTableStart(["| a | b |", "| x | y |"], 0), false, "not a delimiter");
  assert.equal(isTableStart(["| a | b |"], 0), false, "no second line");
  assert.equal(isTableStart(["no pipes", "---"], 0), false);
});

test("alignment, padding and truncation of body rows", () => {
  const lines = ["| l | c | r | n |", "|:--|:-:|--:|---|", "| 1 | 2 | 3 | 4 | 5 |", "| only |", "", "| x | y |"];
  const out = [];
  const next = table(lines, 0, out, (text) => (text ? [text] : []));
  assert.equal(next, 4, "the table ends at the blank line");
  const [tableNode] = out;
  const [thead, tbody] = tableNode.children;
  assert.deepEqual(thead.children[0].children.map((th) => [th.tag, th.attrs]), [
    ["th", { align: "left" }], ["th", { align: "center" }], ["th", { align: "right" }], ["th", {}],
  ]);
  assert.deepEqual(tbody.children.map(cellTexts), [["1", "2", "3", "4"], ["only", "", "", ""]]);
});

test("cells are parsed inline and stay safe", () => {
  const [tableNode, after] = parseMarkdown("| name | link |\n|---|---|\n| **b** | [x](javascript:y) |\ntext after");
  const row = tableNode.children[1].children[0];
  assert.deepEqual(row.children[0].children, [{ tag: "strong", attrs: {}, children: ["b"] }]);
  assert.deepEqual(row.children[1].children, ["[x](javascript:y)"]);
  assert.equal(tableNode.children[1].children.length, 1, "a line without a pipe ends the table");
  assert.deepEqual(after, { tag: "p", attrs: {}, children: ["text after"] });
});
