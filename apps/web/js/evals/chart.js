// The chart of pass rate against cost per case, one dot per target with its 95% interval,
// as inline SVG built node by node (no library, nothing fetched).

import { CHART, chartPoints } from "./chart-points.js";
import { formatCost } from "../text/format.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text !== null) el.textContent = text;
  return el;
}

function axes({ axis, costMax }) {
  const g = svg("g", { class: "chart-axes" });
  g.append(svg("line", { x1: axis.x0, y1: axis.y0, x2: axis.x1, y2: axis.y0 }),
    svg("line", { x1: axis.x0, y1: axis.y0, x2: axis.x0, y2: axis.y1 }));
  for (const rate of [0, 0.5, 1]) {
    const y = axis.y0 + (axis.y1 - axis.y0) * rate;
    g.append(svg("text", { x: axis.x0 - 8, y: y + 4, "text-anchor": "end" }, `${rate * 100}%`));
  }
  g.append(svg("text", { x: axis.x0, y: axis.y0 + 18, "text-anchor": "start" }, "$0"),
    svg("text", { x: axis.x1, y: axis.y0 + 18, "text-anchor": "end" },
      costMax ? formatCost(costMax) : "every target cost $0 per case"),
    svg("text", { x: (axis.x0 + axis.x1) / 2, y: axis.y0 + 36, "text-anchor": "middle" }, "cost per case"),
    svg("text", { x: 12, y: (axis.y0 + axis.y1) / 2, transform: `rotate(-90 12 ${(axis.y0 + axis.y1) / 2})`,
      "text-anchor": "middle" }, "pass rate"));
  return g;
}

/** report -> <svg> with one labelled dot per target (role img, titled for readers). */
export function passCostChart(report) {
  const layout = chartPoints(report.targets);
  const root = svg("svg", { class: "eval-chart", viewBox: `0 0 ${CHART.width} ${CHART.height}`,
    role: "img", "aria-label": "Pass rate against cost per case, one dot per target" });
  root.append(axes(layout));
  layout.points.forEach((p, n) => {
    const g = svg("g", { class: "chart-point", "data-index": p.index });
    g.append(svg("title", {}, `${p.label}: ${Math.round(p.rate * 100)}% at ${formatCost(p.cost)} per case`),
      svg("line", { class: "chart-ci", x1: p.x, x2: p.x, y1: p.low, y2: p.high }),
      svg("circle", { cx: p.x, cy: p.y, r: 5, "data-series": n % 6 }),
      svg("text", { x: p.x + 9, y: p.y - 6 - 12 * (n % 3), class: "chart-label" }, p.label));
    root.append(g);
  });
  return root;
}
