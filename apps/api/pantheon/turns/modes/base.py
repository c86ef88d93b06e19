"""The contract between the engine and the modes, and the machinery they share.

Promises:
- A mode (``TurnMode``) decides who speaks and when to stop; it yields events and fills
  ``ctx.record`` only through ``TurnContext``, never touching the database or HTTP.
- ``TurnContext.prepare`` fixes a speaker's place in ``record.messages`` when it is
  called (so persisted order is decision order, not finish order); ``speak`` then
  streams it: ``agent_started`` (or ``synthesis_started``), ``delta``s,
  ``agent_completed`` (or ``synthesis_completed``) or ``agent_failed``.
- An ``LLMError`` from the gateway becomes ``agent_failed`` with a fixed user-safe
  sentence and the error's code; any other exception from the gateway is logged and
  becomes ``agent_failed`` with code ``internal_error``. Bugs in the engine itself are
  not caught.
- Every LLM call is recorded (``record.llm_calls``) whatever its outcome. If the task is
  cancelled (or the event stream closed) mid-call, the ``finally`` blocks record the
  call as ``cancelled`` with usage estimated from the prompt and the text so far, and
  the message as ``cancelled`` with that text.
- ``fan_in`` runs several speakers concurrently in a ``TaskGroup`` (or one after another
  when sequential) and interleaves their events; closing it or cancelling its consumer
  cancels the children and waits for their bookkeeping before it returns.
Consumers of these generators close them deterministically (``closing_stream``) so that
cancellation bookkeeping happens at once, not at garbage collection.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from pantheon.llm.gateway import LLMGateway, closing_stream
from pantheon.llm.types import ChatMessage, ModelAlias
from pantheon.turns.events import TurnEvent
from pantheon.turns.modes.calls import CallRunner
from pantheon.turns.modes.speakers import SpeakerRun
from pantheon.turns.record import TurnRecord
from pantheon.turns.snapshot import AgentSnapshot, TurnSnapshot

__all__ = ["SpeakerRun", "TurnContext", "TurnMode", "fan_in"]


class TurnContext:
    """What a mode works with: the snapshot, the record and the call machinery."""

    def __init__(self, snapshot: TurnSnapshot, gateway: LLMGateway, record: TurnRecord) -> None:
        self.snapshot = snapshot
        self.gateway = gateway
        self.record = record
        self.calls = CallRunner(snapshot.turn_id, gateway, record)

    def alias(self, model: str) -> ModelAlias:
        return self.calls.alias(model)

    def context_window(self, model: str) -> int:
        return self.alias(model).context_window

    def prepare_agent(
        self, agent: AgentSnapshot, round_no: int | None, messages: Sequence[ChatMessage]
    ) -> SpeakerRun:
        """Reserve the agent's message slot now; stream it later with ``speak``."""
        return self.calls.prepare_agent(agent, round_no, tuple(messages))

    def speak(self, run: SpeakerRun) -> AsyncIterator[TurnEvent]:
        return self.calls.speak(run)

    def fan_in(self, runs: Sequence[SpeakerRun]) -> AsyncIterator[TurnEvent]:
        """The runs' events, concurrently unless ``sequential_specialists`` is set."""
        sources = [self.speak(run) for run in runs]
        return fan_in(sources, sequential=self.snapshot.orchestrator.sequential_specialists)


class TurnMode(Protocol):
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        """The agents announced in ``turn_started`` (who may speak)."""
        ...

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        """The mode's events after ``turn_started``."""
        ...


async def fan_in(
    sources: Sequence[AsyncIterator[TurnEvent]], *, sequential: bool = False
) -> AsyncIterator[TurnEvent]:
    """Interleave the events of ``sources``; each source's own order is kept."""
    if sequential:
        for source in sources:
            async with closing_stream(source) as events:
                async for event in events:
                    yield event
        return
    queue: asyncio.Queue[TurnEvent | None] = asyncio.Queue()  # None: all sources done

    async def pump(source: AsyncIterator[TurnEvent]) -> None:
        async with closing_stream(source) as events:
            async for event in events:
                queue.put_nowait(event)

    async def run_all() -> None:
        try:
            async with asyncio.TaskGroup() as group:
                for source in sources:
                    group.create_task(pump(source))
        finally:
            queue.put_nowait(None)

    # The task group lives in its own task: an async generator must not yield from
    # inside a TaskGroup (closing it there would surface as a BaseExceptionGroup).
    producer = asyncio.create_task(run_all())
    try:
        while (item := await queue.get()) is not None:
            yield item
        await producer  # re-raises a bug from a child
    finally:
        if not producer.done():
            producer.cancel()
            # Wait for the children's cancellation bookkeeping before returning.
            await asyncio.wait([producer])
        if not producer.cancelled():
            producer.exception()  # retrieved: re-raised above or superseded by ours
