"""The one API a mode calls: who speaks with what prompt, streaming them, the manager's
whole-answer calls, and the turn's snapshot and record.

Promises:
- ``prepare_agent`` / ``prepare_synthesis`` fix a speaker's place in ``record.messages``
  when called (so persisted order is decision order, not finish order); ``speak`` then
  streams it through the agent loop (``engine/agent_loop.py``): agents get their tools,
  the manager never does.
- ``ask`` is a manager call read whole (route, evaluate): its text, or ``None`` when it
  failed; like every call it is recorded in ``record.llm_calls``.
- ``fan_in`` runs several speakers concurrently (or one after another when
  ``sequential_specialists`` is set) and interleaves their events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from pantheon.engine.agent_loop import AgentLoop
from pantheon.engine.calls import CallRunner
from pantheon.engine.events import TurnEvent
from pantheon.engine.fan_in import fan_in
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME, Speaker, SpeakerRun
from pantheon.engine.spending import SpendGuard
from pantheon.engine.tooling import ToolRunner
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.types import ChatMessage, LLMRequest, ModelAlias

__all__ = ["SpeakerRun", "TurnContext"]


class TurnContext:
    """What a mode works with: the snapshot, the record and the speakers' machinery."""

    def __init__(
        self,
        snapshot: TurnSnapshot,
        gateway: LLMGateway,
        tools: ToolRunner,
        record: TurnRecord,
        spend: SpendGuard | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.record = record
        self._calls = CallRunner(snapshot.turn_id, gateway, record, spend)
        self._loop = AgentLoop(snapshot, self._calls, tools)

    def alias(self, model: str) -> ModelAlias:
        return self._calls.alias(model)

    def context_window(self, model: str) -> int:
        return self.alias(model).context_window

    def prepare_agent(
        self, agent: AgentSnapshot, round_no: int | None, messages: Sequence[ChatMessage]
    ) -> SpeakerRun:
        """Reserve the agent's message slot now; stream it later with ``speak``."""
        request = LLMRequest(
            agent.model, tuple(messages), purpose="specialist", agent_key=agent.key
        )
        speaker = Speaker(agent.key, agent.name, "assistant", round_no, agent.id, agent.tools)
        return SpeakerRun(speaker, request, self.record.reserve_message())

    def prepare_synthesis(self, request: LLMRequest) -> SpeakerRun:
        """The manager's synthesis; it gets no tools. Its slot is reserved now."""
        speaker = Speaker(MANAGER_KEY, MANAGER_NAME, "manager", None)
        return SpeakerRun(speaker, request, self.record.reserve_message(), synthesis=True)

    def speak(self, run: SpeakerRun) -> AsyncIterator[TurnEvent]:
        return self._loop.speak(run)

    async def ask(self, request: LLMRequest, round_no: int | None) -> str | None:
        """A manager call read whole: its text, or ``None`` when it failed."""
        return await self._calls.ask(request, round_no)

    def fan_in(self, runs: Sequence[SpeakerRun]) -> AsyncIterator[TurnEvent]:
        """The runs' events, concurrently unless ``sequential_specialists`` is set."""
        sources = [self.speak(run) for run in runs]
        return fan_in(sources, sequential=self.snapshot.orchestrator.sequential_specialists)
