"""A report as plain text for a terminal: the progress line and the comparison table."""

from __future__ import annotations

from typing import Any

BAR = 30


def progress_line(run: dict[str, Any]) -> str:
    """``[#####-----] 12/36 cases  passed 11  $0.0123  running``."""
    total, done = max(1, run["total"]), run["done"]
    filled = round(BAR * done / total)
    bar = "#" * filled + "-" * (BAR - filled)
    return (
        f"[{bar}] {done}/{run['total']} cases  passed {run['passed']}  "
        f"${run['cost_usd']:.4f}  {run['status']}"
    )


def _num(value: float | None, template: str) -> str:
    return "-" if value is None else template.format(value)


def report_text(run: dict[str, Any], report: dict[str, Any]) -> str:
    """The run's status, one row per target, then any flipped cases."""
    lines = [f"run {run['id']} ({run['name']}): {run['status']}"]
    if run.get("error"):
        lines.append(f"  {run['error']}")
    width = max([len(t["label"]) for t in report["targets"]] + [6])
    header = f"{'target':<{width}}  {'passed':>7}  {'rate':>5}  {'95% CI':>11}  {'judge':>5}"
    lines += ["", header + f"  {'cost/case':>10}  {'latency/case':>12}  {'calls':>5}"]
    for t in report["targets"]:
        interval = "-" if t["ci_low"] is None else f"{t['ci_low']:.2f}-{t['ci_high']:.2f}"
        lines.append(
            f"{t['label']:<{width}}  {t['passed']:>3}/{t['cases']:<3}  "
            f"{_num(t['pass_rate'], '{:.2f}'):>5}  {interval:>11}  "
            f"{_num(t['mean_judge_score'], '{:.1f}'):>5}  "
            f"{_num(t['cost_per_case_usd'], '${:.4f}'):>10}  "
            f"{_num(t['latency_per_case_ms'], '{:.0f} ms'):>12}  "
            f"{_num(t['calls_per_case'], '{:.1f}'):>5}"
        )
    if report.get("compared_with"):
        lines += ["", f"flipped since run {report['compared_with']}: {len(report['flips'])}"]
        for flip in report["flips"]:
            change = "pass -> fail" if flip["before"] else "fail -> pass"
            lines.append(f"  {flip['case_id']} on {flip['target']}: {change}")
    return "\n".join(lines) + "\n"
