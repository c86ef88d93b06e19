"""A deterministic fake provider for tests, demos and offline development.

Replies come from rules added with ``script``: the most recently added rule whose given
filters (model alias name, agent key, purpose) all equal the request's wins; a rule with
``times`` is dropped after that many uses. Without a matching rule the reply is a short,
readable echo of the request (``{"continue": false}`` for purpose ``evaluate``, an
approving verdict for purpose ``review``).
A reply is text, a ``ScriptedReply`` (text and tool calls), or a plain function of the
request (its messages, tools, purpose ...) returning either, like pydantic-ai's
``FunctionModel``: a test scripts a tool-using agent by looking at the last message.
It streams as text chunks of ``chunk_words`` words, whitespace kept, so the chunks join
to the text exactly, then each ``ToolCall``, then one ``Usage`` (estimated prompt tokens,
one output token per chunk and per tool call). The last ``log_size`` calls are kept in
``requests`` (a bounded log, so a long-running server does not grow), including whether
the caller stopped early (``cancelled``). Fenced text (``llm/fence.py``): replies, rules,
usage and ``RecordedRequest.request`` read it bare, as the engine asked; ``sent`` keeps it
as it was sent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pantheon.llm.errors import LLMError
from pantheon.llm.fence import unfence_request
from pantheon.llm.tokens import estimate_messages
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem, TextDelta, ToolCall, Usage

DEFAULT_LOG_SIZE = 1_000
_CALL_IDS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """A reply with tool calls: ``text`` streams first, then each call."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


Answer = str | ScriptedReply
Reply = Answer | Callable[[LLMRequest], Answer]


def tool_call(name: str, arguments: Mapping[str, Any] | str = "{}", id: str = "") -> ToolCall:
    """A complete call for a script; ``arguments`` as an object or the raw text a model
    wrote (to script malformed JSON); a fresh ``call_<n>`` id unless given."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id or f"call_{next(_CALL_IDS)}", name, text)


_WORD = re.compile(r"\S+\s*")


@dataclass(slots=True)
class RecordedRequest:
    """One call as the provider saw it; ``finished_at`` and ``cancelled`` are set when it
    ends. ``request`` is the call as the engine asked it (fences shown bare), ``sent``
    exactly as it reached the provider (``llm/fence.py``)."""

    request: LLMRequest
    alias: str
    started_at: float
    sent: LLMRequest | None = None
    finished_at: float | None = None
    cancelled: bool = False


@dataclass(slots=True)
class _Rule:
    reply: Reply
    model: str | None
    agent: str | None
    purpose: str | None
    times: int | None
    error: LLMError | None
    error_at_chunk: int | None
    delay_s: float
    chunk_delay_s: float

    def matches(self, alias: ModelAlias, request: LLMRequest) -> bool:
        return (
            (self.model is None or self.model == alias.name)
            and (self.agent is None or self.agent == request.agent_key)
            and (self.purpose is None or self.purpose == request.purpose)
        )


def split_chunks(text: str, chunk_words: int = 1) -> list[str]:
    """Split ``text`` into chunks of ``chunk_words`` words; ``"".join`` gives it back."""
    words = _WORD.findall(text)
    if not words:
        return [text] if text else []
    words[0] = text[: len(text) - len(text.lstrip())] + words[0]
    step = max(1, chunk_words)
    return ["".join(words[i : i + step]) for i in range(0, len(words), step)]


def default_reply(request: LLMRequest) -> str:
    """The reply when no rule matches: deterministic and derived from the request."""
    if request.purpose == "evaluate":
        return '{"continue": false}'
    if request.purpose == "review":
        return '{"approved": true, "score": 8, "feedback": "Looks right."}'
    last_user = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    echo = " ".join(last_user.split())[:80]
    return f"{request.agent_key or request.purpose}: {echo}"


class ScriptedProvider:
    """The ``scripted`` provider; see the module docstring for the matching rules."""

    def __init__(
        self,
        *,
        chunk_words: int = 1,
        default: Reply | None = None,
        log_size: int = DEFAULT_LOG_SIZE,
    ) -> None:
        if log_size < 1:
            raise ValueError("log_size must be at least 1")
        self.chunk_words = chunk_words
        self.default: Reply = default if default is not None else default_reply
        self._log: deque[RecordedRequest] = deque(maxlen=log_size)
        self._rules: list[_Rule] = []

    @property
    def requests(self) -> list[RecordedRequest]:
        """The most recent calls (at most ``log_size``), oldest first."""
        return list(self._log)

    def script(
        self,
        reply: Reply = "",
        *,
        model: str | None = None,
        agent: str | None = None,
        purpose: str | None = None,
        times: int | None = None,
        error: LLMError | None = None,
        error_at_chunk: int | None = None,
        delay_s: float = 0.0,
        chunk_delay_s: float = 0.0,
    ) -> None:
        """Add a rule; it takes precedence over every rule added before it."""
        if times is not None and times < 1:
            raise ValueError("times must be at least 1")
        rule = _Rule(
            reply, model, agent, purpose, times, error, error_at_chunk, delay_s, chunk_delay_s
        )
        self._rules.append(rule)

    def calls(self, purpose: str | None = None, agent: str | None = None) -> list[RecordedRequest]:
        """Recorded calls, optionally filtered by purpose and agent key."""
        return [
            r
            for r in self._log
            if (purpose is None or r.request.purpose == purpose)
            and (agent is None or r.request.agent_key == agent)
        ]

    def reset(self) -> None:
        """Forget every rule and every recorded call."""
        self._rules.clear()
        self._log.clear()

    async def stream(
        self, alias: ModelAlias, request: LLMRequest
    ) -> AsyncGenerator[StreamItem, None]:
        asked = unfence_request(request)  # replies and usage read the text bare
        record = RecordedRequest(asked, alias.name, time.monotonic(), sent=request)
        self._log.append(record)
        cancelled = False
        try:
            async for item in self._play(self._take_rule(alias, asked), asked):
                yield item
        except (GeneratorExit, asyncio.CancelledError):
            cancelled = True
            raise
        finally:
            record.finished_at = time.monotonic()
            record.cancelled = cancelled

    def _take_rule(self, alias: ModelAlias, request: LLMRequest) -> _Rule | None:
        for rule in reversed(self._rules):
            if rule.matches(alias, request):
                if rule.times is not None:
                    rule.times -= 1
                    if rule.times == 0:
                        self._rules.remove(rule)
                return rule
        return None

    async def _play(self, rule: _Rule | None, request: LLMRequest) -> AsyncIterator[StreamItem]:
        reply = rule.reply if rule is not None else self.default
        answer = reply(request) if callable(reply) else reply
        if isinstance(answer, str):
            answer = ScriptedReply(answer)
        chunks = split_chunks(answer.text, self.chunk_words)
        # error_at_chunk=None fails before any delta; past the end, after the last one.
        fail_at = None if rule is None or rule.error is None else rule.error_at_chunk or 0
        if rule is not None and rule.delay_s > 0:
            await asyncio.sleep(rule.delay_s)
        for index, chunk in enumerate(chunks):
            if rule is not None and rule.error is not None and index == fail_at:
                raise rule.error
            if index and rule is not None and rule.chunk_delay_s > 0:
                await asyncio.sleep(rule.chunk_delay_s)
            yield TextDelta(chunk)
        if rule is not None and rule.error is not None:
            raise rule.error
        for call in answer.tool_calls:
            yield call
        outputs = len(chunks) + len(answer.tool_calls)
        yield Usage(input_tokens=estimate_messages(request.messages), output_tokens=outputs)
