"""How an AG-UI run ends: the turn's last event (``turn_completed`` or ``error``) as
``RUN_FINISHED`` (success, interrupt or cancelled outcome) or ``RUN_ERROR``, with the
turn's usage; and a gated tool call as the interrupt a client answers.

Every turn status has its ending in ``ENDINGS`` (a test checks it covers them all): a
turn that paused for approval finishes with the interrupt outcome, a cancelled one with
the cancelled outcome, a failed or interrupted one is a ``RUN_ERROR``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    TokenUsage,
)

from pantheon.engine.events import ApprovalRequiredEvent, TurnCompletedEvent, TurnUsage
from pantheon.engine.values import TurnStatus
from pantheon.error_codes import ErrorCode

Ending = Literal["success", "interrupt", "cancelled", "error"]
ENDINGS: dict[TurnStatus, Ending] = {
    "completed": "success",
    "partial": "success",  # some agent failed; the answer stands
    "awaiting_approval": "interrupt",
    "cancelled": "cancelled",
    "failed": "error",
    "interrupted": "error",  # the replica running it died
}
# The interrupt reason AG-UI reserves for a decision on one tool call.
TOOL_CALL_REASON = "tool_call"
# The resume payload an approval interrupt expects (AG-UI's approval pattern).
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean", "description": "Run this call"},
        "reason": {"type": "string", "description": "Told to the agent when you reject it"},
    },
    "required": ["approved"],
}
_ARGS_CHARS = 500


def approval_interrupt(event: ApprovalRequiredEvent, agent_name: str) -> Interrupt:
    """The interrupt a gated tool call raises: answered by a resume entry with its id."""
    arguments = event.arguments_raw or json.dumps(event.arguments, ensure_ascii=False)
    if len(arguments) > _ARGS_CHARS:
        arguments = arguments[:_ARGS_CHARS] + "..."
    detail = {
        "turn_id": event.turn_id,
        "agent_key": event.agent_key,
        "tool": event.name,
        "arguments": event.arguments,
    }
    return Interrupt(
        id=event.call_id,
        reason=TOOL_CALL_REASON,
        message=f"{agent_name} (@{event.agent_key}) asks to call {event.name}({arguments}). "
        "Approve it?",
        tool_call_id=event.call_id,
        response_schema=APPROVAL_SCHEMA,
        metadata={"pantheon": detail},
    )


def token_usage(usage: TurnUsage) -> list[TokenUsage]:
    """The run's usage as AG-UI counts it: one entry for every LLM call of the turn."""
    total = usage.input_tokens + usage.output_tokens
    return [
        TokenUsage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, total_tokens=total
        )
    ]


def _ending(status: str) -> Ending:
    for name, ending in ENDINGS.items():
        if name == status:
            return ending
    return "error"  # a status a newer replica wrote: not a success


def finished(
    thread_id: str,
    run_id: str,
    event: TurnCompletedEvent,
    interrupts: list[Interrupt],
    failures: list[str],
) -> BaseEvent:
    """The run's last event for the turn's ``turn_completed``."""
    ending = _ending(event.status)
    usage = token_usage(event.usage)
    result = {"turn_id": event.turn_id, "status": event.status, "error_code": event.error_code}
    if ending == "interrupt" and not interrupts:  # never reported as a success
        ending = "error"
        failures = [f"it awaits a decision: POST /v1/turns/{event.turn_id}/approvals"]
    if ending == "interrupt":
        outcome: Any = RunFinishedInterruptOutcome(interrupts=interrupts)
    elif ending == "cancelled":
        outcome = RunFinishedCancelledOutcome()
    elif ending == "error":
        code = event.error_code or ErrorCode.INTERNAL_ERROR
        detail = "; ".join(failures) or "no agent could answer"
        message = f"turn {event.turn_id} {event.status}: {detail}"
        return RunErrorEvent(message=message, code=str(code), usage=usage)
    else:
        outcome = RunFinishedSuccessOutcome()
    return RunFinishedEvent(
        thread_id=thread_id, run_id=run_id, outcome=outcome, result=result, usage=usage
    )
