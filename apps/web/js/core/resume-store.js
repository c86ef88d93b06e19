// The running turn, remembered in sessionStorage (per tab) so a reload can resume it.
// Shape: {turnId, sessionId, message, lastEventId, href} (href: the chat's address, for a
// link to it from other chats). Cleared when the turn ends.

const KEY = "pantheon.runningTurn";

export function loadRunning() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) || "null");
    return value && value.turnId && value.sessionId ? value : null;
  } catch {
    return null;
  }
}

export function saveRunning(state) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(state));
  } catch {
    // storage full or disabled: resume is a convenience, the turn runs regardless
  }
}

export function clearRunning() {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // see saveRunning
  }
}
