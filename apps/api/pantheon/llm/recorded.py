"""A gateway that answers from a recorded turn and pays only for what it has no record of.

A replay (docs/replay.md) runs the engine again on this gateway. Each request is matched
by its digest (``llm/digest.py``: alias, messages, tools, parameters, speaker, purpose);
requests with the same digest take the recorded calls of that digest in the order they
were made. A match streams the recorded text parts, tool calls and usage (or raises the
recorded error) with no upstream call; anything else falls through to the real gateway,
with its retries and deadlines, and is paid as usual. ``replays`` claims the match
before the call starts, so the engine asks the spend guard for nothing (ADR 0018).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass

from pantheon.error_codes import ErrorCode
from pantheon.llm.digest import request_digest
from pantheon.llm.errors import LLMError
from pantheon.llm.gateway import LLMGateway, closing_stream
from pantheon.llm.types import GatewayItem, LLMRequest, TextDelta, ToolCall, Usage


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One call as it settled: ``error_code`` set when it failed (after ``parts``)."""

    digest: str
    parts: tuple[str, ...]
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    error_code: str | None = None
    refusal: str | None = None


_CODES = {member.value: member for member in ErrorCode}


class ReplayedError(LLMError):
    """A recorded failure, raised again with its code and the upstream's refusal."""

    def __init__(self, code: str, refusal: str | None) -> None:
        super().__init__(f"recorded failure: {code}", refusal=refusal)
        self.code = _CODES.get(code, ErrorCode.LLM_ERROR)


class RecordedGateway(LLMGateway):
    """The real gateway's aliases and providers, with a record in front of them."""

    def __init__(self, real: LLMGateway, calls: Iterable[RecordedCall]) -> None:
        super().__init__(real.registry, real.providers, real.settings)
        self.real = real
        self._free: defaultdict[str, deque[RecordedCall]] = defaultdict(deque)
        self._claimed: defaultdict[str, deque[RecordedCall]] = defaultdict(deque)
        for call in calls:
            self._free[call.digest].append(call)
        self.served = 0  # calls answered from the record
        self.paid = 0  # calls that went to the real gateway

    def replays(self, request: LLMRequest) -> bool:
        """Claim the next recorded call with this request's digest, if there is one."""
        digest = request_digest(request)
        if not self._free[digest]:
            return False
        self._claimed[digest].append(self._free[digest].popleft())
        return True

    def _take(self, request: LLMRequest) -> RecordedCall | None:
        digest = request_digest(request)
        for pool in (self._claimed[digest], self._free[digest]):
            if pool:
                return pool.popleft()
        return None

    async def stream(self, request: LLMRequest) -> AsyncGenerator[GatewayItem, None]:
        """The recorded answer, or the real gateway's (retry notices included) when there
        is none."""
        call = self._take(request)
        if call is None:
            self.paid += 1
            async with closing_stream(self.real.stream(request)) as items:
                async for item in items:
                    yield item
            return
        self.served += 1
        for part in call.parts:
            yield TextDelta(part)
        for tool_call in call.tool_calls:
            yield tool_call
        if call.error_code is not None:
            raise ReplayedError(call.error_code, call.refusal)
        yield call.usage
