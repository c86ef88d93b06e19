// TeX math in the Markdown parser (apps/web/js/text/markdown.js): `$...$` and `\(...\)`
// inline, `$$...$$` and `\[...\]` displayed (inline or as a block of lines); prices, code
// spans and code blocks stay as written.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { parseInline, parseMarkdown } from "../../../apps/web/js/text/markdown.js";

const inline = (tex, open = "$", close = "$") =>
  ({ tag: "math", attrs: { display: false, open, close }, children: [tex] });
const shown = (tex, open = "$$", close = "$$") =>
  ({ tag: "math", attrs: { display: true, open, close }, children: [tex] });

describe("inline math", () => {
  test("$...$ and \\(...\\) become math nodes with their source", () => {
    assert.deepEqual(parseInline("Energy $E = mc^2$ here"), ["Energy ", inline("E = mc^2"), " here"]);
    assert.deepEqual(parseInline("area \\(\\pi r^2\\)."), ["area ", inline("\\pi r^2", "\\(", "\\)"), "."]);
    assert.deepEqual(parseInline("$x$"), [inline("x")]);
    assert.deepEqual(parseInline("$a_1$ and $b_1$"), [inline("a_1"), " and ", inline("b_1")]);
  });

  test("$$...$$ and \\[...\\] inside a line are displayed", () => {
    assert.deepEqual(parseInline("so $$\\sum_i x_i$$ holds"), ["so ", shown("\\sum_i x_i"), " holds"]);
    assert.deepEqual(parseInline("\\[a+b\\]"), [shown("a+b", "\\[", "\\]")]);
  });

  test("prices and lone dollars stay text", () => {
    for (const text of [
      "It costs $5 and $10.",
      "between $5,$10 or $20",
      "$ 5 and $",
      "US$5 and US$10",
      "pay $3.50, not $4",
      "a single $ sign",
      "escaped \\$x\\$ dollars",
    ]) {
      assert.deepEqual(parseInline(text), [text], text);
    }
  });

  test("code spans keep their dollars; math keeps its stars and underscores", () => {
    assert.deepEqual(parseInline("`$x$` and $y$"), [{ tag: "code", attrs: {}, children: ["$x$"] }, " and ", inline("y")]);
    assert.deepEqual(parseInline("$a*b*c$"), [inline("a*b*c")]);
    assert.deepEqual(parseInline("$x_1 + y_2$"), [inline("x_1 + y_2")]);
    const code = { tag: "code", attrs: {}, children: ["$x$"] };
    assert.deepEqual(parseInline("It costs $5; `$x$` is code"), ["It costs $5; ", code, " is code"]);
    assert.deepEqual(parseInline("$$5 and `$$x$$`"), ["$$5 and ", { ...code, children: ["$$x$$"] }]);
  });

  test("math inside emphasis", () => {
    const [strong] = parseInline("**where $x$ is**");
    assert.equal(strong.tag, "strong");
    assert.deepEqual(strong.children, ["where ", inline("x"), " is"]);
  });
});

describe("displayed math blocks", () => {
  test("$$ on lines of its own, over several lines", () => {
    assert.deepEqual(parseMarkdown("Before\n\n$$\n\\int_0^1 x\\,dx\n= \\frac12\n$$\n\nAfter"), [
      { tag: "p", attrs: {}, children: ["Before"] },
      shown("\\int_0^1 x\\,dx\n= \\frac12"),
      { tag: "p", attrs: {}, children: ["After"] },
    ]);
  });

  test("\\[ ... \\] and a one-line $$...$$ block", () => {
    assert.deepEqual(parseMarkdown("\\[\na^2+b^2=c^2\n\\]"), [shown("a^2+b^2=c^2", "\\[", "\\]")]);
    assert.deepEqual(parseMarkdown("$$x^2$$"), [shown("x^2")]);
  });

  test("an unclosed $$ is a paragraph, and a blank line ends the search", () => {
    assert.deepEqual(parseMarkdown("$$\nx\n\ny$$"), [
      { tag: "p", attrs: {}, children: ["$$", { tag: "br", attrs: {}, children: [] }, "x"] },
      { tag: "p", attrs: {}, children: ["y$$"] },
    ]);
  });

  test("text after a one-line formula keeps it inline", () => {
    const [p] = parseMarkdown("$$x$$ is the answer");
    assert.equal(p.tag, "p");
    assert.deepEqual(p.children, [shown("x"), " is the answer"]);
  });

  test("fenced code keeps its dollars", () => {
    const [block] = parseMarkdown("```tex\n$$x$$ and $y$\n```");
    assert.deepEqual(block, { tag: "code-block", attrs: { lang: "tex" }, children: ["$$x$$ and $y$"] });
  });
});
