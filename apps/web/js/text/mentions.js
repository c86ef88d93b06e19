// @mentions as text: which "@word" the caret is in, which roster agents it matches, and
// the message with the chosen "@key " put in its place. The composer's suggestion list
// (chat/mention-list.js) draws these; the server reads the mentions (engine, manual mode).

const TOKEN = /(^|\s)@([A-Za-z0-9_-]*)$/;

/** The letters typed after an "@" that ends at `caret`, or null when not in a mention. */
export function mentionQuery(value, caret) {
  const found = TOKEN.exec(value.slice(0, caret));
  return found ? found[2] : null;
}

/** The roster agents whose key or name starts with `typed` (case-insensitive), in order. */
export function matchAgents(roster, typed) {
  const prefix = typed.toLowerCase();
  return roster.filter((a) => a.key.toLowerCase().startsWith(prefix)
    || a.name.toLowerCase().startsWith(prefix));
}

/** `value` with the mention before `caret` replaced by "@key "; the new text and caret. */
export function insertMention(value, caret, typed, key) {
  const start = caret - typed.length - 1;
  const insert = `@${key} `;
  return { value: value.slice(0, start) + insert + value.slice(caret), caret: start + insert.length };
}
