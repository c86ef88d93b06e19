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

const REVIEW_STOP = {
  approved: "every reviewer approved",
  max_rounds: "round limit reached",
  no_gain: "the score stopped improving",
  draft_failed: "the draft failed",
};

/** Why a review loop stopped (`review_completed.reason`), for a person. */
export function reviewStopText(reason) {
  return REVIEW_STOP[reason] ?? String(reason ?? "");
}

/** A cost in an export: at most four significant digits, no float noise ($0.001671). */
export function exportCost(usd) {
  if (!usd) return "$0";
  const rounded = Number(usd.toPrecision(4));
  return rounded >= 1e-6 ? `$${rounded}` : formatCost(usd);
}

/** A reviewer's verdict event in words: "approved · 9/10". */
export function reviewVerdictText(e) {
  if (e.fallback) return "no usable review (counts as not approved)";
  const score = e.score === null || e.score === undefined ? "no score" : `${e.score}/10`;
  return `${e.approved ? "approved" : "not approved"} · ${score}`;
}
