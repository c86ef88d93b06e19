// Error texts for a person. The API writes its details for programmers (ids, route
// templates, environment-variable names); the page shows what happened and what to do.

const UUID = /\s*\(?\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b\)?/gi;
const ENV_NOTE = /\s*\((?:PANTHEON|OPENAI|[A-Z][A-Z0-9]*)_[A-Z0-9_]+\)/g;
const ROUTE_HINT = /;?\s*(?:add one )?with (?:GET|POST|PATCH|DELETE) \/v1\/\S+/g;

// code -> sentence, from GET /v1/error-codes (pantheon/error_codes.py), set once at
// start-up by app.js: the page keeps no copy of its own.
let failures = new Map();

/** Keep the server's error codes: items of {code, sentence}. */
export function setErrorCodes(items) {
  failures = new Map(items.map(({ code, sentence }) => [code, sentence]));
}

const NOT_FOUND = {
  room: "This room no longer exists; it may have been deleted.",
  agent: "This agent no longer exists; it may have been deleted.",
  session: "This session no longer exists; it may have been deleted.",
  turn: "This turn is not on the server (any more).",
};

/**
 * A sentence for an agent failure or a turn error (`code` from the event): the server's
 * sentence for the code, else the event's own text, tidied.
 */
export function describeFailure(code, fallback = "", scope = "agent") {
  const known = failures.get(code);
  if (known) return known;
  const text = tidy(fallback);
  if (scope === "turn") return text ? `The turn could not run: ${text}` : "The turn could not run.";
  return text || "This agent failed.";
}

/** The text to show for an ApiError (or any Error). */
export function describeError(err) {
  const status = err?.status;
  const raw = err?.message || String(err ?? "");
  if (status === 0) return "Pantheon is not answering. Check that the server is running, then try again.";
  if (status === 404) {
    const kind = /^(room|agent|session|turn)\b/.exec(raw)?.[1];
    if (kind) return NOT_FOUND[kind];
  }
  if (status === 409 && /already has a running turn/.test(raw)) {
    return "A turn is already running in this session. Wait for it to finish or stop it.";
  }
  if (status === 402) {
    const limit = tidy(raw).replace(/ in room is spent/, " for this room is spent");
    return `Spending limit reached. ${limit}.`;
  }
  if (status === 429) return "Too many requests in a short time. Wait a moment and try again.";
  if (status === 503) return "The server is busy or restarting. Try again in a moment.";
  if (/has no agents/.test(raw)) return "This room has no agents yet: open Roster to add one.";
  const roster = /already has (\d+) agents; the roster limit is (\d+)/.exec(raw);
  if (roster) return `This room is full: a room holds at most ${roster[2]} agents.`;
  const tool = /unknown tool '([^']*)'(?:; built-in tools: ([^;]*))?/.exec(raw);
  if (tool) {
    const known = tool[2] ? ` The built-in tools are: ${tool[2].trim()}.` : "";
    return `This server has no tool called “${tool[1]}”. Untick it and pick from the list.${known}`;
  }
  const server = /unknown MCP server '([^']*)'/.exec(raw);
  if (server) return `No tool server called “${server[1]}” is set up on this Pantheon server. Untick its tools and try again.`;
  const member = /agent '([^']+)' is already in room/.exec(raw);
  if (member) return `@${member[1]} is already in this room.`;
  return tidy(raw) || "Something went wrong.";
}

/** Drop ids, environment-variable names and API route hints; start with a capital. */
export function tidy(text) {
  const cleaned = String(text ?? "")
    .replace(UUID, "")
    .replace(ENV_NOTE, "")
    .replace(ROUTE_HINT, "")
    .replace(/\s{2,}/g, " ")
    .trim();
  return cleaned ? cleaned[0].toUpperCase() + cleaned.slice(1) : "";
}
