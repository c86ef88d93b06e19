// A small Markdown parser for untrusted agent output, with no DOM: text in, a plain tree
// out. Nodes are strings (text) or {tag, attrs, children}; the tags are the few in
// NODE_TAGS and nothing is taken from the text but text, a fence's language name and an
// http(s) link href that URL() parsed. Raw HTML in the input stays text. markdown-dom.js
// turns the tree into elements; keeping this part pure lets node's test runner check it.
//
// Supported: paragraphs (single newlines kept as line breaks), fenced code blocks (a
// "code-block" node: language and text), headings, block quotes, bullet and numbered lists
// (nested by indentation), task lists (- [ ] / - [x]), pipe tables, rules, inline code,
// **bold**, *italic* / _italic_, ~~strikethrough~~, [links](https://...) and bare http(s)
// URLs, and TeX math (a "math" node: its source, display or inline, and the delimiters it
// came in; markdown-dom.js renders it with KaTeX): `$...$` and `\(...\)` inline, `$$...$$`
// and `\[...\]` displayed, also as a block of lines. Inline `$` follows pandoc: a non-space
// right after the opening `$`, a non-space right before the closing one and no digit
// right after it, so prices ("$5 and $10") stay text. Code spans and blocks stay code
// (`$` math holds no backtick, so a code span after a price is not taken for its end).

import { isTableStart, table } from "./md-table.js";

/** Every tag the parser can produce; markdown-dom.js builds exactly these. */
export const NODE_TAGS = Object.freeze([
  "p", "br", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "code-block", "ul", "ol",
  "li", "blockquote", "hr", "a", "table", "thead", "tbody", "tr", "th", "td", "math",
]);

/** A tree node: `attrs` holds only values the parser computed, never raw text. */
export function node(tag, attrs = {}, children = []) {
  return { tag, attrs, children };
}

const MAX_DEPTH = 6;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TASK = /^\[([ xX])\]\s+/;
// A displayed formula's first line: `$$` or `\[` and what follows on that line.
const MATH_OPEN = /^ {0,3}(\$\$|\\\[)(.*)$/;
const MATH_CLOSE = { "$$": "$$", "\\[": "\\]" };

/** Parse `text` into a list of block nodes. */
export function parseMarkdown(text) {
  const blocks = [];
  const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
  parseBlocks(lines, blocks, 0);
  return blocks;
}

function isBlockStart(line, lines = null, i = 0) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line)
    || ITEM.test(line) || (lines !== null && isTableStart(lines, i));
}

function parseBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") { i += 1; continue; }
    const fence = FENCE.exec(line);
    if (fence) { i = codeBlock(lines, i, fence, parent); continue; }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1].length + 2); // agent headings sit below the page's
      parent.push(node(`h${level}`, {}, parseInline(heading[2])));
      i += 1;
      continue;
    }
    if (RULE.test(line)) { parent.push(node("hr")); i += 1; continue; }
    const math = MATH_OPEN.exec(line);
    const end = math ? mathBlock(lines, i, math, parent) : null;
    if (end !== null) { i = end; continue; }
    if (isTableStart(lines, i)) { i = table(lines, i, parent, parseInline); continue; }
    if (depth < MAX_DEPTH && QUOTE.test(line)) { i = quote(lines, i, parent, depth); continue; }
    if (depth < MAX_DEPTH && ITEM.test(line)) { i = list(lines, i, parent, depth); continue; }
    i = paragraph(lines, i, parent);
  }
}

function codeBlock(lines, start, fence, parent) {
  const marker = fence[1];
  const body = [];
  let i = start + 1;
  while (i < lines.length) {
    const close = lines[i].trim();
    if (close.startsWith(marker[0].repeat(marker.length)) && /^([`~])\1*$/.test(close)) {
      i += 1;
      break;
    }
    body.push(lines[i]);
    i += 1;
  }
  const lang = fence[2] || null;
  parent.push(node("code-block", { lang }, [body.join("\n")]));
  return i;
}

/** A formula displayed on lines of its own, from `$$`/`\[` to the closing `$$`/`\]` (at
 * the end of a line, no blank line between); null when there is none: then the lines are
 * a paragraph. */
function mathBlock(lines, start, open, parent) {
  const close = MATH_CLOSE[open[1]];
  const body = [open[2]];
  for (let i = start; i < lines.length; i += 1) {
    if (i > start) {
      if (lines[i].trim() === "") return null;
      body.push(lines[i]);
    }
    const last = body[body.length - 1].trimEnd();
    const at = last.length - close.length;
    const found = last.indexOf(close);
    if (found >= 0 && found !== at) return null; // text after the formula: inline math
    if (found >= 0 && (i > start || at > 0) && last[at - 1] !== "\\") {
      body[body.length - 1] = last.slice(0, at);
      const tex = body.join("\n").trim();
      if (tex === "" || (close === "$$" && tex.includes("$$"))) return null;
      parent.push(mathNode(tex, true, open[1], close));
      return i + 1;
    }
  }
  return null;
}

function mathNode(tex, display, open, close) {
  return node("math", { display, open, close }, [tex]);
}

function quote(lines, start, parent, depth) {
  const body = [];
  let i = start;
  while (i < lines.length && QUOTE.test(lines[i])) {
    body.push(lines[i].replace(QUOTE, ""));
    i += 1;
  }
  const children = [];
  parseBlocks(body, children, depth + 1);
  parent.push(node("blockquote", {}, children));
  return i;
}

function list(lines, start, parent, depth) {
  const first = ITEM.exec(lines[start]);
  const ordered = /\d/.test(first[2]);
  const number = parseInt(first[2], 10);
  const listEl = node(ordered ? "ol" : "ul", ordered && number !== 1 ? { start: number } : {});
  const indent = first[1].length;
  let i = start;
  while (i < lines.length) {
    const item = ITEM.exec(lines[i]);
    if (!item || item[1].length !== indent || /\d/.test(item[2]) !== ordered) break;
    const contentIndent = item[1].length + item[2].length + 1;
    const body = [item[3]];
    i += 1;
    // Continuation: indented lines (nested lists, wrapped text) until a blank + dedent.
    while (i < lines.length) {
      const next = lines[i];
      const nextItem = ITEM.exec(next);
      if (next.trim() === "") {
        if (i + 1 < lines.length && /^\s{2,}\S/.test(lines[i + 1])) { body.push(""); i += 1; continue; }
        break;
      }
      if (nextItem && nextItem[1].length <= indent) break;
      if (!/^\s/.test(next) && isBlockStart(next)) break;
      body.push(next.slice(Math.min(contentIndent, next.length - next.trimStart().length)));
      i += 1;
    }
    const task = ordered ? null : TASK.exec(body[0]);
    if (task) body[0] = body[0].slice(task[0].length);
    const li = node("li", task ? { checked: task[1] !== " " } : {});
    parseBlocks(body, li.children, depth + 1);
    // A tight item holds its text directly, not in a paragraph.
    if (li.children.length === 1 && li.children[0].tag === "p") li.children = li.children[0].children;
    listEl.children.push(li);
    if (i < lines.length && lines[i].trim() === "") {
      const after = lines.slice(i).find((l) => l.trim() !== "");
      const again = after && ITEM.exec(after);
      if (!again || again[1].length !== indent) break;
      while (lines[i].trim() === "") i += 1;
    }
  }
  parent.push(listEl);
  return i;
}

function paragraph(lines, start, parent) {
  const body = [];
  let i = start;
  while (i < lines.length && lines[i].trim() !== "" && (i === start || !isBlockStart(lines[i], lines, i))) {
    body.push(lines[i].trim());
    i += 1;
  }
  const p = node("p");
  body.forEach((line, index) => {
    if (index) p.children.push(node("br"));
    p.children.push(...parseInline(line));
  });
  parent.push(p);
  return i;
}

// Inline spans, tried in this order at each position: code, link, bold, italic, bare URL,
// strikethrough, math ($$, \[, \(, $).
const INLINE = new RegExp(
  [
    "(`+)([^`]|[^`][\\s\\S]*?[^`])\\1(?!`)", // 1,2 code span
    "\\[([^\\]\\n]+)\\]\\(\\s*([^\\s)]+)\\s*\\)", // 3,4 link
    "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*", // 5 bold
    "(?<![\\w])__(?=\\S)([\\s\\S]*?\\S)__(?![\\w])", // 6 bold
    "\\*(?=[^\\s*])([^*]*?[^\\s*]|[^\\s*])\\*", // 7 italic
    "(?<![\\w])_(?=[^\\s_])([^_]*?[^\\s_]|[^\\s_])_(?![\\w])", // 8 italic
    "(https?:\\/\\/[^\\s<>()\\[\\]]*[^\\s<>()\\[\\].,;:!?'\"])", // 9 bare URL
    "~~(?=\\S)([\\s\\S]*?\\S)~~", // 10 strikethrough
    "\\$\\$([^$`]*?[^\\s$`\\\\][^$`]*?)\\$\\$", // 11 displayed math
    "\\\\\\[([\\s\\S]+?)\\\\\\]", // 12 displayed math
    "\\\\\\(([\\s\\S]+?)\\\\\\)", // 13 inline math
    "(?<![\\\\$])\\$(?![\\s$])((?:\\\\[\\s\\S]|[^\\\\$`\\n])+?)(?<![\\s\\\\])\\$(?![\\d$])", // 14 inline math
  ].join("|"),
  "g",
);

/** The inline nodes of `text`: strings and span nodes. */
export function parseInline(text, depth = 0) {
  const out = [];
  let last = 0;
  for (const m of String(text).matchAll(INLINE)) {
    if (m.index < last) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(inlineNode(m, depth));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// The math groups of INLINE: [group, displayed, opening and closing delimiters].
const MATH_GROUPS = [
  [11, true, "$$", "$$"], [12, true, "\\[", "\\]"], [13, false, "\\(", "\\)"], [14, false, "$", "$"],
];

function inlineNode(m, depth) {
  const math = MATH_GROUPS.find(([group]) => m[group] !== undefined);
  if (math) return mathNode(m[math[0]].trim(), math[1], math[2], math[3]);
  if (m[1] !== undefined) return node("code", {}, [m[2].replace(/^ (.*) $/s, "$1")]);
  if (m[3] !== undefined) {
    const href = safeHref(m[4]);
    if (href === null) return m[0];
    return node("a", { href }, depth < MAX_DEPTH ? parseInline(m[3], depth + 1) : [m[3]]);
  }
  if (m[9] !== undefined) {
    const href = safeHref(m[9]);
    return href === null ? m[0] : node("a", { href }, [m[9]]);
  }
  let [tag, inner] = m[5] ?? m[6] ? ["strong", m[5] ?? m[6]] : ["em", m[7] ?? m[8]];
  if (m[10] !== undefined) [tag, inner] = ["del", m[10]];
  return node(tag, {}, depth < MAX_DEPTH ? parseInline(inner, depth + 1) : [inner]);
}

/** The normalised href when `raw` is an absolute http(s) URL, else null. */
export function safeHref(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}
