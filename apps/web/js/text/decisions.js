// A continuation turn's message, as the server writes it (engine/approvals.py
// decisions_note): one line per decided call, "Approved calculator (call_1)" or
// "Rejected refund (call_2): a reason". Pure: node-tested.

const LINE = /^(Approved|Rejected) (\S+) \(([^()\s]+)\)(?:: ([\s\S]*))?$/;

/** The decisions in `message`: [{approve, tool, callId, reason}]; [] when it is not one.
 * A line that does not start a decision continues the reason above it. */
export function parseDecisions(message) {
  const decisions = [];
  for (const line of String(message ?? "").split("\n")) {
    const match = LINE.exec(line);
    if (match) {
      decisions.push({ approve: match[1] === "Approved", tool: match[2], callId: match[3],
        reason: match[4] ?? "" });
    } else if (decisions.length) {
      decisions[decisions.length - 1].reason += `\n${line}`;
    } else {
      return [];
    }
  }
  return decisions;
}

/** One decision for a person: "Rejected refund: a reason" (no call id). */
export function decisionText({ approve, tool, reason }) {
  return `${approve ? "Approved" : "Rejected"} ${tool}${reason ? `: ${reason}` : ""}`;
}

/** The message as a person reads it: the call ids left out; other text unchanged. */
export function readableDecisions(message) {
  const decisions = parseDecisions(message);
  return decisions.length ? decisions.map(decisionText).join("\n") : String(message ?? "");
}
