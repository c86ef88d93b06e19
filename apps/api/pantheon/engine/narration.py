"""A turn's typed events -> what a person reads of it: the answer and the narration.

``content`` is what a person reads, as the mode's spec says (``ModeSpec.answer``): the
manager's synthesis, the one agent's reply, each agent's reply under its name, the last
stage's output (the last good one when a stage failed), or the chosen draft.
``reasoning_content`` narrates the rest: routing, rounds, stages, the specialists'
outputs (whole, when each finishes, since their deltas interleave), evaluations, reviews,
failures and tool activity. The OpenAI doors (Chat and Responses), A2A, MCP and evals
read a turn through it. It is a ``TurnReader``: every type of the catalogue has its hook
there; the types this reader shows nothing of are named in ``IGNORED``, and
tests/engine/test_catalogue.py checks that each type is either read here or ignored on
purpose, so a new event type fails it until it is placed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from pantheon.engine.events import (
    INTERNAL_TYPES,
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    ApprovalRequiredEvent,
    DeltaEvent,
    ErrorEvent,
    EvaluationEvent,
    ReviewCompletedEvent,
    ReviewEvent,
    RoundStartEvent,
    RoutingEvent,
    StageCompletedEvent,
    StageStartedEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    TokenUsage,
    ToolCallEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnEvent,
)
from pantheon.engine.modes.specs import MODES, AnswerSource, mode_spec
from pantheon.engine.reader import TurnReader
from pantheon.engine.speakers import MANAGER_KEY

Field = Literal["content", "reasoning_content"]
Piece = tuple[Field, str]
_ARGS_CHARS = 200
_RESULT_CHARS = 300


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_sent(value: Any) -> Any:
    """A tool call's arguments as the event's JSON text carries them: a non-finite number
    (a model may write ``NaN``) is ``null`` there, so a reader of the typed event says
    exactly what a reader of the stored text says."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: as_sent(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_sent(item) for item in value]
    return value


class Narration(TurnReader[Piece]):
    """Feed it the turn's events in order; it returns the pieces each one adds."""

    # Nothing to show: the base keeps what they say (``turn_started``'s mode and agents),
    # their content comes with another event (``round_end``'s with the round's agents),
    # or they are internal (never sent to a client).
    IGNORED: ClassVar[frozenset[str]] = (
        frozenset({"turn_started", "summary", "round_end", "retrying"}) | INTERNAL_TYPES
    )

    def __init__(self) -> None:
        super().__init__()
        self.names: dict[str, str] = {}  # every speaker's name, also once it is done
        self.status: str | None = None  # ``turn_completed.status`` (or the record's)
        self.usage = TokenUsage()
        self.error: tuple[str, str] | None = None  # (code, message) of a final ``error``
        self.error_code: str | None = None  # ``turn_completed.error_code`` (budget ...)
        self.answered = False  # some non-blank ``content`` was produced
        self.failures: list[str] = []
        self._final_stage = False  # the pipeline stage under way is the last one
        self._last_good = ""  # the pipeline's latest successful stage output

    @property
    def finished(self) -> bool:
        """The turn's outcome is known: its final event, or its record's status when it
        was recorded without one (a caller sets ``status``)."""
        return self.status is not None or self.error is not None

    def feed(self, event: TurnEvent) -> list[Piece]:
        pieces = super().feed(event)
        self.answered = self.answered or any(f == "content" and t.strip() for f, t in pieces)
        return pieces

    def _name(self, key: str) -> str:
        return self.names.get(key, key)

    @property
    def _answer(self) -> AnswerSource:
        return mode_spec(self.mode).answer if self.mode in MODES else "the_agent"

    @property
    def _orchestrated(self) -> bool:
        """Modes whose agents are narrated whole, not streamed as the answer."""
        return self.mode in MODES and mode_spec(self.mode).narrates_speakers

    @property
    def _each_agent(self) -> bool:
        """Every agent's reply is part of the answer, under its name."""
        return self._answer == "each_agent"

    def _answers(self, key: str) -> bool:
        """Whether this speaker's text is the answer itself (streamed as ``content``)."""
        if self._answer == "last_stage":
            return self._final_stage
        return key == MANAGER_KEY

    def on_round_start(self, event: RoundStartEvent) -> Iterable[Piece]:
        return [("reasoning_content", f"Round {event.round}\n")]

    def on_routing(self, event: RoutingEvent) -> Iterable[Piece]:
        agents = ", ".join(f"@{k}" for k in event.agents)
        if event.fallback:
            return [
                ("reasoning_content", f"The manager's routing was unusable; {agents} answers.\n")
            ]
        return [("reasoning_content", f"The manager asks {agents}.\n")]

    def on_agent_started(self, event: AgentStartedEvent) -> Iterable[Piece]:
        speaker = self.open[event.agent_key]
        self.names[speaker.key] = speaker.name or speaker.key
        if not self._each_agent:
            return []
        heading = f"**{self.names[speaker.key]}**\n\n"
        return [("content", heading if speaker.slot == 0 else f"\n\n{heading}")]

    def on_delta(self, event: DeltaEvent) -> Iterable[Piece]:
        if self._orchestrated and not self._answers(event.agent_key):
            return []  # a specialist: narrated whole by agent_completed
        return [("content", event.text)]

    def on_agent_completed(self, event: AgentCompletedEvent) -> Iterable[Piece]:
        key = event.agent_key
        if not self._orchestrated or self._answers(key):
            return []
        return [
            ("reasoning_content", f"\n**{self._name(key)}** (@{key}):\n{event.text.strip()}\n\n")
        ]

    def on_agent_failed(self, event: AgentFailedEvent) -> Iterable[Piece]:
        note = f"{self._name(event.agent_key)} failed: {event.error}"
        self.failures.append(note)
        if self._each_agent:
            return [("content", f"*({note})*"), ("reasoning_content", note + "\n")]
        return [("reasoning_content", note + "\n")]

    def on_evaluation(self, event: EvaluationEvent) -> Iterable[Piece]:
        verdict = (
            "another round is needed" if event.continue_ else "the specialists' work is enough"
        )
        return [("reasoning_content", f"Round {event.round} evaluated: {verdict}.\n")]

    def on_stage_started(self, event: StageStartedEvent) -> Iterable[Piece]:
        self._final_stage = event.stage == len(self.agents)
        return [("reasoning_content", f"Stage {event.stage}: @{event.agent_key}\n")]

    def on_stage_completed(self, event: StageCompletedEvent) -> Iterable[Piece]:
        pieces: list[Piece] = []
        if event.reused:
            pieces.append(
                ("reasoning_content", f"(reused from the last run)\n{event.text.strip()}\n\n")
            )
        if event.ok:
            self._last_good = event.text
        elif self._last_good:
            pieces.append(("content", self._last_good))  # stopped early: the last good output
        return pieces

    def on_review(self, event: ReviewEvent) -> Iterable[Piece]:
        who = self._name(event.agent_key)
        if event.fallback:
            return [("reasoning_content", f"{who}: no usable review.\n")]
        verdict = "approves" if event.approved else "does not approve"
        scored = "" if event.score is None else f" (score {event.score:g})"
        return [("reasoning_content", f"{who} {verdict}{scored}: {event.feedback.strip()}\n")]

    def on_review_completed(self, event: ReviewCompletedEvent) -> Iterable[Piece]:
        note = f"Review stopped ({event.reason}); the answer is the draft of round "
        note += f"{event.round}.\n"
        return [("reasoning_content", note), ("content", event.text)]

    def on_synthesis_started(self, event: SynthesisStartedEvent) -> Iterable[Piece]:
        return [("reasoning_content", "The manager writes the answer.\n")]

    def on_synthesis_completed(self, event: SynthesisCompletedEvent) -> Iterable[Piece]:
        """A written synthesis was streamed as deltas; a fallback is the answer itself."""
        if not event.fallback:
            return []
        why = f"the manager could not write the answer ({event.reason})"
        note = f"No synthesis: {why}; the answer is the specialists' own.\n"
        return [("reasoning_content", note), ("content", event.text)]

    def on_tool_call(self, event: ToolCallEvent) -> Iterable[Piece]:
        args = _short(json.dumps(as_sent(event.arguments)), _ARGS_CHARS)
        who = self._name(event.agent_key)
        return [("reasoning_content", f"{who} calls {event.name}({args})\n")]

    def on_tool_result(self, event: ToolResultEvent) -> Iterable[Piece]:
        outcome = "ok" if event.ok else "error"
        content = _short(event.content, _RESULT_CHARS)
        return [("reasoning_content", f"{event.name} -> {outcome}: {content}\n")]

    def on_approval_required(self, event: ApprovalRequiredEvent) -> Iterable[Piece]:
        args = _short(json.dumps(as_sent(event.arguments)), _ARGS_CHARS)
        who = self._name(event.agent_key)
        return [(
            "reasoning_content",
            f"{who} asks to call {event.name}({args}); a person must decide first: "
            f"POST /v1/turns/{event.turn_id}/approvals\n",
        )]  # fmt: skip

    def on_turn_completed(self, event: TurnCompletedEvent) -> Iterable[Piece]:
        self.status, self.error_code = event.status, event.error_code
        self.usage = TokenUsage(
            input_tokens=event.usage.input_tokens, output_tokens=event.usage.output_tokens
        )
        if self.status == "cancelled":
            return [("reasoning_content", "The turn was cancelled.\n")]
        return []

    def on_error(self, event: ErrorEvent) -> Iterable[Piece]:
        self.error = (event.code, event.message)
        return []
