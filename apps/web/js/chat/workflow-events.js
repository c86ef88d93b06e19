// Renderers for the workflow modes' events (SSE catalogue: docs/sse.md), merged into
// turn-events.js. Pipeline: a strip of numbered stages above the answers, reused stages
// filled from their event, a "Re-run from here" button per later stage (chat.js shows it
// only on the session's latest pipeline turn). Review: each round lists the reviewers'
// verdicts with scores; the chosen draft is marked and the reason the loop stopped shown.

import { h } from "../core/dom.js";
import { answerBlock } from "./answer.js";
import { reviewStopText, reviewVerdictText } from "../text/format.js";
import { panelId } from "./panel.js";

const STAGE_STATE = { running: "running", done: "done", reused: "reused", failed: "failed" };

function stageStrip(view) {
  if (!view.stageStrip) {
    view.stageStrip = h("ol", { class: "stage-strip", "aria-label": "Pipeline stages" });
    view.body.prepend(view.stageStrip);
  }
  return view.stageStrip;
}

function stageChip(view, e) {
  const strip = stageStrip(view);
  let chip = strip.querySelector(`li[data-stage="${e.stage}"]`);
  if (!chip) {
    chip = h("li", { class: "stage", dataset: { stage: String(e.stage), agent: e.agent_key } },
      h("span", { class: "stage-number" }, String(e.stage)),
      h("span", { class: "stage-agent", title: `@${e.agent_key}` }, e.agent_name || `@${e.agent_key}`),
      h("span", { class: "stage-state" }));
    if (e.stage > 1 && view.actions?.rerunFrom) {
      chip.append(h("button", { type: "button", class: "ghost small stage-rerun", hidden: true,
        "aria-label": `Re-run from here: stage ${e.stage}, ${e.agent_name || `@${e.agent_key}`}`,
        title: "Run the pipeline again from this stage; the stages before it keep their output",
        onclick: () => view.actions.rerunFrom(view, e.agent_key) }, "Re-run from here"));
    }
    strip.append(chip);
  }
  return chip;
}

function setStage(chip, state) {
  chip.dataset.state = state;
  chip.querySelector(".stage-state").textContent = STAGE_STATE[state];
}

function reviewList(view, round) {
  const section = view.round(round);
  if (!section.reviews) {
    section.reviews = h("ul", { class: "reviews", "aria-label": `Reviews of round ${round}` });
    section.el.append(section.reviews);
  }
  return section.reviews;
}

export const WORKFLOW_RENDERERS = {
  stage_started(view, e) {
    setStage(stageChip(view, e), e.reused ? "reused" : "running");
  },

  stage_completed(view, e) {
    setStage(stageChip(view, e), e.ok ? (e.reused ? "reused" : "done") : "failed");
    (view.stageResults ??= []).push(e); // the Answer, once the turn ends (answer.js)
    if (!e.reused) return;
    const panel = view.panel(null, e.agent_key);
    panel.setName(e.agent_name);
    panel.el.dataset.reused = "true";
    panel.stateEl.after(h("span", { class: "badge reused", title: "Taken over from the previous run" }, "reused"));
    panel.complete(e.text);
  },

  review(view, e) {
    view.panels.get(panelId(e.round, e.agent_key))?.showVerdict([h("p", { class: "review-verdict-body" },
      h("strong", { class: "review-verdict" }, reviewVerdictText(e)),
      e.feedback ? h("span", { class: "review-feedback" }, ` · ${e.feedback}`) : null)]);
    reviewList(view, e.round).append(h("li", {
      class: "review",
      dataset: { agent: e.agent_key, approved: String(e.approved), fallback: String(e.fallback) },
    },
    h("strong", {}, `@${e.agent_key}`), " ",
    h("span", { class: "review-verdict" }, reviewVerdictText(e)),
    e.feedback ? h("span", { class: "review-feedback" }, ` · ${e.feedback}`) : null));
  },

  review_completed(view, e) {
    const drafter = view.agents?.[0];
    const chosen = e.round ? view.panels.get(panelId(e.round, drafter)) : null;
    if (chosen) chosen.el.dataset.chosen = "true";
    const which = e.round ? `the round ${e.round} draft` : "no draft";
    const score = e.score === null || e.score === undefined ? "" : ` (score ${e.score})`;
    // The answer closes the turn, in full, where a person looks: under the rounds.
    answerBlock(view, { title: `Answer: ${which}${score}`, note: `stopped: ${reviewStopText(e.reason)}`,
      text: e.text || null }).dataset.reason = e.reason;
  },
};
