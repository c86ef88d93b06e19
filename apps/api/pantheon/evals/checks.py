"""The checks that need no model: text, pattern, JSON schema, tool calls, cost, latency.

Pure functions of a case's ``Outcome``; each gives a ``CheckOutcome`` with a short reason,
so a report says why a case failed, not only that it did. CPU work: the runner calls
``run_checks`` in a worker thread (a regular expression over a long answer). A dataset's
patterns are untrusted: they run on RE2 (``patterns``), in time linear in the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pantheon.evals.cases import (
    Case,
    ContainsCheck,
    JsonSchemaCheck,
    JudgeCheck,
    MaxCostCheck,
    MaxLatencyCheck,
    NotContainsCheck,
    RegexCheck,
    ToolCalledCheck,
)
from pantheon.evals.patterns import PatternError, found, schema_validator
from pantheon.evals.schemas import CheckOutcome

_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ToolUse:
    name: str
    arguments: str  # the JSON text the model wrote


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one case's turn produced, as the checks see it."""

    answer: str
    turn_status: str
    cost_usd: float
    latency_ms: int
    tool_calls: tuple[ToolUse, ...] = field(default_factory=tuple)


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _has(answer: str, value: str, case_sensitive: bool) -> bool:
    if case_sensitive:
        return " ".join(value.split()) in " ".join(answer.split())
    return _folded(value) in _folded(answer)


def json_in(answer: str) -> Any:
    """The answer as JSON: the whole text, a fenced block, or its outermost ``{...}``."""
    candidates = [answer.strip(), *(m.strip() for m in _FENCE.findall(answer))]
    start, end = answer.find("{"), answer.rfind("}")
    if 0 <= start < end:
        candidates.append(answer[start : end + 1])
    for text in candidates:
        try:
            return json.loads(text)
        except ValueError:
            continue
    raise ValueError("the answer holds no JSON")


def _json_schema(check: JsonSchemaCheck, outcome: Outcome) -> CheckOutcome:
    try:
        value = json_in(outcome.answer)
    except ValueError as exc:
        return CheckOutcome(type="json_schema", passed=False, detail=str(exc))
    try:
        errors = sorted(schema_validator(check.json_schema).iter_errors(value), key=str)
    except PatternError as exc:  # a dataset stored before patterns ran on RE2
        return CheckOutcome(type="json_schema", passed=False, detail=str(exc))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(root)"
        return CheckOutcome(
            type="json_schema", passed=False, detail=f"{where}: {errors[0].message}"
        )
    return CheckOutcome(type="json_schema", passed=True, detail="matches the schema")


def _arguments_match(text: str, wanted: Mapping[str, Any]) -> bool:
    try:
        given = json.loads(text)
    except ValueError:
        return False
    return isinstance(given, dict) and all(given.get(k) == v for k, v in wanted.items())


def _tool_called(check: ToolCalledCheck, outcome: Outcome) -> CheckOutcome:
    named = [call for call in outcome.tool_calls if call.name == check.name]
    if not named:
        called = ", ".join(sorted({c.name for c in outcome.tool_calls})) or "none"
        return CheckOutcome(
            type="tool_called", passed=False, detail=f"{check.name} not called (called: {called})"
        )
    if check.arguments is not None and not any(
        _arguments_match(call.arguments, check.arguments) for call in named
    ):
        return CheckOutcome(
            type="tool_called",
            passed=False,
            detail=f"{check.name} called, never with {json.dumps(check.arguments)}",
        )
    return CheckOutcome(type="tool_called", passed=True, detail=f"{check.name} called")


def _pattern(check: RegexCheck, outcome: Outcome) -> CheckOutcome:
    try:
        hit = found(check.pattern, outcome.answer)
    except PatternError as exc:  # a dataset stored before patterns ran on RE2
        return CheckOutcome(type="regex", passed=False, detail=str(exc))
    return CheckOutcome(
        type="regex", passed=hit, detail=f"/{check.pattern}/ {'found' if hit else 'absent'}"
    )


def _text(check: ContainsCheck | NotContainsCheck | RegexCheck, outcome: Outcome) -> CheckOutcome:
    if isinstance(check, RegexCheck):
        return _pattern(check, outcome)
    present = _has(outcome.answer, check.value, check.case_sensitive)
    wanted = isinstance(check, ContainsCheck)
    word = "present" if present else "absent"
    return CheckOutcome(type=check.type, passed=present == wanted, detail=f"'{check.value}' {word}")


def _limit(check: MaxCostCheck | MaxLatencyCheck, outcome: Outcome) -> CheckOutcome:
    if isinstance(check, MaxCostCheck):
        ok = outcome.cost_usd <= check.usd
        detail = f"${outcome.cost_usd:.6f} of at most ${check.usd:.6f}"
        return CheckOutcome(type="max_cost", passed=ok, detail=detail)
    ok = outcome.latency_ms <= check.ms
    detail = f"{outcome.latency_ms} ms of at most {check.ms} ms"
    return CheckOutcome(type="max_latency", passed=ok, detail=detail)


def run_checks(case: Case, outcome: Outcome) -> list[CheckOutcome]:
    """Every fact and every check of ``case`` except the judges, in the case's order."""
    results = [
        CheckOutcome(
            type="fact",
            passed=_has(outcome.answer, fact, False),
            detail=f"'{fact}' {'present' if _has(outcome.answer, fact, False) else 'absent'}",
        )
        for fact in case.facts
    ]
    for check in case.checks:
        if isinstance(check, JudgeCheck):
            continue
        if isinstance(check, JsonSchemaCheck):
            results.append(_json_schema(check, outcome))
        elif isinstance(check, ToolCalledCheck):
            results.append(_tool_called(check, outcome))
        elif isinstance(check, MaxCostCheck | MaxLatencyCheck):
            results.append(_limit(check, outcome))
        else:
            results.append(_text(check, outcome))
    return results
