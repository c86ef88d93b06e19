// Markdown for the page: markdown.js parses untrusted text into a tree; this builds it with
// createElement and text nodes only (no innerHTML, no HTML passthrough). Each tag has its
// own builder below, so an attribute reaches the page only when a builder sets it: a link's
// re-checked http(s) href, a list's start, a cell's alignment, a fence's language name.
// TeX goes to KaTeX's render(), which builds elements too (never renderToString), with
// trust off (no \href, no \htmlClass); what it refuses is shown as the source text.
// KaTeX is loaded with the first formula (import() of vendor/katex: a UMD script that
// sets self.katex); until then a formula shows as its source.

import { copyButton } from "../core/clipboard.js";
import { highlightInto } from "./highlight.js";
import { NODE_TAGS, parseMarkdown, safeHref } from "./markdown.js";

/** Render `text` into a DocumentFragment. */
export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  fragment.append(...parseMarkdown(text).map(build));
  return fragment;
}

/** Replace `el`'s children with the rendering of `text`. */
export function renderInto(el, text) {
  el.replaceChildren(renderMarkdown(text));
  return el;
}

const BUILDERS = {
  "a": (n) => {
    const a = element("a", n);
    const href = safeHref(n.attrs.href);
    if (href !== null) Object.assign(a, { href, target: "_blank", rel: "noopener noreferrer nofollow" });
    return a;
  },
  "ol": (n) => {
    const ol = element("ol", n);
    if (Number.isInteger(n.attrs.start)) ol.start = n.attrs.start;
    return ol;
  },
  "li": (n) => {
    const li = element("li", n);
    if (typeof n.attrs.checked === "boolean") {
      li.className = "task";
      const box = document.createElement("input");
      Object.assign(box, { type: "checkbox", disabled: true, checked: n.attrs.checked });
      li.prepend(box);
    }
    return li;
  },
  "table": (n) => {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap"; // scrolls sideways on narrow screens instead of the page
    wrap.append(element("table", n));
    return wrap;
  },
  "th": cell,
  "td": cell,
  "code-block": codeBlock,
  "math": math,
};

// KaTeX's limits for untrusted TeX: sizes in em, macro expansions per formula.
const KATEX_OPTIONS = Object.freeze({
  throwOnError: true, trust: false, strict: "ignore", maxSize: 20, maxExpand: 500,
});

// The other tags carry no attributes: the element and its children.
const PLAIN = new Set(NODE_TAGS.filter((tag) => !Object.hasOwn(BUILDERS, tag)));

function build(n) {
  if (typeof n === "string") return document.createTextNode(n);
  if (Object.hasOwn(BUILDERS, n.tag)) return BUILDERS[n.tag](n);
  if (PLAIN.has(n.tag)) return element(n.tag, n);
  throw new Error(`markdown: no builder for <${n.tag}>`);
}

function element(tag, n) {
  const el = document.createElement(tag);
  el.append(...n.children.map(build));
  return el;
}

function cell(n) {
  const el = element(n.tag, n);
  if (["left", "center", "right"].includes(n.attrs.align)) el.dataset.align = n.attrs.align;
  return el;
}

function math(n) {
  const formula = { tex: n.children.join(""), ...n.attrs };
  const el = document.createElement("span");
  el.className = formula.display ? "math math-display" : "math";
  if (window.katex) renderMath(el, formula);
  else {
    el.append(document.createTextNode(source(formula)));
    waiting.set(el, formula);
    loadKatex();
  }
  return el;
}

// Formulas shown before KaTeX arrived, rendered when it does (if still on the page).
const waiting = new Map();
let katexLoading = null;

function loadKatex() {
  katexLoading ??= import("../../vendor/katex/katex.min.js").then(() => {
    for (const [el, formula] of waiting) if (el.isConnected) renderMath(el, formula);
    waiting.clear();
  }, () => { katexLoading = null; }); // offline: the source stays; the next formula tries again
}

function renderMath(el, formula) {
  try {
    window.katex.render(formula.tex, el, { ...KATEX_OPTIONS, displayMode: formula.display === true });
  } catch {
    el.replaceChildren(document.createTextNode(source(formula)));
    el.classList.add("math-error");
  }
}

function source({ tex, open, close }) {
  return `${open}${tex}${close}`;
}

function codeBlock(n) {
  const text = n.children.join("");
  const lang = n.attrs.lang;
  const pre = document.createElement("pre");
  const code = document.createElement("code");
  if (lang) pre.dataset.lang = lang;
  highlightInto(code, text, lang);
  pre.append(code);
  const head = document.createElement("div");
  head.className = "code-head";
  const name = document.createElement("span");
  name.className = "code-lang";
  name.textContent = lang || "text";
  head.append(name, copyButton(() => text, `Copy ${lang || "code"} code`));
  const block = document.createElement("div");
  block.className = "code-block";
  block.append(head, pre);
  return block;
}
