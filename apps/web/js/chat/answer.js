// The Answer block that closes a multi-agent turn, and the rounds folded away above it.
// Which text is the answer comes from the mode's spec (`answer`, GET /v1/modes): the
// manager's synthesis, the chosen review draft, the last pipeline stage. Modes whose
// answers are the agents' own replies (`the_agent`, `each_agent`) get no block.

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
