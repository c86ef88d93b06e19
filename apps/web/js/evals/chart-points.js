// Where each target sits on the pass-rate-against-cost chart: pure numbers, no DOM, so a
// node test can check the scales. x: cost per case (0 at the left), y: pass rate (1 at
// the top); the 95% interval is a vertical bar. All costs 0 (a local model): all at x 0.

export const CHART = { width: 560, height: 300, left: 56, right: 24, top: 16, bottom: 44 };

/** A "nice" upper bound for the cost axis: 1, 2 or 5 times a power of ten, >= max. */
export function niceMax(max) {
  if (!(max > 0)) return 0;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max);
}

/** targets: the report's rows -> [{label, x, y, low, high, rate, cost}] in SVG units. */
export function chartPoints(targets, frame = CHART) {
  const plotted = targets.filter((t) => t.pass_rate !== null && t.pass_rate !== undefined);
  const top = niceMax(Math.max(0, ...plotted.map((t) => t.cost_per_case_usd ?? 0)));
  const innerW = frame.width - frame.left - frame.right;
  const innerH = frame.height - frame.top - frame.bottom;
  const x = (cost) => frame.left + (top > 0 ? (cost / top) * innerW : 0);
  const y = (rate) => frame.top + (1 - rate) * innerH;
  return {
    costMax: top,
    points: plotted.map((t) => ({
      index: t.index, label: t.label, rate: t.pass_rate, cost: t.cost_per_case_usd ?? 0,
      x: x(t.cost_per_case_usd ?? 0), y: y(t.pass_rate),
      low: y(t.ci_low ?? t.pass_rate), high: y(t.ci_high ?? t.pass_rate),
    })),
    axis: { x0: frame.left, x1: frame.left + innerW, y0: frame.top + innerH, y1: frame.top },
  };
}
