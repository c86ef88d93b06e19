"""What a turn paused for approval saves, and what its continuation is given (ADR 0015).

Promises:
- ``ResumeState`` is plain JSON-able data: the paused turn's inputs (message, roster,
  manager model, history), each paused agent's prompt up to its tool-call message with
  the results its paused round already produced, the tool budget left, and where the mode
  stood (``SequenceState`` or ``OrchestratorState``). With it a continuation finishes the
  turn without re-reading the session and without re-running anything that was done.
- ``Resume`` is what a continuation snapshot carries: that state, the person's decisions
  (one per pending call) and the text recorded as the continuation's user message. A
  cancelled pause (``cancelled``) is a continuation that rejects every pending call and
  runs nothing more: no tool, no model (ADR 0030).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from pantheon.engine.prompting import Contribution
from pantheon.engine.snapshot import AgentSnapshot, HistoryEntry
from pantheon.engine.values import ApprovalStatus, Mode
from pantheon.llm.types import ChatMessage, ToolCall

STATE_VERSION = 1
# What the model reads back for a call a person refused; the reason follows.
REJECTED_PREFIX = "not run: a person rejected this call"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class PausedAgent(_Frozen):
    """One agent stopped at a tool round holding gated calls.

    ``messages`` end with the assistant's tool-call message of that round; ``results``
    holds the round's calls that already have a result (non-gated ones that ran, refused
    ones), ``pending`` the ids waiting for a person, in call order; ``text`` is what the
    agent had streamed before the pause."""

    agent_key: str
    round: int | None
    tool_round: int
    messages: tuple[ChatMessage, ...]
    calls: tuple[ToolCall, ...]
    results: dict[str, str]
    pending: tuple[str, ...]
    text: str = ""

    def pending_calls(self) -> list[ToolCall]:
        return [c for c in self.calls if c.id in self.pending]


class SequenceState(_Frozen):
    """Standalone, manual, roundtable: the paused speaker's index among the turn's
    speakers, and the successful answers before it (what later speakers see)."""

    index: int
    earlier: tuple[Contribution, ...] = ()


class OrchestratorState(_Frozen):
    """The round that paused: its routed keys in routing order, the ones that finished
    in the paused turn (``None``: failed), the earlier rounds' outputs and the
    invocations used before this round."""

    round: int
    used: int
    routed: tuple[str, ...]
    finished: dict[str, Contribution | None] = Field(default_factory=dict)
    outputs: tuple[Contribution, ...] = ()


class ResumeState(_Frozen):
    """Everything a continuation needs; stored on the paused turn (``turns.resume_state``)."""

    version: int = STATE_VERSION
    mode: Mode
    message: str
    roster: tuple[AgentSnapshot, ...]
    manager_model: str
    history: tuple[HistoryEntry, ...] = ()
    room_id: str | None = None
    paused: tuple[PausedAgent, ...]
    calls_left: int
    tool_rounds: dict[str, int] = Field(default_factory=dict)
    sequence: SequenceState | None = None
    orchestrator: OrchestratorState | None = None

    def pending_calls(self) -> list[tuple[str, ToolCall]]:
        """(agent key, call) of every call waiting for a decision, in pause order."""
        return [(p.agent_key, c) for p in self.paused for c in p.pending_calls()]

    def paused_agent(self, key: str) -> PausedAgent | None:
        return next((p for p in self.paused if p.agent_key == key), None)


@dataclass(frozen=True, slots=True)
class Decision:
    """A person's answer to one pending call; ``reason`` goes to the model on a refusal."""

    approve: bool
    reason: str = ""

    @property
    def approval(self) -> ApprovalStatus:
        """What the decided call's record says (``tool_calls.approval``)."""
        return "approved" if self.approve else "rejected"


@dataclass(frozen=True, slots=True)
class Resume:
    """A continuation: the paused turn, its state and the decisions, keyed by call id;
    ``cancelled``: the turn was cancelled while it waited, so it ends as it starts."""

    continues: str
    state: ResumeState
    decisions: Mapping[str, Decision]
    note: str  # the continuation's user message: what the person decided
    cancelled: bool = False


def refusal_text(reason: str) -> str:
    """The tool result a model reads for a rejected call."""
    reason = " ".join(reason.split())
    return f"{REJECTED_PREFIX}: {reason}" if reason else f"{REJECTED_PREFIX}."


def decisions_note(state: ResumeState, decisions: Mapping[str, Decision]) -> str:
    """One line per decision, as the continuation's user message."""
    lines = []
    for _key, call in state.pending_calls():
        decision = decisions[call.id]
        verdict = "Approved" if decision.approve else "Rejected"
        reason = f": {decision.reason.strip()}" if decision.reason.strip() else ""
        lines.append(f"{verdict} {call.name} ({call.id}){reason}")
    return "\n".join(lines)
