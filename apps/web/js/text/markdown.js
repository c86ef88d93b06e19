// A small, safe Markdown renderer for untrusted agent output.
// It builds DOM nodes with createElement and text nodes only: no innerHTML, no HTML
// passthrough, no attributes taken from the text except an http(s) link href that has
// been parsed by URL(). Raw HTML in the input stays visible as text.
//
// Supported: paragraphs (single newlines kept as line breaks), fenced code blocks (with
// syntax highlighting through highlight.js and a copy button), headings, block quotes,
// bullet and numbered lists (nested by indentation), task lists (- [ ] / - [x]), pipe
// tables, rules, inline code, **bold**, *italic* / _italic_, ~~strikethrough~~,
// [links](https://...) and bare http(s) URLs.

import { copyButton } from "./clipboard.js";
import { highlightInto } from "./highlight.js";
import { isTableStart, table } from "./md-table.js";

const MAX_DEPTH = 6;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TASK = /^\[([ xX])\]\s+/;

/** Render `text` into a DocumentFragment. */
export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
  renderBlocks(lines, fragment, 0);
  return fragment;
}

/** Replace `el`'s children with the rendering of `text`. */
export function renderInto(el, text) {
  el.replaceChildren(renderMarkdown(text));
  return el;
}

function isBlockStart(line, lines = null, i = 0) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line)
    || ITEM.test(line) || (lines !== null && isTableStart(lines, i));
}

function renderBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") { i += 1; continue; }
    const fence = FENCE.exec(line);
    if (fence) { i = codeBlock(lines, i, fence, parent); continue; }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1].length + 2); // agent headings sit below the page's
      parent.append(inlineInto(document.createElement(`h${level}`), heading[2]));
      i += 1;
      continue;
    }
    if (RULE.test(line)) { parent.append(document.createElement("hr")); i += 1; continue; }
    if (isTableStart(lines, i)) { i = table(lines, i, parent, inlineInto); continue; }
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
  const text = body.join("\n");
  const pre = document.createElement("pre");
  const code = document.createElement("code");
  if (fence[2]) pre.dataset.lang = fence[2];
  highlightInto(code, text, fence[2]);
  pre.append(code);
  const head = document.createElement("div");
  head.className = "code-head";
  const lang = document.createElement("span");
  lang.className = "code-lang";
  lang.textContent = fence[2] || "text";
  head.append(lang, copyButton(() => text, `Copy ${fence[2] || "code"} code`));
  const block = document.createElement("div");
  block.className = "code-block";
  block.append(head, pre);
  parent.append(block);
  return i;
}

function quote(lines, start, parent, depth) {
  const body = [];
  let i = start;
  while (i < lines.length && QUOTE.test(lines[i])) {
    body.push(lines[i].replace(QUOTE, ""));
    i += 1;
  }
  const block = document.createElement("blockquote");
  renderBlocks(body, block, depth + 1);
  parent.append(block);
  return i;
}

function list(lines, start, parent, depth) {
  const first = ITEM.exec(lines[start]);
  const ordered = /\d/.test(first[2]);
  const listEl = document.createElement(ordered ? "ol" : "ul");
  if (ordered && parseInt(first[2], 10) !== 1) listEl.start = parseInt(first[2], 10);
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
    const li = document.createElement("li");
    const task = ordered ? null : TASK.exec(body[0]);
    if (task) {
      body[0] = body[0].slice(task[0].length);
      li.className = "task";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.disabled = true;
      box.checked = task[1] !== " ";
      li.append(box);
    }
    renderBlocks(body, li, depth + 1);
    const only = li.lastChild;
    if (only?.nodeName === "P" && li.childNodes.length === (task ? 2 : 1)) only.replaceWith(...only.childNodes);
    listEl.append(li);
    if (i < lines.length && lines[i].trim() === "") {
      const after = lines.slice(i).find((l) => l.trim() !== "");
      const again = after && ITEM.exec(after);
      if (!again || again[1].length !== indent) break;
      while (lines[i].trim() === "") i += 1;
    }
  }
  parent.append(listEl);
  return i;
}

function paragraph(lines, start, parent) {
  const body = [];
  let i = start;
  while (i < lines.length && lines[i].trim() !== "" && (i === start || !isBlockStart(lines[i], lines, i))) {
    body.push(lines[i].trim());
    i += 1;
  }
  const p = document.createElement("p");
  body.forEach((line, index) => {
    if (index) p.append(document.createElement("br"));
    inlineInto(p, line);
  });
  parent.append(p);
  return i;
}

// Inline spans, tried in this order at each position: code, link, bold, italic, bare URL,
// strikethrough.
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
  ].join("|"),
  "g",
);

/** Append the inline rendering of `text` to `el`; returns `el`. */
export function inlineInto(el, text, depth = 0) {
  let last = 0;
  INLINE.lastIndex = 0;
  const matches = [...String(text).matchAll(INLINE)];
  for (const m of matches) {
    if (m.index < last) continue;
    if (m.index > last) el.append(text.slice(last, m.index));
    el.append(inlineNode(m, depth));
    last = m.index + m[0].length;
  }
  if (last < text.length) el.append(text.slice(last));
  return el;
}

function inlineNode(m, depth) {
  if (m[1] !== undefined) {
    const code = document.createElement("code");
    code.textContent = m[2].replace(/^ (.*) $/s, "$1");
    return code;
  }
  if (m[3] !== undefined) {
    const href = safeHref(m[4]);
    if (href === null) return document.createTextNode(m[0]);
    const a = link(href);
    return depth < MAX_DEPTH ? inlineInto(a, m[3], depth + 1) : (a.append(m[3]), a);
  }
  if (m[9] !== undefined) {
    const href = safeHref(m[9]);
    if (href === null) return document.createTextNode(m[0]);
    const a = link(href);
    a.textContent = m[9];
    return a;
  }
  let [tag, inner] = m[5] ?? m[6] ? ["strong", m[5] ?? m[6]] : ["em", m[7] ?? m[8]];
  if (m[10] !== undefined) [tag, inner] = ["del", m[10]];
  const el = document.createElement(tag);
  return depth < MAX_DEPTH ? inlineInto(el, inner, depth + 1) : (el.append(inner), el);
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

function link(href) {
  const a = document.createElement("a");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  return a;
}
