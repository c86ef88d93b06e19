"""The closed sets of values of evaluations: run statuses and check types, named once."""

from __future__ import annotations

from typing import Literal, get_args

# running: cases are being run; the others are final. budget_exceeded: a spend limit
# refused a turn or cut one short; timed_out: the run's deadline passed; interrupted: the
# process running it stopped (shutdown or crash) before it finished.
EvalStatus = Literal[
    "running", "completed", "cancelled", "failed", "budget_exceeded", "timed_out", "interrupted"
]
# turn: the case's turn ended completed or partial; fact: an expected fact is in the answer.
CheckType = Literal[
    "turn",
    "fact",
    "contains",
    "not_contains",
    "regex",
    "json_schema",
    "tool_called",
    "max_cost",
    "max_latency",
    "judge",
]

EVAL_STATUSES: tuple[EvalStatus, ...] = get_args(EvalStatus)
FINAL_STATUSES: frozenset[EvalStatus] = frozenset(s for s in EVAL_STATUSES if s != "running")
CHECK_TYPES: tuple[CheckType, ...] = get_args(CheckType)
