// A share link's snapshot (GET /v1/shared/<token>, docs/adr/0042) read for the page:
// the token in the page's URL, every page of turns, and the words for an answer's status.
// Pure: node-tested (tests/web/js/share.test.mjs).

export const PAGE_LIMIT = 200; // the API's largest page

const TOKEN = /^[A-Za-z0-9_-]{1,100}$/;

/** The token of a /share/<token> URL path, or null when the path is not one. */
export function tokenFromPath(pathname) {
  const match = /^\/share\/([^/]+)\/?$/.exec(String(pathname ?? ""));
  return match && TOKEN.test(match[1]) ? match[1] : null;
}

/** The snapshot's API URL for one page of turns. */
export function snapshotUrl(token, offset) {
  return `/v1/shared/${encodeURIComponent(token)}?limit=${PAGE_LIMIT}&offset=${offset}`;
}

/** The whole snapshot: `readPage(offset)` answers one page ({title, shared_at, turns,
 * total}); pages are read until the turns are all in (or a page brings none). */
export async function readSnapshot(readPage) {
  const first = await readPage(0);
  const turns = [...first.turns];
  while (turns.length < first.total) {
    const next = await readPage(turns.length);
    if (!next.turns.length) break;
    turns.push(...next.turns);
  }
  return { title: first.title, sharedAt: first.shared_at, turns };
}

const STATES = {
  ok: "",
  failed: "failed",
  cancelled: "stopped",
  awaiting_approval: "waiting for approval",
};

/** What an answer's panel says about how it ended ("" when it ended well). */
export function answerState(status) {
  return STATES[status] ?? String(status ?? "");
}

/** The line under the title: when the conversation was shared, and that it is read-only. */
export function sharedNote(iso, turns) {
  const when = iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "";
  const count = `${turns} turn${turns === 1 ? "" : "s"}`;
  return [when ? `Shared on ${when}` : "Shared", count, "read-only"].join(" · ");
}
