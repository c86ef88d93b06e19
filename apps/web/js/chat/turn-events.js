// One renderer per SSE event type, applied to a TurnView. To show a new event type
// (tool calls, stages ...), add an entry here: `RENDERERS.tool_call = (view, e) => ...`.
// Unknown types are ignored, so an older page keeps working against a newer server.

import { h } from "../core/dom.js";
import { describeFailure } from "../text/humanize.js";
import { renderUsage } from "./turn-usage.js";
import { WORKFLOW_RENDERERS } from "./workflow-events.js";
import { modeSpec } from "../core/modes.js";
import { readableDecisions } from "../text/decisions.js";
import { fallbackAnswer } from "./answer.js";

const label = (text) => h("span", { class: "decision-label" }, text);
const spinner = () => h("span", { class: "spinner", "aria-hidden": "true" });
const mentions = (keys) => (keys.length ? keys.map((k) => `@${k}`).join(", ") : "nobody");

/** Tool events carry the agent's own tool round, not the orchestrator's: they belong to the
 * panel of that agent's latest agent_started. */
function panelFor(view, e) {
  return view.activePanels.get(e.agent_key) ?? view.panel(null, e.agent_key);
}

/** A fallback whose manager answered, but not with a decision (older servers send no reason). */
const unusable = (e) => !e.reason || e.reason === "bad_json";
const byModel = (model, sentence) => (model ? `Manager model ${model}: ${sentence}` : sentence);

/** Why the manager's decision fell back, naming its model (the server's sentence for the
 * reason); the model is kept for the synthesis' failure, whose event does not name it. */
function fallbackWhy(view, e) {
  if (!e.fallback || !e.reason) return null;
  if (e.model) view.managerModel = e.model;
  return h("span", { class: "decision-why" }, byModel(e.model, describeFailure(e.reason)));
}

/** Public event types the turn view shows nothing for: `summary` (the session summary
 * changed; the page reads it with the session, not from the turn). Every other public type
 * has a renderer (tests/engine/test_catalogue.py checks both lists against the catalogue). */
export const IGNORED_EVENTS = ["summary"];

export const RENDERERS = {
  turn_started(view, e) {
    view.turnId = e.turn_id;
    view.el.dataset.turnId = e.turn_id;
    view.mode = e.mode;
    view.agents = e.agents;
    view.el.dataset.mode = e.mode;
    view.modeEl.textContent = e.mode;
    if (e.retries) { // runs failed agents (or the synthesis) of an earlier turn again
      view.el.dataset.retries = e.retries;
      view.modeEl.textContent = `${e.mode} · retry`;
      view.modeEl.title = "A retry: failed work of the turn above, run again, then a new answer";
    }
    if (e.continues) { // its "message" is the person's decisions: nothing to edit or resend
      view.el.dataset.continues = e.continues;
      view.setMessage(readableDecisions(view.message));
      for (const button of view.actionsEl.querySelectorAll("button:not(.copy)")) button.remove();
    }
  },

  round_start(view, e) {
    const round = view.round(e.round);
    round.el.dataset.state = "running";
    if (!modeSpec(view.mode)?.uses_manager) return; // e.g. review rounds have no manager
    if (view.el.dataset.retries) return; // a retry's round is not routed: nobody chooses
    view.decision(round.routing, [spinner(), label("Manager is choosing who answers…")], { pending: true });
  },

  routing(view, e) {
    const round = view.round(e.round);
    const badge = unusable(e) ? "fallback: unusable answer, first agent runs" : "fallback: manager failed, first agent runs";
    view.decision(round.routing, [
      label("Manager routed to "),
      h("strong", {}, mentions(e.agents)),
      e.fallback ? h("span", { class: "badge warn" }, badge) : null,
      fallbackWhy(view, e),
    ]);
    for (const key of e.agents) view.panel(e.round, key);
  },

  round_end(view, e) {
    const round = view.round(e.round);
    round.el.dataset.state = "done";
    if (modeSpec(view.mode)?.uses_manager && !view.finished) {
      view.decision(round.evaluation,
        [spinner(), label("Manager is checking whether another round is needed…")], { pending: true });
    }
  },

  evaluation(view, e) {
    const round = view.round(e.round);
    // No promise of a synthesis here: it may not come (no answers, or the manager fails).
    const badge = unusable(e) ? "fallback: unparsable answer means stop" : "fallback: manager failed, no more rounds";
    view.decision(round.evaluation, [
      label(e.fallback ? "Manager could not evaluate: " : "Manager evaluated: "),
      h("strong", {}, e.continue ? "another round" : "no more rounds"),
      e.fallback ? h("span", { class: "badge warn" }, badge) : null,
      fallbackWhy(view, e),
    ]);
    round.evaluation.dataset.continue = String(Boolean(e.continue));
  },

  agent_started(view, e) {
    const panel = view.panel(e.round, e.agent_key);
    view.activePanels.set(e.agent_key, panel);
    panel.setName(e.agent_name);
    panel.start();
  },

  delta(view, e) {
    if (view.synthesis && e.agent_key === "manager") view.synthesis.append(e.text);
    else view.panel(e.round, e.agent_key).append(e.text);
  },

  tool_call(view, e) {
    panelFor(view, e).toolCall(e);
  },

  tool_result(view, e) {
    panelFor(view, e).toolResult(e);
  },

  approval_required(view, e) {
    panelFor(view, e).approvalRequired(e);
    view.approvalCard().add(e);
  },

  agent_completed(view, e) {
    view.panel(e.round, e.agent_key).complete(e.text, e.usage);
  },

  agent_failed(view, e) {
    if (view.synthesis && e.agent_key === "manager") {
      view.synthesis.fail(byModel(view.managerModel, describeFailure(e.code, e.error)), e.code);
      return;
    }
    const panel = view.panel(e.round, e.agent_key);
    panel.fail(describeFailure(e.code, e.error), e.code);
    if (view.actions?.retryAgent && !view.el.dataset.continues) {
      panel.offerRetry(() => view.actions.retryAgent(view, e.agent_key));
    }
  },

  retrying(view, e) {
    const panel = view.synthesis && e.agent_key === "manager" ? view.synthesis : view.panel(e.round, e.agent_key);
    panel.retrying(e);
  },

  synthesis_started(view) {
    for (const round of view.rounds.values()) {
      if (round.evaluation.dataset.pending === "true") round.evaluation.hidden = true;
    }
    view.startSynthesis();
  },

  synthesis_completed(view, e) {
    if (e.fallback) { // the synthesis failed: the specialists' replies are the answer
      fallbackAnswer(view, e.text, byModel(e.model ?? view.managerModel, describeFailure(e.reason)));
      return;
    }
    view.synthesis?.complete(e.text);
    view.answerText = e.text;
  },

  turn_completed(view, e) {
    view.usage = e.usage;
    view.finish(e.status);
    renderUsage(view);
  },

  ...WORKFLOW_RENDERERS,

  error(view, e) {
    view.finish(e.code === "interrupted" ? "interrupted" : "error");
    view.notice(describeFailure(e.code, e.message, "turn"), "error");
  },
};
