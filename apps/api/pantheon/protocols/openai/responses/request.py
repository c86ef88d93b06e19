"""A Responses API request -> the chat facade's ``TurnRequest``, with the same rules.

``instructions`` and system/developer items are the user's instructions to every agent;
the last user message is the turn; earlier user and assistant messages are the history
(ignored when ``previous_response_id`` continues a stored session, whose own history is
used). Client tools, non-text content and structured output are 400s naming the field.
"""

from __future__ import annotations

from typing import Any

from pantheon.protocols.openai.errors import InvalidRequest
from pantheon.protocols.openai.request import to_turn
from pantheon.protocols.openai.responses.schemas import InputItem, ResponseCreate
from pantheon.protocols.openai.schemas import ChatCompletionCreate, ChatMessageIn, ContentPart
from pantheon.settings import TurnSettings

_TOOLS = "Pantheon's agents use the tools configured on them, not the client's"
# Fields the Responses API defines that a turn cannot honour; values meaning "off" pass.
_UNSUPPORTED: dict[str, tuple[str, tuple[Any, ...]]] = {
    "tools": (_TOOLS, (None, [])),
    "tool_choice": (_TOOLS, (None, "none", "auto")),
    "text": ("the answer is the agents' text; structured output is not supported",
             (None, {}, {"format": {"type": "text"}})),
    "reasoning": ("agents keep their own model settings", (None, {})),
    "include": ("there are no extra outputs to include", (None, [])),
    "conversation": ("use previous_response_id to continue a session", (None,)),
    "prompt": ("stored prompts are not supported", (None,)),
    "top_logprobs": ("a turn's text comes from several calls", (None, 0)),
    "max_tool_calls": (_TOOLS, (None,)),
    "stream_options": ("there are no stream options", (None, {})),
    "prompt_cache_key": ("agents keep their own model settings", (None,)),
}  # fmt: skip
_ROLES = {"user", "assistant", "system", "developer"}
_TEXT_PARTS = {"input_text", "output_text", "text"}


def _check(body: ResponseCreate) -> None:
    for name, value in body.extra_fields().items():
        why, off = _UNSUPPORTED.get(name, ("", ()))
        if not why:
            raise InvalidRequest(f"unsupported field '{name}'", param=name)
        if value not in off:
            raise InvalidRequest(f"'{name}' is not supported: {why}", param=name)
    if body.background and body.store is False:
        raise InvalidRequest("background responses must be stored (store=true)", param="store")
    if body.previous_response_id and body.store is False:
        raise InvalidRequest(
            "store=false cannot continue a stored response: the turn would be recorded "
            "in its session",
            param="store",
        )


def _message(index: int, item: InputItem) -> ChatMessageIn:
    where = f"input[{index}]"
    if item.type not in (None, "message"):
        raise InvalidRequest(
            f"{where}: an item of type '{item.type}' is not supported; {_TOOLS}, and turns "
            "take message items only",
            param=f"{where}.type",
        )
    if item.role not in _ROLES:
        raise InvalidRequest(
            f"{where}.role must be one of {', '.join(sorted(_ROLES))}", param=f"{where}.role"
        )
    content: str | list[ContentPart] | None
    if isinstance(item.content, list):
        for part in item.content:
            if part.type not in _TEXT_PARTS or part.text is None:
                raise InvalidRequest(
                    f"{where}.content: a part of type '{part.type}' is not supported; "
                    "Pantheon turns are text only",
                    param=f"{where}.content",
                )
        content = [ContentPart(type="text", text=p.text) for p in item.content]
    else:
        content = item.content
    return ChatMessageIn(role=item.role, content=content)


def to_chat(body: ResponseCreate, limits: TurnSettings) -> ChatCompletionCreate:
    """``body`` as the chat request the facade runs; 400 naming what a turn cannot honour."""
    _check(body)
    messages: list[ChatMessageIn] = []
    if body.instructions:
        messages.append(ChatMessageIn(role="system", content=body.instructions))
    if isinstance(body.input, str):
        messages.append(ChatMessageIn(role="user", content=body.input))
    else:
        messages.extend(_message(i, item) for i, item in enumerate(body.input))
    if not messages:
        raise InvalidRequest(
            "input: the last message must be the user's; input is empty", param="input"
        )
    chat = ChatCompletionCreate(model=body.model, messages=messages, stream=body.stream)
    try:
        to_turn(chat, limits)
    except InvalidRequest as exc:
        raise InvalidRequest(f"input: {exc.message}", param="input") from exc
    return chat
