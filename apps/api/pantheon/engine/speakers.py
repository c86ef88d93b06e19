"""Who speaks and what a call produced: the plain data the call runner fills.

Promises: ``SpeakerRun.message`` is set exactly once, when the speaker stops for any
reason; ``CallOutcome.status`` stays ``"cancelled"`` unless the call ended by itself;
failure sentences are fixed per error code (``pantheon.error_codes``), so provider text
never reaches users, except an upstream's reason for refusing a request as invalid
(``LLMError.refusal``: cleaned and bounded), without which nobody could tell what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pantheon.engine.approvals import PausedAgent
from pantheon.engine.prompting import Contribution
from pantheon.engine.record import ProducedMessage
from pantheon.engine.values import CallStatus, MessageStatus, SpeakerRole
from pantheon.error_codes import event_sentence
from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import LLMRequest, ToolCall, Usage

MANAGER_KEY = "manager"
MANAGER_NAME = "Manager"
_MESSAGE_STATUS: dict[CallStatus, MessageStatus] = {
    "ok": "ok",
    "error": "failed",
    "cancelled": "cancelled",
}


def user_safe_message(code: str, refusal: str | None = None) -> str:
    """A fixed sentence for an error code, plus the upstream's reason when it refused the
    request as invalid (``LLMError.refusal``); no other provider text reaches users."""
    if refusal:
        return f"The model provider refused the request as invalid: {refusal}"
    return event_sentence(code)


@dataclass(frozen=True, slots=True)
class Speaker:
    key: str
    name: str
    role: SpeakerRole
    round: int | None
    agent_id: str = ""
    tools: tuple[str, ...] = ()


@dataclass(slots=True)
class CallOutcome:
    """What one streamed call (or a speaker's whole loop of calls) produced; ``status``
    stays "cancelled" unless it ended."""

    parts: list[str] = field(default_factory=list)
    usage: Usage | None = None
    status: CallStatus = "cancelled"
    error_code: str | None = None
    refusal: str | None = None  # the upstream's reason, when it refused the request
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def absorb(self, call: CallOutcome) -> None:
        """Add one call of a speaker's loop: its text and usage count for the speaker."""
        self.parts.extend(call.parts)
        if call.usage is not None:
            mine = self.usage or Usage()
            self.usage = Usage(
                mine.input_tokens + call.usage.input_tokens,
                mine.output_tokens + call.usage.output_tokens,
                mine.estimated or call.usage.estimated,
            )


@dataclass(eq=False, slots=True)
class SpeakerRun:
    """A speaker with its reserved message slot; ``message`` is set once it stopped.

    ``resume``: the paused agent this run continues (its prompt and held calls);
    ``paused``: set when this run stopped for a person's approval."""

    speaker: Speaker
    request: LLMRequest
    slot: int
    synthesis: bool = False
    message: ProducedMessage | None = None
    resume: PausedAgent | None = None
    paused: PausedAgent | None = None

    @property
    def prefix(self) -> str:
        """What the agent said before its pause, in the turn it paused in."""
        return self.resume.text if self.resume is not None else ""

    @property
    def ok(self) -> bool:
        return self.message is not None and self.message.status == "ok"

    def contribution(self) -> Contribution | None:
        if self.message is None or self.message.status != "ok":
            return None
        s = self.speaker
        return Contribution(s.key, s.name, self.prefix + self.message.content, s.round)


def message_of(speaker: Speaker, outcome: CallOutcome) -> ProducedMessage:
    return ProducedMessage(
        role=speaker.role,
        agent_key=speaker.key,
        agent_name=speaker.name,
        round=speaker.round,
        content=outcome.text,
        status=_MESSAGE_STATUS[outcome.status],
        error_code=outcome.error_code,
    )


def estimate_usage(request: LLMRequest, outcome: CallOutcome) -> Usage:
    """Usage of a call that ended without one: the prompt counts once it was processed."""
    text = outcome.text
    billed = outcome.status == "cancelled" or bool(text)
    prompt = estimate_messages(request.messages) if billed else 0
    return Usage(input_tokens=prompt, output_tokens=estimate_tokens(text), estimated=True)
