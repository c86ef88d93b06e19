"""A started completion's answer: one ``chat.completion``, or its ``chat.completion.chunk``s.

Both read the same typed events through the same ``Narration``. The stream sends a first chunk
with the role, one chunk per piece (``content`` or ``reasoning_content``), a last chunk
with ``finish_reason``, the usage chunk (``choices: []``) when the client asked for it,
then ``[DONE]``; every chunk carries the one id ``chatcmpl-<turn id>``. A turn that fails
after the stream started ends it with an ``{"error": ...}`` data line, which OpenAI's
SDKs raise as an error. A client that goes away mid-stream cancels the turn.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from pantheon.engine.narration import Narration
from pantheon.protocols.openai.errors import error_body
from pantheon.protocols.openai.schemas import AssistantMessage, ChatCompletion, Choice, Usage, chunk
from pantheon.protocols.openai.service import Completion, FacadeService, outcome_error

DONE = "[DONE]"


async def complete(
    service: FacadeService, owner_id: uuid.UUID, completion: Completion
) -> ChatCompletion:
    """Wait for the whole turn; raises the OpenAI-mapped error when it produced no answer."""
    transcript = Narration()
    parts: dict[str, list[str]] = {"content": [], "reasoning_content": []}
    async with contextlib.aclosing(service.events(owner_id, completion)) as events:
        async for event in events:
            for field, text in transcript.feed(event):
                parts[field].append(text)
    error = outcome_error(transcript, completion.turn.turn_id)
    if error is not None:
        raise error
    reasoning = "".join(parts["reasoning_content"])
    message = AssistantMessage(
        content="".join(parts["content"]), reasoning_content=reasoning or None
    )
    return ChatCompletion(
        id=completion.id,
        created=completion.created,
        model=completion.model,
        choices=[Choice(message=message)],
        usage=Usage.of(transcript.usage),
    )


def _data(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


async def stream(
    service: FacadeService, owner_id: uuid.UUID, completion: Completion
) -> AsyncIterator[str]:
    """The SSE ``data`` payloads of the streamed answer, ``[DONE]`` last."""
    transcript = Narration()
    usage_field = completion.request.include_usage

    def piece(delta: dict[str, Any] | None, finish: str | None = None) -> str:
        return _data(
            chunk(
                completion.id, completion.created, completion.model, delta,
                finish_reason=finish, with_usage_field=usage_field,
            )
        )  # fmt: skip

    try:
        yield piece({"role": "assistant", "content": ""})
        async with contextlib.aclosing(service.events(owner_id, completion)) as events:
            async for event in events:
                for field, text in transcript.feed(event):
                    yield piece({field: text})
    finally:
        if not transcript.finished:
            completion.cancel()  # the client went away: nobody can resume this turn
    error = outcome_error(transcript, completion.turn.turn_id)
    if error is not None:
        yield _data(error_body(error.status_code, error.message, error.code))
        yield DONE
        return
    yield piece({}, "stop")
    if usage_field:
        usage = Usage.of(transcript.usage)
        body = chunk(completion.id, completion.created, completion.model, None, usage=usage)
        yield _data(body)
    yield DONE
