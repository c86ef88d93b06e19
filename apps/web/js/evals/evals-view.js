// The evaluations page: #/evals lists the runs; #/evals/<id> shows one run's progress
// (polled while it runs), its targets compared (table and chart), each case's outcome per
// target with a link to its session, cancel, and the cases that flipped against another run.

import { h, replaceChildren } from "../core/dom.js";
import { notifyError } from "../core/notify.js";
import { formatCost, formatMs, formatTime } from "../text/format.js";
import { passCostChart } from "./chart.js";
import { cancelRun, getReport, getResults, getRun, listRuns } from "./evals-api.js";

const POLL_MS = 1000;
const num = (value, digits = 1) => (value === null || value === undefined ? "–" : value.toFixed(digits));
const pct = (value) => (value === null || value === undefined ? "–" : `${Math.round(value * 100)}%`);

function badge(status) {
  return h("span", { class: "badge status", dataset: { status } }, status.replace("_", " "));
}

function progressLine(run) {
  return h("div", { class: "eval-progress" },
    h("progress", { max: String(Math.max(run.total, 1)), value: String(run.done), "aria-label": "Cases finished" }),
    h("span", {}, `${run.done} of ${run.total} cases · passed ${run.passed} · ${formatCost(run.cost_usd)}`));
}

function runList(runs) {
  if (!runs.items.length) {
    return h("p", { class: "muted" }, "No runs yet. Start one with ",
      h("code", {}, "pantheon eval DATASET --room ROOM --modes standalone,roundtable,orchestrator"),
      " (docs/evals.md).");
  }
  return h("table", { class: "usage-table eval-runs", "aria-label": "Eval runs" },
    h("thead", {}, h("tr", {}, ["Run", "Status", "Cases", "Passed", "Started"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, runs.items.map((run) => h("tr", {},
      h("th", { scope: "row" }, h("a", { href: `#/evals/${run.id}` }, run.name)),
      h("td", {}, badge(run.status)), h("td", {}, `${run.done}/${run.total}`),
      h("td", {}, String(run.passed)), h("td", {}, formatTime(run.created_at))))));
}

const COLUMNS = [
  ["Passed", (t) => `${t.passed}/${t.cases}`],
  ["Pass rate", (t) => pct(t.pass_rate)],
  ["95% CI", (t) => (t.ci_low === null ? "–" : `${pct(t.ci_low)}–${pct(t.ci_high)}`)],
  ["Judge", (t) => num(t.mean_judge_score)],
  ["Cost/case", (t) => (t.cost_per_case_usd === null ? "–" : formatCost(t.cost_per_case_usd))],
  ["Latency/case", (t) => formatMs(t.latency_per_case_ms)],
  ["Tokens/case", (t) => num(t.tokens_per_case, 0)],
  ["Calls/case", (t) => num(t.calls_per_case)],
];

function comparison(report) {
  return h("table", { class: "usage-table eval-compare", "aria-label": "Targets compared" },
    h("caption", {}, "Targets compared"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Target"), COLUMNS.map(([t]) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, report.targets.map((t) => h("tr", {},
      h("th", { scope: "row" }, t.label), COLUMNS.map(([, show]) => h("td", {}, show(t)))))));
}

function sessionLink(run, result) {
  const target = run.targets[result.target_index];
  if (!result.session_id || !target) return null;
  // A target with an agent runs on that agent alone (its sessions are the agent's).
  const owner = target.agent_id ? `agents/${target.agent_id}` : `rooms/${target.room_id}`;
  return `#/${owner}/sessions/${result.session_id}`;
}

function cell(run, result) {
  if (!result) return h("td", { class: "muted" }, "·");
  const failed = result.checks.filter((c) => !c.passed).map((c) => `${c.type}: ${c.detail}`);
  const mark = result.passed === null ? (result.finished_at ? "–" : "…") : result.passed ? "✓" : "✗";
  const why = result.error ?? (failed.join("\n") || "every check passed");
  const href = sessionLink(run, result);
  return h("td", { class: "eval-cell", dataset: { passed: String(result.passed) }, title: why },
    href ? h("a", { href, "aria-label": `${result.case_id}: ${why}` }, mark) : mark);
}

function caseGrid(run, results) {
  const byCase = new Map();
  for (const r of results.items) {
    if (!byCase.has(r.case_id)) byCase.set(r.case_id, []);
    byCase.get(r.case_id)[r.target_index] = r;
  }
  return h("table", { class: "usage-table eval-cases", "aria-label": "Cases" },
    h("caption", {}, "Cases (✓ passed, ✗ failed; hover for why, click for the session)"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Case"), run.targets.map((t) => h("th", { scope: "col" }, t.label)))),
    h("tbody", {}, [...byCase].map(([caseId, row]) => h("tr", {},
      h("th", { scope: "row" }, caseId), run.targets.map((t) => cell(run, row[t.index]))))));
}

function flipList(report) {
  if (!report.compared_with) return null;
  if (!report.flips.length) return h("p", { class: "eval-flips" }, "No case changed outcome.");
  return h("ul", { class: "eval-flips", "aria-label": "Flipped cases" }, report.flips.map((f) =>
    h("li", {}, `${f.case_id} on ${f.target}: ${f.before ? "pass → fail" : "fail → pass"}`)));
}

async function runView(el, runId, alive) {
  let compare = null;
  const others = (await listRuns(200)).items.filter((r) => r.id !== runId);
  const draw = async () => {
    const [run, report, results] = await Promise.all([getRun(runId), getReport(runId, compare), getResults(runId)]);
    if (!alive()) return null;
    const select = h("select", { "aria-label": "Compare with", onchange: (e) => { compare = e.target.value || null; draw(); } },
      h("option", { value: "" }, "Compare with another run…"),
      others.map((o) => h("option", { value: o.id, selected: o.id === compare }, `${o.name} · ${formatTime(o.created_at)}`)));
    replaceChildren(el,
      h("p", {}, h("a", { href: "#/evals" }, "← All runs")),
      h("h1", {}, run.name, " ", badge(run.status)),
      run.error ? h("p", { class: "eval-error", role: "status" }, run.error) : null,
      progressLine(run),
      run.status === "running" ? h("button", { type: "button", onclick: () => cancelRun(runId).then(draw, notifyError) }, "Cancel run") : null,
      comparison(report), passCostChart(report), select, flipList(report), caseGrid(run, results));
    return run;
  };
  const tick = async () => {
    try {
      const run = await draw();
      if (run?.status === "running" && alive()) setTimeout(tick, POLL_MS);
    } catch (err) {
      if (alive()) notifyError(err);
    }
  };
  await tick();
}

/** Show the runs (no ``runId``) or one run in ``main``; polling stops once it is replaced. */
export async function showEvals(main, runId) {
  const el = h("section", { class: "evals" }, h("p", { class: "loading" }, "Loading…"));
  main.replaceChildren(el);
  const alive = () => el.isConnected;
  try {
    if (runId) return await runView(el, runId, alive);
    const runs = await listRuns();
    if (alive()) el.replaceChildren(h("h1", {}, "Evaluations"), runList(runs));
  } catch (err) {
    if (alive()) el.replaceChildren(h("h1", {}, "Evaluations"), h("p", { class: "eval-error", role: "alert" }, err.message));
  }
  return undefined;
}
