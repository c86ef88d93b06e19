// The Answer block that closes a multi-agent turn, and the rounds folded away above it.
// Which text is the answer comes from the mode's spec (`answer`, GET /v1/modes): the
// manager's synthesis (or, when it failed, the specialists' own replies), the chosen review
// draft, the last pipeline stage. Modes whose answers are the agents' own replies
// (`the_agent`, `each_agent`) get no block. The block names the agents whose work is
// missing from it, each with its Retry, so nobody has to open the folded work to find them.

import { h } from "../core/dom.js";
import { renderMarkdown } from "../text/markdown-dom.js";
import { modeSpec } from "../core/modes.js";

const OWN_REPLIES = ["the_agent", "each_agent"];

/** The mode's spec says one text closes the turn (else every reply is an answer). */
export function hasAnswerBlock(view) {
  const answer = modeSpec(view.mode)?.answer;
  return Boolean(answer) && !OWN_REPLIES.includes(answer);
}

/** The turn's Answer block at the end of its body: a heading line (`title`, then `note`;
 * none without a title), then `text` as Markdown, or `content` (a node, e.g. the
 * streaming synthesis panel, which names itself). */
export function answerBlock(view, { title = "", note = "", text = null, content = null }) {
  view.answerEl?.remove();
  const head = title ? h("p", { class: "answer-head", role: "note" },
    h("strong", {}, title), note ? ` · ${note}` : "") : null;
  view.answerText = text ?? "";
  view.answerEl = h("section", { class: "answer", "aria-label": "Answer" }, head,
    content ?? (text ? h("div", { class: "answer-body md" }, renderMarkdown(text)) : null));
  view.body.append(view.answerEl);
  return view.answerEl;
}

/** pipeline-like modes (`answer: last_stage`): the last stage that produced text, once the
 * turn is over; says so when a later stage failed. */
export function lastStageAnswer(view) {
  if (modeSpec(view.mode)?.answer !== "last_stage" || view.answerEl) return;
  const stages = view.stageResults ?? [];
  const done = stages.filter((s) => s.ok && s.text).at(-1);
  if (!done) return;
  const failed = stages.find((s) => !s.ok);
  const name = done.agent_name || `@${done.agent_key}`;
  const note = failed ? `stage ${failed.stage} failed, so this is stage ${done.stage}'s output`
    : `the last stage's output`;
  answerBlock(view, { title: `Answer: stage ${done.stage}, ${name}`, note, text: done.text });
}

/** Once the turn is over, its rounds (and a pipeline's stage panels) fold into one closed
 * "How the answer was made" section above the Answer, so the answer is what one sees. */
export function foldWork(view) {
  if (!view.answerEl || !view.answerText || view.workEl) return;
  const rounds = [...view.body.querySelectorAll(":scope > .round")];
  if (!rounds.length) return;
  const count = rounds.filter((r) => r.dataset.round !== "answers").length;
  const what = count ? `${count} round${count === 1 ? "" : "s"}` : `${view.panels.size} stage${view.panels.size === 1 ? "" : "s"}`;
  view.workEl = h("details", { class: "turn-work" },
    h("summary", {}, `How the answer was made (${what})`), ...rounds);
  view.body.insertBefore(view.workEl, view.answerEl);
}

/** The manager could not write the synthesis (`synthesis_completed` with `fallback`): the
 * specialists' own replies are the answer, said so (`why`), with the synthesis alone to
 * run again. */
export function fallbackAnswer(view, text, why) {
  const el = answerBlock(view, { title: "Answer: the specialists' own replies",
    note: `no synthesis: ${why}`, text });
  el.classList.add("fallback");
  if (view.actions?.retrySynthesis && !view.el.dataset.continues) {
    el.querySelector(".answer-head").append(" ", h("button", { type: "button",
      class: "ghost small answer-retry synthesis-retry",
      title: "Ask the manager again to write one answer from these replies, in a new turn",
      onclick: () => view.actions.retrySynthesis(view) }, "Retry the synthesis"));
  }
}

/** The agents that failed in the turn and never answered in it (a later round's success
 * makes up for an earlier failure), each as its latest failed panel. */
function missingAgents(view) {
  const failed = new Map();
  const answered = new Set();
  for (const panel of view.panels.values()) {
    if (panel.state === "done") answered.add(panel.key);
    else if (panel.state === "failed") failed.set(panel.key, panel);
  }
  return [...failed.values()].filter((panel) => !answered.has(panel.key));
}

/** Once the turn is over: the Answer block names the agents whose work is missing from
 * it, why, and offers Retry for each; a turn with no answer at all gets a block that
 * says so. */
export function missingWork(view) {
  if (!hasAnswerBlock(view)) return;
  const missing = missingAgents(view);
  if (!missing.length) return;
  if (!view.answerEl) answerBlock(view, { title: "No answer", note: "no agent's work could be used" });
  view.answerEl.querySelector(".answer-missing")?.remove();
  const retry = view.actions?.retryAgent && !view.el.dataset.continues;
  const names = missing.map((panel) => panel.nameEl.textContent);
  const items = missing.map((panel, i) => h("li", {},
    h("strong", {}, names[i]), ` (@${panel.key}): ${panel.failure ?? "it failed."} `,
    retry ? h("button", { type: "button", class: "ghost small answer-retry",
      "aria-label": `Retry ${names[i]}`,
      title: `Ask ${names[i]} again; the new answer includes its work`,
      onclick: () => view.actions.retryAgent(view, panel.key) }, "Retry") : null));
  const note = h("div", { class: "answer-missing", role: "note" },
    h("p", {}, `Missing from this answer: ${names.join(", ")}`), h("ul", {}, ...items));
  const head = view.answerEl.querySelector(":scope > .answer-head");
  if (head) head.after(note);
  else view.answerEl.prepend(note);
}
