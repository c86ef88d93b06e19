// The eval chart's scales (apps/web/js/evals/chart-points.js): pass rate up, cost right,
// the 95% interval as a bar, a "nice" cost axis, and all-free targets at the left edge.

import assert from "node:assert/strict";
import { test } from "node:test";

import { CHART, chartPoints, niceMax } from "../../../apps/web/js/evals/chart-points.js";

const row = (index, rate, cost, low = rate, high = rate) => ({
  index, label: `t${index}`, pass_rate: rate, cost_per_case_usd: cost, ci_low: low, ci_high: high,
});

test("niceMax rounds up to 1, 2 or 5 times a power of ten", () => {
  assert.equal(niceMax(0), 0);
  assert.equal(niceMax(0.0031), 0.005);
  assert.equal(niceMax(1.2), 2);
  assert.equal(niceMax(7), 10);
});

test("a full pass rate sits at the top, none at the bottom, cost scales to the right", () => {
  const { points, axis, costMax } = chartPoints([row(0, 1, 0.001), row(1, 0, 0.002), row(2, 0.5, 0)]);
  assert.equal(costMax, 0.002);
  assert.deepEqual(points.map((p) => p.y), [axis.y1, axis.y0, (axis.y0 + axis.y1) / 2]);
  assert.equal(points[1].x, axis.x1);
  assert.equal(points[2].x, CHART.left);
  assert.equal(points[0].x, (axis.x0 + axis.x1) / 2);
});

test("the interval spans from the low to the high rate; unscored targets are left out", () => {
  const { points, axis } = chartPoints([row(0, 0.5, 0, 0.25, 0.75), row(1, null, 0)]);
  assert.equal(points.length, 1);
  const height = axis.y0 - axis.y1;
  assert.equal(points[0].low, axis.y0 - 0.25 * height);
  assert.equal(points[0].high, axis.y0 - 0.75 * height);
});

test("when every target is free, all sit at the left edge", () => {
  const { points, costMax } = chartPoints([row(0, 1, 0), row(1, 0.5, 0)]);
  assert.equal(costMax, 0);
  assert.deepEqual(points.map((p) => p.x), [CHART.left, CHART.left]);
});
