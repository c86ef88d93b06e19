"""An approval pause asked of the MCP host (2026-07-28's multi-round-trip requests).

When a turn pauses because an agent called a tool that needs a person's approval
(docs/approvals.md) and the host can answer form elicitations, the tool call returns an
``input_required`` result: one elicitation per pending call ("approve?" and a reason), and
a ``requestState`` naming the paused turn. The host asks its user and calls the tool
again with the answers and that state; the answers become the native decisions
(``TurnService.decide``: claimed once, across replicas) and the call follows the
continuation turn. Nothing is kept between the two requests: any replica answers the
second. The state is client-held, hence untrusted: it names only a turn, and deciding is
scoped to the caller's own turns exactly as ``POST /v1/turns/{id}/approvals`` is.
Hosts on older revisions (no such result) get the paused turn's result and its note.
"""

from __future__ import annotations

import json

from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    InputResponses,
)
from pydantic import BaseModel, ValidationError

from pantheon.errors import Unprocessable
from pantheon.turns.schemas import ApprovalCreate, ApprovalDecision, TurnDetail

_ARGS_CHARS = 500
DECLINED = "declined by the user in the MCP host"
APPROVAL_FORM = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Run this call"},
        "reason": {
            "type": "string",
            "title": "Reason",
            "description": "Told to the agent when you reject the call",
        },
    },
    "required": ["approve"],
}


class PausedTurn(BaseModel):
    """The ``requestState`` of an approval round: the paused turn it decides."""

    turn_id: str


def _question(detail: TurnDetail, call_id: str) -> str:
    call = next(c for c in detail.tool_calls if c.call_id == call_id)
    arguments = (
        call.arguments
        if len(call.arguments) <= _ARGS_CHARS
        else call.arguments[:_ARGS_CHARS] + "..."
    )
    return (
        f"Agent @{call.agent_key} asks to call {call.name}({arguments}) in Pantheon turn "
        f"{detail.id}. Approve it?"
    )


def approval_request(detail: TurnDetail) -> InputRequiredResult | None:
    """The elicitations a paused turn needs answered, or ``None`` when none is pending."""
    pending = [c.call_id for c in detail.tool_calls if c.approval == "pending"]
    if not pending:
        return None
    requests = {
        call_id: ElicitRequest(
            params=ElicitRequestFormParams(
                message=_question(detail, call_id), requested_schema=APPROVAL_FORM
            )
        )
        for call_id in pending
    }
    state = PausedTurn(turn_id=str(detail.id)).model_dump_json()
    return InputRequiredResult(input_requests=dict(requests), request_state=state)


def _decision(call_id: str, answer: object) -> ApprovalDecision:
    if not isinstance(answer, ElicitResult):
        raise Unprocessable(f"input response {call_id} is not an elicitation result")
    content = answer.content or {}
    approve = answer.action == "accept" and content.get("approve") is True
    reason = content.get("reason")
    note = reason if isinstance(reason, str) and reason.strip() else DECLINED
    return ApprovalDecision(call_id=call_id, approve=approve, reason="" if approve else note)


def decisions(state: str, answers: InputResponses | None) -> tuple[str, ApprovalCreate]:
    """The paused turn ``state`` names and the decisions ``answers`` make (422 when either
    is unusable: the native route then names what is missing or unknown)."""
    try:
        paused = PausedTurn.model_validate(json.loads(state))
    except (ValueError, ValidationError) as exc:
        raise Unprocessable("requestState is not one this server issued") from exc
    if not answers:
        raise Unprocessable(f"no answers to the approval requests of turn {paused.turn_id}")
    try:
        data = ApprovalCreate(decisions=[_decision(k, v) for k, v in answers.items()])
    except ValidationError as exc:
        raise Unprocessable(f"unusable approval answers: {exc.errors()[0]['msg']}") from exc
    return paused.turn_id, data
