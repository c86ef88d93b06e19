// The Markdown parser (apps/web/js/text/markdown.js): untrusted text becomes a tree of a
// few known tags; HTML and unsafe links stay text.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { NODE_TAGS, parseMarkdown, safeHref } from "../../../apps/web/js/text/markdown.js";

const ATTRS = new Set(["href", "start", "checked", "align", "lang"]);

function walk(nodes, visit) {
  for (const n of nodes) {
    visit(n);
    if (typeof n !== "string") walk(n.children, visit);
  }
}

function textOf(nodes) {
  return nodes.map((n) => (typeof n === "string" ? n : textOf(n.children))).join("");
}

function tags(nodes) {
  const seen = new Set();
  walk(nodes, (n) => { if (typeof n !== "string") seen.add(n.tag); });
  return seen;
}

describe("hostile input stays text", () => {
  for (const hostile of [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<b onclick="x()">raw</b> &lt;still&gt; &amp;',
    "<a href=\"javascript:alert(1)\">x</a>",
  ]) {
    test(hostile, () => {
      assert.deepEqual(parseMarkdown(hostile), [{ tag: "p", attrs: {}, children: [hostile] }]);
    });
  }

  test("links that are not absolute http(s) are shown as written", () => {
    const text = "[a](javascript:alert(1)) [b](data:text/html,hi) [c](/relative) [d](vbscript:x)";
    const tree = parseMarkdown(text);
    assert.equal(tags(tree).has("a"), false);
    assert.equal(textOf(tree), text);
  });

  test("a link's href is the URL parser's normalised form", () => {
    const [p] = parseMarkdown("[docs](HTTP://Example.org/a b) [ok](https://example.org/x?q=1)");
    const links = p.children.filter((n) => n.tag === "a");
    assert.deepEqual(links.map((a) => a.attrs.href), ["https://example.org/x?q=1"]);
  });

  test("bare URLs end before closing punctuation", () => {
    const [p] = parseMarkdown("See https://example.net/a. Or (http://example.com/b)!");
    const links = p.children.filter((n) => n.tag === "a");
    assert.deepEqual(links.map((a) => [a.attrs.href, textOf(a.children)]), [
      ["https://example.net/a", "https://example.net/a"],
      ["http://example.com/b", "http://example.com/b"],
    ]);
    assert.equal(textOf([p]), "See https://example.net/a. Or (http://example.com/b)!");
  });

  test("safeHref accepts only absolute http and https", () => {
    assert.equal(safeHref("https://example.org"), "https://example.org/");
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "/x", "//example.org", "ftp://x", "file:///etc/passwd"]) {
      assert.equal(safeHref(bad), null, bad);
    }
  });

  test("deep nesting is capped instead of recursing without end", () => {
    const tree = parseMarkdown(`${">".repeat(5000)} deep ${"*".repeat(2000)}x${"*".repeat(2000)}`);
    let depth = 0;
    let level = tree;
    while (level.length && level[0].tag === "blockquote") { depth += 1; level = level[0].children; }
    assert.equal(depth, 6);
    assert.match(textOf(tree), /deep/);
  });
});

describe("the tree uses only the known tags and attributes", () => {
  const rich = [
    "# Title", "#### Four", "Some *italic*, _also_, **bold**, __bold__, ~~gone~~, `x < y`.",
    "- one", "- [x] done", "- [ ] todo", "  1. nested", "", "5. five", "6. six", "", "> quoted",
    "", "---", "", "```js", "let a = '<b>';", "```", "", "| a | b |", "|:-:|--:|", "| 1 | 2 |",
    "", "line one", "line two",
  ].join("\n");
  const tree = parseMarkdown(rich);

  test("tags", () => {
    const seen = tags(tree);
    for (const tag of seen) assert.ok(NODE_TAGS.includes(tag), tag);
    for (const tag of ["h3", "h6", "em", "strong", "del", "code", "code-block", "ul", "ol", "li",
      "blockquote", "hr", "table", "th", "td", "br", "p"]) {
      assert.ok(seen.has(tag), `expected <${tag}>`);
    }
  });

  test("attributes", () => {
    walk(tree, (n) => {
      if (typeof n === "string") return;
      for (const name of Object.keys(n.attrs)) assert.ok(ATTRS.has(name), `${n.tag}.${name}`);
    });
  });
});

describe("blocks", () => {
  test("headings sit two levels below the page's and stop at h6", () => {
    assert.deepEqual(parseMarkdown("# A\n## B\n#### D\n###### F").map((n) => n.tag), ["h3", "h4", "h6", "h6"]);
  });

  test("a fenced block keeps its text unparsed, with its language", () => {
    assert.deepEqual(parseMarkdown("```py\n**x** <b>\n[a](http://x.org)\n```\nafter"), [
      { tag: "code-block", attrs: { lang: "py" }, children: ["**x** <b>\n[a](http://x.org)"] },
      { tag: "p", attrs: {}, children: ["after"] },
    ]);
    assert.deepEqual(parseMarkdown("~~~\nplain")[0].attrs, { lang: null });
  });

  test("single newlines are line breaks inside one paragraph", () => {
    assert.deepEqual(parseMarkdown("a\nb\n\nc").map((n) => n.children.map((c) => c.tag ?? c)), [
      ["a", "br", "b"], ["c"],
    ]);
  });

  test("task items carry their state; numbered lists their start", () => {
    const [ul, ol] = parseMarkdown("- [x] done\n- [ ] todo\n- plain\n\n3. c\n4. d");
    assert.deepEqual(ul.children.map((li) => [li.attrs, textOf(li.children)]), [
      [{ checked: true }, "done"], [{ checked: false }, "todo"], [{}, "plain"],
    ]);
    assert.deepEqual([ol.tag, ol.attrs, ol.children.length], ["ol", { start: 3 }, 2]);
    assert.deepEqual(parseMarkdown("1. one")[0].attrs, {});
  });

  test("indented items nest under their parent item", () => {
    const [ul] = parseMarkdown("- a\n  - b\n  - c\n- d");
    assert.equal(ul.children.length, 2);
    const nested = ul.children[0].children.find((n) => n.tag === "ul");
    assert.deepEqual(nested.children.map((li) => textOf(li.children)), ["b", "c"]);
  });

  test("emphasis needs word boundaries for underscores", () => {
    const [p] = parseMarkdown("snake_case_name and _this_");
    assert.deepEqual(p.children, ["snake_case_name and ", { tag: "em", attrs: {}, children: ["this"] }]);
  });

  test("inline code is literal", () => {
    const [p] = parseMarkdown("`` a `*b*` ``");
    assert.deepEqual(p.children, [{ tag: "code", attrs: {}, children: ["a `*b*`"] }]);
  });

  test("no text is lost around the markup", () => {
    const text = "Plain *em* **strong** `code` ~~del~~ [l](https://x.org) tail";
    assert.equal(textOf(parseMarkdown(text)), "Plain em strong code del l tail");
  });
});
