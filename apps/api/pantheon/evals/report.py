"""A run's report: per target, the pass rate with a bootstrap 95% interval, the mean judge
score, and cost, latency, tokens and calls per case; and which cases flipped between two
runs. Pure functions of result rows; the bootstrap is seeded by the run's ``seed`` and
the target's index, so a report reads the same every time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import fmean

from pantheon.db.eval_models import EvalResult
from pantheon.evals.schemas import Flip, TargetRead, TargetReport

RESAMPLES = 2000


def bootstrap_interval(outcomes: Sequence[bool], seed: int) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the pass rate over ``RESAMPLES`` resamples."""
    rng = random.Random(seed)
    n = len(outcomes)
    rates = sorted(sum(rng.choices(outcomes, k=n)) / n for _ in range(RESAMPLES))
    low = rates[math.floor(0.025 * (RESAMPLES - 1))]
    high = rates[math.ceil(0.975 * (RESAMPLES - 1))]
    return low, high


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def target_report(target: TargetRead, rows: Sequence[EvalResult], seed: int) -> TargetReport:
    """The figures of one target over its scored cases (``passed`` not null)."""
    scored = [row for row in rows if row.passed is not None]
    outcomes = [bool(row.passed) for row in scored]
    passed = sum(outcomes)
    interval = bootstrap_interval(outcomes, seed * 1000 + target.index) if outcomes else None
    judged = [row.judge_score for row in scored if row.judge_score is not None]
    return TargetReport(
        index=target.index,
        label=target.label,
        cases=len(scored),
        passed=passed,
        pass_rate=passed / len(scored) if scored else None,
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        mean_judge_score=_mean(judged),
        cost_per_case_usd=_mean([row.cost_usd for row in scored]),
        latency_per_case_ms=_mean([float(row.latency_ms) for row in scored]),
        tokens_per_case=_mean([float(row.input_tokens + row.output_tokens) for row in scored]),
        calls_per_case=_mean([float(row.calls) for row in scored]),
    )


def build_targets(
    targets: Sequence[TargetRead], rows: Sequence[EvalResult], seed: int
) -> list[TargetReport]:
    return [
        target_report(target, [row for row in rows if row.target_index == target.index], seed)
        for target in targets
    ]


def _outcomes(
    targets: Sequence[TargetRead], rows: Sequence[EvalResult]
) -> dict[tuple[str, str], bool]:
    labels = {target.index: target.label for target in targets}
    return {
        (row.case_id, labels[row.target_index]): bool(row.passed)
        for row in rows
        if row.passed is not None and row.target_index in labels
    }


def flips(
    before: tuple[Sequence[TargetRead], Sequence[EvalResult]],
    after: tuple[Sequence[TargetRead], Sequence[EvalResult]],
) -> list[Flip]:
    """Cases (by id) on targets (by label) scored in both runs whose outcome changed."""
    old, new = _outcomes(*before), _outcomes(*after)
    return [
        Flip(case_id=case_id, target=label, before=old[(case_id, label)], after=passed)
        for (case_id, label), passed in sorted(new.items())
        if (case_id, label) in old and old[(case_id, label)] != passed
    ]
