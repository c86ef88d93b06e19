from __future__ import annotations

import pytest

from pantheon.engine.json_extract import (
    Routing,
    Verdict,
    extract_json_object,
    parse_continue,
    parse_review,
    parse_routing,
)

KEYS = ["alice", "bob", "carol", "dave"]


def test_plain_json() -> None:
    assert extract_json_object('{"a": 1}') == {"a": 1}


def test_fenced_json_wins_over_prose_braces() -> None:
    text = 'Use {braces} freely.\n```json\n{"Agents": ["bob"]}\n```\nDone {}'
    assert extract_json_object(text) == {"agents": ["bob"]}


def test_prose_around_the_first_balanced_object() -> None:
    text = 'Sure! Here: {"x": "a } in a string", "y": {"z": 2}} and more {"w": 1}'
    assert extract_json_object(text) == {"x": "a } in a string", "y": {"z": 2}}


@pytest.mark.parametrize("text", ["", "no json", "[1, 2]", "{broken", '{"a": }'])
def test_no_object(text: str) -> None:
    assert extract_json_object(text) is None


def test_routing_maps_keys_and_instructions() -> None:
    text = '{"agents": ["@Bob", "zed", "ALICE", "bob"], "instructions": {"BOB": " b ", "x": "y"}}'
    assert parse_routing(text, KEYS, 3) == Routing(["bob", "alice"], {"bob": "b"})


def test_routing_keeps_at_most_max_agents() -> None:
    text = '{"agents": ["alice", "bob", "carol", "dave"]}'
    assert parse_routing(text, KEYS, 2) == Routing(["alice", "bob"])


def test_routing_from_instruction_keys_when_agents_missing() -> None:
    text = 'ok: {"instructions": {"carol": "do it"}}'
    assert parse_routing(text, KEYS, 3) == Routing(["carol"], {"carol": "do it"})


def test_routing_accepts_a_single_string() -> None:
    assert parse_routing('{"agents": "dave"}', KEYS, 3) == Routing(["dave"])


@pytest.mark.parametrize(
    "text",
    ["alice and bob", '{"agents": []}', '{"agents": ["zed"]}', '{"agents": 3}', '["alice"]'],
)
def test_unusable_routing(text: str) -> None:
    assert parse_routing(text, KEYS, 3) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"continue": true}', True),
        ('```json\n{"Continue": false}\n```', False),
        ('I think {"continue": "yes"}', True),
        ('{"continue": "no"}', False),
        ('{"continue": "maybe"}', None),
        ('{"stop": true}', None),
        ("true", None),
        ("", None),
    ],
)
def test_parse_continue(text: str, expected: bool | None) -> None:
    assert parse_continue(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"approved": true, "score": 8, "feedback": " fine "}', Verdict(True, 8.0, "fine")),
        ('{"Approved": "no", "Score": "6/10"}', Verdict(False, 6.0, "")),
        ('```json\n{"approved": false, "score": 10, "feedback": 3}\n```', Verdict(False, 10.0, "")),
        ('{"approved": true, "score": 0}', Verdict(True, 0.0, "")),
        ('{"approved": true, "score": "85/100"}', Verdict(True, 8.5, "")),
        ('{"approved": true, "score": "great"}', Verdict(True, None, "")),
        ('{"approved": true, "score": true}', Verdict(True, None, "")),
        ('{"approved": true, "score": NaN}', Verdict(True, None, "")),
        ('{"approved": true, "score": "7/0"}', Verdict(True, None, "")),
    ],
)
def test_parse_review_is_tolerant(text: str, expected: Verdict) -> None:
    assert parse_review(text) == expected


@pytest.mark.parametrize(
    "text", ["looks good", '{"score": 9, "feedback": "ok"}', '{"approved": "maybe"}', "[1]"]
)
def test_parse_review_without_a_readable_flag_is_none(text: str) -> None:
    assert parse_review(text) is None


@pytest.mark.parametrize(
    "score",
    ["480", "503827916", '"0.59725E+13"', "14", "-2", "-0.5", "Infinity", '"11/10"'],
)
def test_parse_review_with_a_score_outside_0_to_10_is_unreadable(score: str) -> None:
    """An out-of-range score is a model that lost the format, never a clamped 10 or 0."""
    assert parse_review(f'{{"approved": true, "score": {score}, "feedback": "ok"}}') is None
