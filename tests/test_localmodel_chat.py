"""The local server's chat format: prompts reach SmolLM2 unescaped, tool results reach it
at all, and an answer the tool grammar left empty is asked again without tools.

The handler tests drive llama-cpp-python's real ``chatml-function-calling`` with a fake
``Llama`` that records the prompts; they need the ``local`` extra, not the server.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from pantheon.server.localmodel_chat import needs_message, prepared_messages

requires_llama_cpp = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="local extra not installed (llama_cpp missing); run make test-local",
)
QUOTED = 'it\'s <<BEGIN AGENT OUTPUTS>> "ok" & done'
CALL: dict[str, Any] = {
    "id": "c1",
    "type": "function",
    "function": {"name": "calculator", "arguments": '{"expression": "17 * 23"}'},
}
TOOL_LOOP: list[dict[str, Any]] = [
    {"role": "system", "content": "You are Analyst."},
    {"role": "user", "content": "What is 17 * 23?"},
    {"role": "assistant", "content": "", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "391"},
]
CALCULATOR: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Evaluate arithmetic.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}},
    },
}


def _answer(content: str | None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {"choices": [{"index": 0, "message": message}]}


def test_tool_results_become_a_user_message_restating_the_question() -> None:
    prepared = prepared_messages(TOOL_LOOP)
    assert [m["role"] for m in prepared] == ["system", "user", "assistant", "user"]
    assert prepared[3]["content"] == (
        "functions.calculator result: 391. Use this result to answer: What is 17 * 23?"
    )
    assert prepared[2]["tool_calls"][0]["function"]["name"] == "calculator"


def test_several_results_are_one_message_and_null_content_is_text() -> None:
    second = {**CALL, "id": "c2", "function": {"name": "current_time", "arguments": "{}"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Time and 17*23?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL, second]},
        {"role": "tool", "tool_call_id": "c1", "content": "391"},
        {"role": "tool", "tool_call_id": "c2", "content": "12:00."},
        {"role": "tool", "tool_call_id": "unknown", "content": "x"},
    ]
    prepared = prepared_messages(messages)
    assert prepared[1]["content"] == ""
    assert prepared[2]["content"] == (
        "functions.calculator result: 391.\nfunctions.current_time result: 12:00.\n"
        "functions.tool result: x. Use these results to answer: Time and 17*23?"
    )


def test_an_empty_or_repeated_answer_needs_a_message() -> None:
    assert needs_message(_answer(""), TOOL_LOOP)
    assert needs_message(_answer("functions.calculator:"), TOOL_LOOP)
    spaced = {"name": "calculator", "arguments": '{"expression":"17 * 23"}'}  # other spacing
    repeated = {**CALL, "id": "c9", "function": spaced}
    assert needs_message(_answer(None, [repeated]), TOOL_LOOP)
    assert not needs_message(_answer("391"), TOOL_LOOP)
    other = {**CALL, "function": {"name": "calculator", "arguments": '{"expression": "2+2"}'}}
    assert not needs_message(_answer(None, [other]), TOOL_LOOP)
    assert not needs_message({"choices": []}, TOOL_LOOP)


class FakeLlama:
    """Answers ``create_completion`` with queued texts and records every prompt."""

    verbose = False

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.prompts: list[str] = []

    def create_completion(self, prompt: str, **_: Any) -> dict[str, Any]:
        self.prompts.append(prompt)
        text = self.texts.pop(0)
        choice = {"text": text, "index": 0, "logprobs": None, "finish_reason": "stop"}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return {"id": "x", "object": "text_completion", "created": 0, "model": "m",
                "choices": [choice], "usage": usage}  # fmt: skip


def _handle(llama: FakeLlama, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
    from pantheon.server.localmodel_chat import chat_handler

    return chat_handler(llama=llama, messages=messages, stream=False, **kwargs)


@requires_llama_cpp
def test_prompts_reach_the_model_unescaped() -> None:
    llama = FakeLlama("fine")
    _handle(llama, [{"role": "system", "content": QUOTED}, {"role": "user", "content": QUOTED}])
    assert llama.prompts[0].count(QUOTED) == 2
    assert "&#" not in llama.prompts[0]
    assert "&lt;" not in llama.prompts[0]


@requires_llama_cpp
def test_the_tool_result_reaches_the_prompt_and_an_empty_message_is_asked_again() -> None:
    # "message:" picked, then the library's tool grammar ends it at once: no text.
    llama = FakeLlama("message:", "", "17 * 23 = 391.")
    answer = _handle(llama, TOOL_LOOP, tools=[CALCULATOR], tool_choice="auto")
    assert answer["choices"][0]["message"]["content"] == "17 * 23 = 391."
    assert len(llama.prompts) == 3
    assert "functions.calculator result: 391." in llama.prompts[-1]
    assert 'functions.calculator:\n{"expression": "17 * 23"}' in llama.prompts[-1]
    assert "You have access to the following functions" not in llama.prompts[-1]


@requires_llama_cpp
def test_a_new_tool_call_is_kept() -> None:
    llama = FakeLlama("functions.calculator", '{"expression": "2+2"}', "<|im_end|>")
    answer = _handle(llama, TOOL_LOOP[:2], tools=[CALCULATOR], tool_choice="auto")
    (call,) = answer["choices"][0]["message"]["tool_calls"]
    assert call["function"]["arguments"] == '{"expression": "2+2"}'
