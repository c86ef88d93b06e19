// Times, durations, costs and session names as the page writes them: plain text, no DOM.

export function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toLocaleString(undefined, {
    month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "–";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export function formatCost(usd) {
  if (!usd) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(5)}` : `$${usd.toFixed(3)}`;
}

/** A session's title, or what to call it until it has one. */
export function sessionLabel(session) {
  return session?.title || (session ? `Untitled session of ${formatTime(session.created_at)}` : "New session");
}
