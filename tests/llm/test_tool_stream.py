"""The tool-call assembler on its own: every fragment shape servers and models produce."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

from pantheon.llm.providers.tool_stream import (
    MAX_ARGUMENT_CHARS,
    MAX_TOOL_CALLS,
    ToolCallAssembler,
    calls_of,
    new_call_id,
)
from pantheon.llm.types import ToolCall
from tests.llm.mock_openai import fragment


def counter_ids() -> ToolCallAssembler:
    numbers = itertools.count(1)
    return ToolCallAssembler(lambda: f"gen_{next(numbers)}")


def assemble(*fragments: Any) -> list[ToolCall]:
    assembler = counter_ids()
    for item in fragments:
        assembler.add(item)
    return assembler.finish()


def test_arguments_split_anywhere_are_joined_by_index() -> None:
    calls = assemble(
        fragment(0, "call_a", "calculator", ""),
        fragment(1, "call_b", "current_time", '{"tz'),
        fragment(0, arguments='{"expr'),
        fragment(0, arguments='ession": "2+'),
        fragment(1, arguments='": "UTC"}'),
        fragment(0, arguments='2"}'),
    )
    assert calls == [
        ToolCall("call_a", "calculator", '{"expression": "2+2"}'),
        ToolCall("call_b", "current_time", '{"tz": "UTC"}'),
    ]


def test_a_repeated_id_at_the_same_index_continues_the_call() -> None:
    calls = assemble(
        fragment(0, "call_a", "calculator", '{"x": '),
        fragment(0, "call_a", arguments="1}"),
    )
    assert calls == [ToolCall("call_a", "calculator", '{"x": 1}')]


def test_a_new_id_at_a_used_index_starts_a_new_call() -> None:
    calls = assemble(
        fragment(0, "call_a", "calculator", '{"x": 1}'),
        fragment(0, "call_b", "calculator", '{"x": '),
        fragment(0, arguments="2}"),
    )
    assert calls == [
        ToolCall("call_a", "calculator", '{"x": 1}'),
        ToolCall("call_b", "calculator", '{"x": 2}'),
    ]


def test_a_missing_index_continues_the_last_call() -> None:
    calls = assemble(
        fragment(None, "call_a", "calculator", '{"x"'),
        fragment(None, arguments=": 1}"),
    )
    assert calls == [ToolCall("call_a", "calculator", '{"x": 1}')]


def test_a_missing_index_finds_the_call_by_id() -> None:
    calls = assemble(
        fragment(None, "call_a", "calculator", '{"x": '),
        fragment(None, "call_b", "current_time", "{}"),
        fragment(None, "call_a", arguments="1}"),
    )
    assert calls == [
        ToolCall("call_a", "calculator", '{"x": 1}'),
        ToolCall("call_b", "current_time", "{}"),
    ]


def test_a_missing_index_and_id_with_a_name_starts_a_new_call() -> None:
    calls = assemble(
        fragment(None, None, "calculator", '{"x": 1}'),
        fragment(None, None, "current_time", "{}"),
    )
    assert [c.name for c in calls] == ["calculator", "current_time"]
    assert [c.id for c in calls] == ["gen_1", "gen_2"]


def test_missing_ids_are_generated_once_per_call() -> None:
    calls = assemble(fragment(0, None, "calculator", '{"x"'), fragment(0, arguments=": 1}"))
    assert calls == [ToolCall("gen_1", "calculator", '{"x": 1}')]
    assert re.fullmatch(r"call_[0-9a-f]{24}", new_call_id())
    assert new_call_id() != new_call_id()


def test_an_id_arriving_late_names_the_call() -> None:
    calls = assemble(fragment(None, None, "calculator", "{"), fragment(None, "call_x", None, "}"))
    assert calls == [ToolCall("call_x", "calculator", "{}")]


def test_duplicate_ids_at_different_indexes_are_made_unique() -> None:
    calls = assemble(fragment(0, "same", "a", "{}"), fragment(1, "same", "b", "{}"))
    assert [c.id for c in calls] == ["same", "gen_1"]


def test_empty_arguments_are_an_empty_object_and_objects_become_json() -> None:
    calls = assemble(
        fragment(0, "c1", "current_time"),
        {"index": 1, "id": "c2", "function": {"name": "calculator", "arguments": {"x": 1}}},
    )
    assert [json.loads(c.arguments) for c in calls] == [{}, {"x": 1}]


@pytest.mark.parametrize(
    "junk",
    [None, 3, "text", [], {"type": "code_interpreter", "index": 0}, {"index": True}],
)
def test_malformed_fragments_are_ignored(junk: Any) -> None:
    assert assemble(junk, fragment(0, "c", "calculator", "{}")) == [
        ToolCall("c", "calculator", "{}")
    ]


def test_a_call_without_a_name_is_dropped() -> None:
    assert assemble(fragment(0, "c", None, '{"x": 1}')) == []


def test_wrong_types_inside_a_fragment_are_ignored() -> None:
    calls = assemble({"index": 0, "id": 5, "function": {"name": ["x"], "arguments": 7}})
    assert calls == []


def test_lone_surrogates_and_nul_become_replacement_characters() -> None:
    calls = assemble(
        fragment(0, "c\x00", "calc\ud800", '{"x": "a\x00\udfff'), fragment(0, arguments='"}')
    )
    assert calls == [ToolCall("c\ufffd", "calc\ufffd", '{"x": "a\ufffd\ufffd"}')]
    for call in calls:
        (call.id + call.name + call.arguments).encode("utf-8")


def test_a_surrogate_pair_split_over_fragments_is_rejoined() -> None:
    calls = assemble(fragment(0, "c", "f", '"\ud83d'), fragment(0, arguments='\ude00"'))
    assert calls[0].arguments == '"\U0001f600"'


def test_huge_arguments_are_cut_at_the_limit() -> None:
    piece = "x" * 300_000
    calls = assemble(fragment(0, "c", "f", '{"a": "'), *[fragment(0, arguments=piece)] * 5)
    assert len(calls[0].arguments) == MAX_ARGUMENT_CHARS
    with pytest.raises(ValueError, match="Unterminated"):
        json.loads(calls[0].arguments)


def test_at_most_max_tool_calls_per_answer() -> None:
    calls = assemble(*[fragment(i, f"c{i}", "f", "{}") for i in range(MAX_TOOL_CALLS + 10)])
    assert len(calls) == MAX_TOOL_CALLS


def test_finish_hands_out_once_and_starts_over() -> None:
    assembler = counter_ids()
    assembler.add(fragment(0, "c1", "f", "{}"))
    assert len(assembler.finish()) == 1
    assert assembler.finish() == []
    assembler.add(fragment(0, arguments="{}"))
    assembler.add(fragment(0, "c2", "g", None))
    assert assembler.finish() == [ToolCall("c2", "g", "{}")]


def test_non_streamed_calls_without_index_or_id_stay_apart() -> None:
    entries = [
        {"type": "function", "function": {"name": "calculator", "arguments": '{"x": 1}'}},
        {"type": "function", "function": {"name": "calculator", "arguments": '{"x": 2}'}},
    ]
    calls = calls_of(entries, new_id=iter(["g1", "g2"]).__next__)
    assert calls == [
        ToolCall("g1", "calculator", '{"x": 1}'),
        ToolCall("g2", "calculator", '{"x": 2}'),
    ]
    assert calls_of("not a list") == []


def test_an_id_that_needed_cleaning_still_matches_its_continuation() -> None:
    calls = assemble(
        fragment(None, "c\ud800", "f", "{"),
        fragment(None, "other", "g", "{}"),
        fragment(None, "c\ud800", None, "}"),
    )
    assert calls == [ToolCall("c\ufffd", "f", "{}"), ToolCall("other", "g", "{}")]
