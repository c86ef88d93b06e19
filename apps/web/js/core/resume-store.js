// The turns running in this tab, remembered in sessionStorage (per tab) so a reload can
// resume every one of them: one entry per session, oldest first, each {turnId, sessionId,
// message, lastEventId, href} (href: the chat's address, for a link to it from other
// chats). An entry goes when its turn ends; the key goes with the last one.

const KEY = "pantheon.runningTurns";

/** The remembered running turns, oldest first (several sessions may run at once). */
export function loadRunning() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) || "[]");
    return Array.isArray(value) ? value.filter((state) => state && state.turnId && state.sessionId) : [];
  } catch {
    return [];
  }
}

/** Remember (or update) the running turn of `state.sessionId`. */
export function saveRunning(state) {
  const others = loadRunning().filter((entry) => entry.sessionId !== state.sessionId);
  store([...others, state]);
}

/** Forget the running turn of `sessionId` (it ended, or is gone). */
export function clearRunning(sessionId) {
  store(loadRunning().filter((entry) => entry.sessionId !== sessionId));
}

function store(entries) {
  try {
    if (entries.length) sessionStorage.setItem(KEY, JSON.stringify(entries));
    else sessionStorage.removeItem(KEY);
  } catch {
    // storage full or disabled: resume is a convenience, the turn runs regardless
  }
}
