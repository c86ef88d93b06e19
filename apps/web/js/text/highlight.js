// Syntax highlighting for fenced code, DOM-safe: Prism (vendor/prismjs, loaded by
// index.html in manual mode) only *tokenizes* the text; this module turns the token tree
// into <span class="tok tok-TYPE"> elements whose text goes in as text nodes. Prism's
// HTML-producing `highlight()` is never called, so model text is never parsed as HTML.

const MAX_CHARS = 20000; // larger blocks stay plain: tokenizing them would stall the page

/** The Prism grammar for a fence's language name or alias, or null. */
function grammar(lang) {
  const prism = window.Prism;
  if (!prism || !lang) return null;
  const name = lang.toLowerCase();
  return Object.hasOwn(prism.languages, name) && typeof prism.languages[name] === "object"
    ? prism.languages[name]
    : null;
}

/** Fill `code` with the highlighted `text`; plain text when the language is unknown. */
export function highlightInto(code, text, lang) {
  const rules = text.length <= MAX_CHARS ? grammar(lang) : null;
  if (!rules) {
    code.textContent = text;
    return false;
  }
  code.replaceChildren(...nodes(window.Prism.tokenize(text, rules)));
  code.dataset.highlighted = "true";
  return true;
}

function nodes(tokens) {
  const out = [];
  for (const token of [tokens].flat()) {
    if (typeof token === "string") {
      out.push(document.createTextNode(token));
      continue;
    }
    const span = document.createElement("span");
    const aliases = [token.alias ?? []].flat();
    span.className = ["tok", ...[token.type, ...aliases].map((t) => `tok-${String(t).replace(/[^\w-]/g, "")}`)].join(" ");
    span.append(...nodes(token.content));
    out.push(span);
  }
  return out;
}
