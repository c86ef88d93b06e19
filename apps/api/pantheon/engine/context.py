"""The one API a mode calls: who speaks with what prompt, streaming them, the manager's
whole-answer calls, and the turn's snapshot and record.

Promises:
- ``prepare_agent`` / ``prepare_synthesis`` fix a speaker's place in ``record.messages``
  when called (so persisted order is decision order, not finish order); ``speak`` then
  streams it through the agent loop (``engine/agent_loop.py``): agents get their tools,
  the manager never does.
- ``ask`` is a manager call read whole (route, evaluate): its text, or ``None`` when it
  failed; like every call it is recorded in ``record.llm_calls``.
- ``window`` is a model's prompt budget (``engine.window``), counted with the tokenizers
  ``load_counters`` loaded; ``summary_text`` is the session summary prompts carry.
- ``fan_in`` runs several speakers concurrently (or one after another when
  ``sequential_specialists`` is set) and interleaves their events.
- Approvals: ``resume_state`` is the paused turn's state in a continuation (else
  ``None``); ``resume_agent`` continues a paused agent; a mode whose speaker paused calls
  ``pause`` with where it stood and stops (the record then says ``awaiting_approval``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from pantheon.engine.agent_loop import AgentLoop
from pantheon.engine.approvals import OrchestratorState, PausedAgent, ResumeState, SequenceState
from pantheon.engine.calls import CallRunner
from pantheon.engine.events import TurnEvent
from pantheon.engine.fan_in import Interleaving, fan_in
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME, CallOutcome, Speaker, SpeakerRun
from pantheon.engine.spending import SpendGuard
from pantheon.engine.tooling import ToolRunner
from pantheon.engine.window import Window
from pantheon.llm.fence import new_fencing
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.tokenizers import ESTIMATE, ESTIMATOR, TokenCounter, counter_for
from pantheon.llm.types import ChatMessage, LLMRequest, ModelAlias, Purpose, ResponseFormat

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
        limits = snapshot.tool_limits
        fencing = new_fencing(datamark=limits.datamark) if limits.fence else None
        self._calls = CallRunner(snapshot.turn_id, gateway, record, spend, fencing)
        self._loop = AgentLoop(snapshot, self._calls, tools)
        self._counters: dict[str, TokenCounter] = {}
        # A replay: the recorded order of speakers, advanced by ``run_turn`` per event.
        self.interleaving = Interleaving(snapshot.interleaving) if snapshot.interleaving else None

    def alias(self, model: str) -> ModelAlias:
        return self._calls.alias(model)

    async def load_counters(self, models: Sequence[str]) -> None:
        """Load the tokenizers of ``models`` for ``window`` and count the history with
        them, off the event loop (prompt building then reads cached counts)."""
        for model in models:
            spec = self.alias(model).tokenizer or ESTIMATE
            if spec not in self._counters:
                counter = self._counters[spec] = await counter_for(spec)
                await counter.warm(entry.content for entry in self.snapshot.history)

    def window(self, model: str) -> Window:
        """``model``'s prompt window, counted with its tokenizer once loaded."""
        alias = self.alias(model)
        counter = self._counters.get(alias.tokenizer or ESTIMATE, ESTIMATOR)
        return Window.of(alias, counter, self.snapshot.context.reply_reserve_tokens)

    @property
    def summary_text(self) -> str | None:
        """The session summary every prompt with history carries, if there is one."""
        summary = self.snapshot.summary
        return summary.text if summary is not None else None

    async def ask_summary(self, request: LLMRequest) -> str | None:
        """A summary call read whole (recorded like every call): its text, or ``None``."""
        return await self._calls.ask(request, None)

    def prepare_agent(
        self,
        agent: AgentSnapshot,
        round_no: int | None,
        messages: Sequence[ChatMessage],
        *,
        purpose: Purpose = "specialist",
        response_format: ResponseFormat | None = None,
    ) -> SpeakerRun:
        """Reserve the agent's message slot now; stream it later with ``speak``."""
        request = LLMRequest(
            agent.model,
            tuple(messages),
            purpose=purpose,
            agent_key=agent.key,
            response_format=response_format,
            max_tokens=self.alias(agent.model).max_tokens,
        )
        speaker = Speaker(agent.key, agent.name, "assistant", round_no, agent.id, agent.tools)
        return SpeakerRun(speaker, request, self.record.reserve_message())

    @property
    def resume_state(self) -> ResumeState | None:
        """The paused turn's state when this turn continues it."""
        resume = self.snapshot.resume
        return resume.state if resume is not None else None

    def resume_agent(self, agent: AgentSnapshot, paused: PausedAgent) -> SpeakerRun:
        """A paused agent's run: its saved prompt, its held calls settled first."""
        request = LLMRequest(
            agent.model, paused.messages, purpose="specialist", agent_key=agent.key
        )
        speaker = Speaker(agent.key, agent.name, "assistant", paused.round, agent.id, agent.tools)
        return SpeakerRun(speaker, request, self.record.reserve_message(), resume=paused)

    def pause(
        self,
        runs: Sequence[SpeakerRun],
        *,
        sequence: SequenceState | None = None,
        orchestrator: OrchestratorState | None = None,
    ) -> None:
        """Save what a continuation needs; the mode stops after this."""
        snap, budget = self.snapshot, self._loop.budget
        state = ResumeState(
            mode=snap.mode,
            message=snap.message,
            roster=snap.roster,
            manager_model=snap.manager_model,
            history=snap.history,
            room_id=snap.room_id,
            paused=tuple(run.paused for run in runs if run.paused is not None),
            calls_left=budget.calls_left,
            tool_rounds=dict(budget.rounds),
            sequence=sequence,
            orchestrator=orchestrator,
        )
        self.record.pause(state)

    def prepare_synthesis(self, request: LLMRequest) -> SpeakerRun:
        """The manager's synthesis; it gets no tools. Its slot is reserved now."""
        speaker = Speaker(MANAGER_KEY, MANAGER_NAME, "manager", None)
        return SpeakerRun(speaker, request, self.record.reserve_message(), synthesis=True)

    def speak(self, run: SpeakerRun) -> AsyncIterator[TurnEvent]:
        return self._loop.speak(run)

    async def ask(self, request: LLMRequest, round_no: int | None) -> CallOutcome:
        """A manager call read whole: its outcome (text, or the code it failed with)."""
        return await self._calls.ask_outcome(request, round_no)

    def fan_in(self, runs: Sequence[SpeakerRun]) -> AsyncIterator[TurnEvent]:
        """The runs' events, concurrently unless ``sequential_specialists`` is set."""
        sources = [self.speak(run) for run in runs]
        return fan_in(
            sources,
            sequential=self.snapshot.orchestrator.sequential_specialists,
            keys=[run.speaker.key for run in runs],
            interleaving=self.interleaving,
        )
