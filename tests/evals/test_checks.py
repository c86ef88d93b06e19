"""The checks and the judge's verdict reader as pure functions: each passes and fails
where it should, and says why."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from pantheon.db.eval_models import EvalDataset
from pantheon.evals.cases import Case
from pantheon.evals.checks import Outcome, ToolUse, json_in, run_checks
from pantheon.evals.judge import read_score
from pantheon.evals.report import bootstrap_interval
from pantheon.evals.views import dataset_cases


def _outcome(answer: str, **kw: object) -> Outcome:
    base: dict[str, object] = {"turn_status": "completed", "cost_usd": 0.002, "latency_ms": 900}
    return Outcome(answer=answer, **{**base, **kw})  # type: ignore[arg-type]


def _run(checks: list[dict[str, object]], answer: str, **kw: object) -> list[tuple[bool, str]]:
    case = Case.model_validate({"id": "c", "message": "q", "checks": checks})
    return [(c.passed, c.detail) for c in run_checks(case, _outcome(answer, **kw))]


def test_facts_ignore_case_and_spacing() -> None:
    case = Case.model_validate({"id": "c", "message": "q", "facts": ["New  York", "Paris"]})
    found = run_checks(case, _outcome("It is new york."))
    assert [(c.type, c.passed, c.detail) for c in found] == [
        ("fact", True, "'New  York' present"),
        ("fact", False, "'Paris' absent"),
    ]


def test_contains_and_not_contains_and_case() -> None:
    checks: list[dict[str, object]] = [
        {"type": "contains", "value": "Mars"},
        {"type": "contains", "value": "MARS", "case_sensitive": True},
        {"type": "not_contains", "value": "venus"},
        {"type": "not_contains", "value": "red"},
    ]
    assert _run(checks, "Mars is red.") == [
        (True, "'Mars' present"),
        (False, "'MARS' absent"),
        (True, "'venus' absent"),
        (False, "'red' present"),
    ]


def test_regex() -> None:
    checks: list[dict[str, object]] = [{"type": "regex", "pattern": r"\b36[56]\b"}]
    assert _run(checks, "366 days") == [(True, "/\\b36[56]\\b/ found")]
    assert _run(checks, "3660 days") == [(False, "/\\b36[56]\\b/ absent")]


EVIL = "^(a+)+$"  # Python's re backtracks through 2^27 splits on the answer below
NOT_QUITE = "a" * 27 + "!"


def test_a_catastrophic_regex_gets_its_verdict_on_re2() -> None:
    checks: list[dict[str, object]] = [
        {"type": "regex", "pattern": EVIL},
        {"type": "regex", "pattern": "(a+)+!"},
    ]
    assert _run(checks, NOT_QUITE) == [(False, f"/{EVIL}/ absent"), (True, "/(a+)+!/ found")]


def test_json_schema_patterns_run_on_re2() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": EVIL}},
        "patternProperties": {EVIL: {"type": "integer"}},
        "additionalProperties": False,
    }
    check: list[dict[str, object]] = [{"type": "json_schema", "schema": schema}]
    assert _run(check, json.dumps({"name": NOT_QUITE})) == [
        (False, f"name: {NOT_QUITE!r} does not match {EVIL!r}")
    ]
    assert _run(check, json.dumps({"name": "aaa", NOT_QUITE: 1})) == [
        (False, f"(root): {NOT_QUITE!r} do not match any of the regexes: {EVIL!r}")
    ]
    assert _run(check, json.dumps({"name": "aaa", "aa": "x"})) == [
        (False, "aa: 'x' is not of type 'integer'")
    ]
    assert _run(check, json.dumps({"name": "aaa", "aa": 2})) == [(True, "matches the schema")]
    # RE2's syntax, which Python's re does not know: the check is not run by re.
    greek: list[dict[str, object]] = [
        {"type": "json_schema", "schema": {"type": "string", "pattern": r"^\p{Greek}+$"}}
    ]
    assert _run(greek, '"αβγ"') == [(True, "matches the schema")]
    assert _run(greek, '"abc"')[0][0] is False


@pytest.mark.parametrize(
    "check",
    [
        {"type": "regex", "pattern": r"(?<=x)y"},
        {"type": "json_schema", "schema": {"properties": {"a": {"pattern": r"(a)\1"}}}},
        {"type": "json_schema", "schema": {"patternProperties": {"(?!x)": {}}}},
        {
            "type": "json_schema",
            "schema": {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "patternProperties": {"(?!x)": {}},
            },
        },
    ],
)
def test_a_pattern_re2_cannot_compile_is_refused(check: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="is not an RE2 regular expression"):
        Case.model_validate({"id": "c", "message": "q", "checks": [check]})


def test_unevaluated_properties_with_pattern_properties_is_refused() -> None:
    schema = {"patternProperties": {"^a": {}}, "unevaluatedProperties": False}
    with pytest.raises(ValidationError, match="cannot be combined with patternProperties"):
        Case.model_validate(
            {"id": "c", "message": "q", "checks": [{"type": "json_schema", "schema": schema}]}
        )


def test_a_stored_pattern_re2_refuses_fails_its_check_saying_why() -> None:
    stored = {"id": "c", "message": "q", "checks": [
        {"type": "regex", "pattern": "(?=a)"},
        {"type": "json_schema", "schema": {"type": "string", "pattern": "(?=a)"}},
    ]}  # fmt: skip
    case = dataset_cases(EvalDataset(cases=[stored]))[0]
    why = "/(?=a)/ is not an RE2 regular expression (invalid perl operator: (?=)"
    assert [(c.passed, c.detail) for c in run_checks(case, _outcome('"a"'))] == [
        (False, why),
        (False, why),
    ]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"city": "Paris"}', (True, "matches the schema")),
        ('Sure:\n```json\n{"city": "Paris"}\n```', (True, "matches the schema")),
        ('It is {"city": "Paris"} there', (True, "matches the schema")),
        ('{"city": 5}', (False, "city: 5 is not of type 'string'")),
        ("{}", (False, "(root): 'city' is a required property")),
        ("Paris", (False, "the answer holds no JSON")),
    ],
)
def test_json_schema(answer: str, expected: tuple[bool, str]) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    assert _run([{"type": "json_schema", "schema": schema}], answer) == [expected]


def test_json_in_refuses_text_without_json() -> None:
    with pytest.raises(ValueError, match="no JSON"):
        json_in("{not json}")


def test_tool_called_with_and_without_arguments() -> None:
    calls = (ToolUse("calculator", '{"expression": "17 * 23"}'), ToolUse("clock", "not json"))
    checks: list[dict[str, object]] = [
        {"type": "tool_called", "name": "calculator"},
        {"type": "tool_called", "name": "calculator", "arguments": {"expression": "17 * 23"}},
        {"type": "tool_called", "name": "calculator", "arguments": {"expression": "2"}},
        {"type": "tool_called", "name": "clock", "arguments": {"tz": "UTC"}},
        {"type": "tool_called", "name": "search"},
    ]
    assert _run(checks, "", tool_calls=calls) == [
        (True, "calculator called"),
        (True, "calculator called"),
        (False, 'calculator called, never with {"expression": "2"}'),
        (False, 'clock called, never with {"tz": "UTC"}'),
        (False, "search not called (called: calculator, clock)"),
    ]


def test_cost_and_latency_limits() -> None:
    checks: list[dict[str, object]] = [
        {"type": "max_cost", "usd": 0.01},
        {"type": "max_cost", "usd": 0.001},
        {"type": "max_latency", "ms": 900},
        {"type": "max_latency", "ms": 899},
    ]
    assert [passed for passed, _ in _run(checks, "x")] == [True, False, True, False]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"score": 8, "reason": " fine "}', (8.0, "fine")),
        ('```json\n{"Score": "7.5"}\n```', (7.5, "")),
        ('{"score": 11}', None),
        ('{"score": true}', None),
        ('{"score": "high"}', None),
        ('{"reason": "no score"}', None),
        ("nine out of ten", None),
    ],
)
def test_read_score(text: str, expected: tuple[float, str] | None) -> None:
    assert read_score(text) == expected


def test_the_bootstrap_is_seeded_and_brackets_the_rate() -> None:
    outcomes = [True] * 9 + [False] * 3
    low, high = bootstrap_interval(outcomes, seed=7)
    assert (low, high) == bootstrap_interval(outcomes, seed=7)
    assert low < 0.75 < high
    assert bootstrap_interval([True] * 5, seed=1) == (1.0, 1.0)
