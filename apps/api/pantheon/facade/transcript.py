"""A turn's events (the JSON dicts its SSE stream carries) -> what an OpenAI client shows.

``content`` is what a person reads, as the mode's spec says (``ModeSpec.answer``): the
manager's synthesis, the one agent's reply, each agent's reply under its name, the last
stage's output (the last good one when a stage failed), or the chosen draft.
``reasoning_content`` narrates the rest: routing, rounds, stages, the specialists'
outputs (whole, when each finishes, since their deltas interleave), evaluations, reviews,
failures and tool activity. Every type of the catalogue (``engine/events.py``) is in
``HANDLERS``, read or ignored on purpose: tests/engine/test_catalogue.py checks that the
table is exactly the catalogue, so a new event type fails it until it is placed here.
Internal types never reach a client, so never reach here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pantheon.engine.modes.specs import MODES, AnswerSource, mode_spec
from pantheon.error_codes import ErrorCode
from pantheon.facade.schemas import Usage

Field = Literal["content", "reasoning_content"]
Piece = tuple[Field, str]
MANAGER_KEY = "manager"
FINAL_TYPES = frozenset({"turn_completed", "error"})
_ARGS_CHARS = 200
_RESULT_CHARS = 300


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class Transcript:
    """Feed it the turn's events in order; it returns the pieces each one adds."""

    mode: str = ""
    names: dict[str, str] = field(default_factory=dict)
    status: str | None = None
    usage: Usage = field(
        default_factory=lambda: Usage(prompt_tokens=0, completion_tokens=0, total_tokens=0)
    )
    error: tuple[str, str] | None = None  # (code, message) of a final ``error`` event
    error_code: str | None = None  # ``turn_completed.error_code`` (``budget_exceeded`` ...)
    answered: bool = False  # some non-blank ``content`` was produced
    failures: list[str] = field(default_factory=list)
    _speakers: int = 0
    _agents: int = 0  # how many agents turn_started announced (a pipeline's stages)
    _final_stage: bool = False  # the pipeline stage under way is the last one
    _last_good: str = ""  # the pipeline's latest successful stage output

    @property
    def finished(self) -> bool:
        return self.status is not None or self.error is not None

    def feed(self, event: dict[str, Any]) -> list[Piece]:
        # A type outside the catalogue (a newer replica's, mid-upgrade) shows nothing.
        handler = HANDLERS.get(str(event.get("type")))
        result: list[Piece] = handler(self, event) if handler is not None else []
        self.answered = self.answered or any(f == "content" and t.strip() for f, t in result)
        return result

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

    def _on_turn_started(self, event: dict[str, Any]) -> list[Piece]:
        self.mode = str(event.get("mode", ""))
        self._agents = len(event.get("agents", []))
        return []

    def _on_round_start(self, event: dict[str, Any]) -> list[Piece]:
        return [("reasoning_content", f"Round {event['round']}\n")]

    def _on_routing(self, event: dict[str, Any]) -> list[Piece]:
        agents = ", ".join(f"@{k}" for k in event.get("agents", []))
        if event.get("fallback"):
            return [
                ("reasoning_content", f"The manager's routing was unusable; {agents} answers.\n")
            ]
        return [("reasoning_content", f"The manager asks {agents}.\n")]

    def _on_agent_started(self, event: dict[str, Any]) -> list[Piece]:
        key = str(event["agent_key"])
        self.names[key] = str(event.get("agent_name") or key)
        if not self._each_agent:
            return []
        heading = f"**{self.names[key]}**\n\n"
        self._speakers += 1
        return [("content", heading if self._speakers == 1 else f"\n\n{heading}")]

    def _on_delta(self, event: dict[str, Any]) -> list[Piece]:
        if self._orchestrated and not self._answers(str(event.get("agent_key"))):
            return []  # a specialist: narrated whole by agent_completed
        return [("content", str(event["text"]))]

    def _on_agent_completed(self, event: dict[str, Any]) -> list[Piece]:
        key = str(event["agent_key"])
        if not self._orchestrated or self._answers(key):
            return []
        text = str(event.get("text", "")).strip()
        return [("reasoning_content", f"\n**{self._name(key)}** (@{key}):\n{text}\n\n")]

    def _on_agent_failed(self, event: dict[str, Any]) -> list[Piece]:
        key = str(event["agent_key"])
        note = f"{self._name(key)} failed: {event.get('error', 'unknown error')}"
        self.failures.append(note)
        if self._each_agent:
            return [("content", f"*({note})*"), ("reasoning_content", note + "\n")]
        return [("reasoning_content", note + "\n")]

    def _on_evaluation(self, event: dict[str, Any]) -> list[Piece]:
        more = event.get("continue")
        verdict = "another round is needed" if more else "the specialists' work is enough"
        return [("reasoning_content", f"Round {event['round']} evaluated: {verdict}.\n")]

    def _on_stage_started(self, event: dict[str, Any]) -> list[Piece]:
        self._final_stage = event.get("stage") == self._agents
        return [("reasoning_content", f"Stage {event.get('stage')}: @{event.get('agent_key')}\n")]

    def _on_stage_completed(self, event: dict[str, Any]) -> list[Piece]:
        pieces: list[Piece] = []
        text = str(event.get("text", ""))
        if event.get("reused"):
            pieces.append(("reasoning_content", f"(reused from the last run)\n{text.strip()}\n\n"))
        if event.get("ok"):
            self._last_good = text
        elif self._last_good:
            pieces.append(("content", self._last_good))  # stopped early: the last good output
        return pieces

    def _on_review(self, event: dict[str, Any]) -> list[Piece]:
        who = self._name(str(event.get("agent_key", "")))
        if event.get("fallback"):
            return [("reasoning_content", f"{who}: no usable review.\n")]
        verdict = "approves" if event.get("approved") else "does not approve"
        score = event.get("score")
        scored = f" (score {score:g})" if isinstance(score, int | float) else ""
        feedback = str(event.get("feedback") or "").strip()
        return [("reasoning_content", f"{who} {verdict}{scored}: {feedback}\n")]

    def _on_review_completed(self, event: dict[str, Any]) -> list[Piece]:
        note = f"Review stopped ({event.get('reason')}); the answer is the draft of round "
        note += f"{event.get('round')}.\n"
        return [("reasoning_content", note), ("content", str(event.get("text", "")))]

    def _on_synthesis_started(self, _event: dict[str, Any]) -> list[Piece]:
        return [("reasoning_content", "The manager writes the answer.\n")]

    def _on_synthesis_completed(self, event: dict[str, Any]) -> list[Piece]:
        """A written synthesis was streamed as deltas; a fallback is the answer itself."""
        if not event.get("fallback"):
            return []
        why = f"the manager could not write the answer ({event.get('reason')})"
        note = f"No synthesis: {why}; the answer is the specialists' own.\n"
        return [("reasoning_content", note), ("content", str(event.get("text", "")))]

    def _on_tool_call(self, event: dict[str, Any]) -> list[Piece]:
        args = _short(json.dumps(event.get("arguments", {})), _ARGS_CHARS)
        who = self._name(str(event.get("agent_key", "")))
        return [("reasoning_content", f"{who} calls {event.get('name')}({args})\n")]

    def _on_tool_result(self, event: dict[str, Any]) -> list[Piece]:
        outcome = "ok" if event.get("ok") else "error"
        content = _short(str(event.get("content", "")), _RESULT_CHARS)
        return [("reasoning_content", f"{event.get('name')} -> {outcome}: {content}\n")]

    def _on_approval_required(self, event: dict[str, Any]) -> list[Piece]:
        args = _short(json.dumps(event.get("arguments", {})), _ARGS_CHARS)
        who = self._name(str(event.get("agent_key", "")))
        turn = event.get("turn_id")
        return [(
            "reasoning_content",
            f"{who} asks to call {event.get('name')}({args}); a person must decide first: "
            f"POST /v1/turns/{turn}/approvals\n",
        )]  # fmt: skip

    def _on_turn_completed(self, event: dict[str, Any]) -> list[Piece]:
        self.status = str(event.get("status"))
        code = event.get("error_code")
        self.error_code = None if code is None else str(code)
        usage = event.get("usage") or {}
        prompt, completion = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        self.usage = Usage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )
        if self.status == "cancelled":
            return [("reasoning_content", "The turn was cancelled.\n")]
        return []

    def _on_error(self, event: dict[str, Any]) -> list[Piece]:
        code = event.get("code", ErrorCode.INTERNAL_ERROR)
        self.error = (str(code), str(event.get("message", "")))
        return []


Handler = Callable[[Transcript, dict[str, Any]], list[Piece]]
# Every event type, and what reads it; None: nothing to show (its content comes with
# another event, e.g. ``round_end``'s; or internal).
HANDLERS: dict[str, Handler | None] = {
    "turn_started": Transcript._on_turn_started,
    "summary": None,
    "round_start": Transcript._on_round_start,
    "round_end": None,
    "routing": Transcript._on_routing,
    "agent_started": Transcript._on_agent_started,
    "delta": Transcript._on_delta,
    "agent_completed": Transcript._on_agent_completed,
    "agent_failed": Transcript._on_agent_failed,
    "retrying": None,
    "tool_call": Transcript._on_tool_call,
    "tool_result": Transcript._on_tool_result,
    "approval_required": Transcript._on_approval_required,
    "evaluation": Transcript._on_evaluation,
    "synthesis_started": Transcript._on_synthesis_started,
    "synthesis_completed": Transcript._on_synthesis_completed,
    "stage_started": Transcript._on_stage_started,
    "stage_completed": Transcript._on_stage_completed,
    "review": Transcript._on_review,
    "review_completed": Transcript._on_review_completed,
    "turn_completed": Transcript._on_turn_completed,
    "error": Transcript._on_error,
    "llm_call": None,
    "tool_call_record": None,
    "message_record": None,
    "summary_record": None,
    "resume_state": None,
}
