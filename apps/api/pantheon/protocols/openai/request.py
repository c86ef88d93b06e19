"""An OpenAI chat request -> the turn it asks for: message, history, instructions.

The last message must be the user's: it is the turn. System (and ``developer``) messages,
wherever they are, are the user's instructions to every agent. The user and assistant
messages before the last are the history. Everything a turn cannot honour is a 400 that
names the field: several choices, client tools, logprobs, non-text content, unknown
fields. Accepted but not applied: the sampling knobs listed in ``ACCEPTED``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pantheon.engine.snapshot import ClientContext, HistoryEntry
from pantheon.protocols.openai.errors import InvalidRequest
from pantheon.protocols.openai.schemas import ChatCompletionCreate, ChatMessageIn
from pantheon.settings import TurnSettings

# Fields OpenAI defines that a Pantheon turn cannot honour, and why.
_TOOLS = "Pantheon's agents use the tools configured on them, not the client's"
UNSUPPORTED: dict[str, str] = {
    "tools": _TOOLS,
    "tool_choice": _TOOLS,
    "functions": _TOOLS,
    "function_call": _TOOLS,
    "parallel_tool_calls": _TOOLS,
    "logprobs": "a turn's text comes from several calls, so there are no logprobs",
    "top_logprobs": "a turn's text comes from several calls, so there are no logprobs",
    "logit_bias": "agents keep their own sampling settings",
    "response_format": "the answer is the agents' text; structured output is not supported",
    "audio": "turns are text only",
    "modalities": "turns are text only",
    "prediction": "predicted outputs are not supported",
}
# Values of those fields that mean "feature off": accepted, so default-filled clients work.
_OFF_VALUES: dict[str, tuple[Any, ...]] = {
    "tools": (None, []),
    "tool_choice": (None, "none", "auto"),
    "functions": (None, []),
    "function_call": (None, "none", "auto"),
    "parallel_tool_calls": (None, True, False),
    "logprobs": (None, False),
    "top_logprobs": (None, 0),
    "logit_bias": (None, {}),
    "response_format": (None, {"type": "text"}),
    "modalities": (None, ["text"]),
}
# Accepted for compatibility but not applied (documented in docs/openai.md).
ACCEPTED = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "user")
ACCEPTED_EXTRA = frozenset({"metadata", "store", "service_tier"})
MAX_STOP = 4


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """What the completion asks Pantheon to run."""

    message: str
    context: ClientContext
    stream: bool
    include_usage: bool


def _check_fields(body: ChatCompletionCreate) -> None:
    if body.n is not None and body.n > 1:
        raise InvalidRequest(
            f"n={body.n} is not supported: a turn gives one answer (n=1)", param="n"
        )
    if isinstance(body.stop, list) and len(body.stop) > MAX_STOP:
        raise InvalidRequest(
            f"stop takes at most {MAX_STOP} sequences, got {len(body.stop)}", param="stop"
        )
    for name, value in (body.model_extra or {}).items():
        if name in UNSUPPORTED:
            if value not in _OFF_VALUES.get(name, (None,)):
                raise InvalidRequest(f"'{name}' is not supported: {UNSUPPORTED[name]}", param=name)
        elif name not in ACCEPTED_EXTRA:
            raise InvalidRequest(f"unsupported field '{name}'", param=name)


def _text(index: int, message: ChatMessageIn) -> str:
    where = f"messages[{index}]"
    extra = message.model_extra or {}
    for name in ("tool_calls", "function_call", "tool_call_id"):
        if extra.get(name):
            raise InvalidRequest(f"{where}.{name}: {_TOOLS}", param=f"{where}.{name}")
    if message.role in ("tool", "function"):
        raise InvalidRequest(
            f"{where}: role '{message.role}' is not supported: {_TOOLS}", param=where
        )
    if message.content is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    texts = []
    for part in message.content:
        if part.type != "text" or part.text is None:
            raise InvalidRequest(
                f"{where}.content: a part of type '{part.type}' is not supported; "
                "Pantheon turns are text only",
                param=f"{where}.content",
            )
        texts.append(part.text)
    return "\n".join(texts)


def _instructions(parts: list[str], limits: TurnSettings) -> str | None:
    joined = "\n\n".join(p.strip() for p in parts if p.strip())
    if len(joined) > limits.max_message_chars:
        raise InvalidRequest(
            f"system messages are {len(joined)} characters; the limit is "
            f"{limits.max_message_chars} (PANTHEON_TURNS__MAX_MESSAGE_CHARS)"
        )
    return joined or None


def to_turn(body: ChatCompletionCreate, limits: TurnSettings) -> TurnRequest:
    """Validate ``body`` and split its messages into the turn's parts (see module doc)."""
    _check_fields(body)
    system: list[str] = []
    history: list[HistoryEntry] = []
    for index, message in enumerate(body.messages):
        text = _text(index, message)
        if message.role in ("system", "developer"):
            system.append(text)
        elif message.role == "user":
            history.append(HistoryEntry("user", text))
        else:
            history.append(HistoryEntry("assistant", text))
    if not history or history[-1].role != "user":
        raise InvalidRequest(
            "the last message (besides system messages) must be the user's", param="messages"
        )
    last = history.pop()
    if not last.content.strip():
        raise InvalidRequest("the last user message is empty", param="messages")
    kept = history[len(history) - limits.history_messages :] if limits.history_messages else []
    context = ClientContext(history=tuple(kept), instructions=_instructions(system, limits))
    include_usage = body.stream_options is not None and body.stream_options.include_usage
    return TurnRequest(last.content, context, bool(body.stream), include_usage)
