"""Deciding a task that is ``input-required`` (a turn paused for approval) with a message
on that task (ADR 0023): its decisions go through ``TurnService.decide`` (claimed once,
across replicas) and the continuation carries on as the same task.

The message holds either a data part ``{"decisions": [{"call_id", "approve", "reason"}]}``
(one per pending call, as ``POST /v1/turns/{id}/approvals`` takes them) or, when one call
waits, the text ``approve`` or ``reject`` (optionally ``reject: <reason>``).
"""

from __future__ import annotations

import uuid
from typing import Any

from a2a.types.a2a_pb2 import Message
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from google.protobuf.json_format import MessageToDict
from pydantic import ValidationError

from pantheon.deps import limit_turn_rate
from pantheon.engine.approvals import ResumeState
from pantheon.errors import AppError
from pantheon.protocols.a2a.tasks import Caller, Found, find
from pantheon.protocols.a2a.turns import Started, a2a_error
from pantheon.turns.approvals import decided_conflict
from pantheon.turns.schemas import ApprovalCreate

APPROVE = frozenset({"approve", "approved", "yes"})
REJECT = frozenset({"reject", "rejected", "no"})
FORM = (
    'send a data part {"decisions": [{"call_id": ..., "approve": true|false, "reason": ...}]} '
    "with one decision per pending call"
)


def _pending(found: Found) -> list[str]:
    assert found.turn is not None
    assert found.turn.resume_state is not None
    state = ResumeState.model_validate_json(found.turn.resume_state)
    return [call.id for _key, call in state.pending_calls()]


def _from_text(text: str, pending: list[str]) -> dict[str, Any]:
    word, _colon, reason = text.strip().partition(":")
    verdict = word.strip().lower()
    if verdict not in APPROVE | REJECT:
        raise InvalidParamsError(
            f"the task awaits a decision: answer 'approve' or 'reject', or {FORM}"
        )
    if len(pending) != 1:
        raise InvalidParamsError(
            f"{len(pending)} calls await a decision ({', '.join(pending)}): {FORM}",
            data={"pending": pending},
        )
    decision = {"call_id": pending[0], "approve": verdict in APPROVE, "reason": reason.strip()}
    return {"decisions": [decision]}


def _body(message: Message, pending: list[str]) -> dict[str, Any]:
    """The decisions' JSON body from a data part, else from the text."""
    texts: list[str] = []
    for part in message.parts:
        kind = part.WhichOneof("content")
        if kind == "data":
            data = MessageToDict(part.data)
            if not isinstance(data, dict):
                raise InvalidParamsError(f"the data part must be an object: {FORM}")
            return data
        if kind != "text":
            raise ContentTypeNotSupportedError(f"a '{kind}' part cannot decide a task: {FORM}")
        texts.append(part.text)
    return _from_text("\n".join(texts), pending)


def decisions_of(message: Message, pending: list[str]) -> ApprovalCreate:
    """The decisions ``message`` carries, validated like the native route's body."""
    try:
        return ApprovalCreate.model_validate(_body(message, pending))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise InvalidParamsError(f"the decisions are not valid ({problems}): {FORM}") from exc


async def decide_task(caller: Caller, message: Message) -> Started:
    """Decide the paused task ``message.task_id`` and start its continuation; a task that
    is not awaiting approval takes no message (decided already: the 409's error)."""
    task_id = message.task_id
    found = await find(caller, task_id)
    if found is None:
        raise TaskNotFoundError(f"task {task_id[:64]} not found")
    if found.turn is None or found.turn.status != "awaiting_approval":
        if found.decided:
            conflict = decided_conflict(uuid.UUID(found.task_id), uuid.UUID(found.turn_id))
            raise a2a_error(conflict)
        raise UnsupportedOperationError(
            f"task {task_id} takes no message (only a task awaiting approval does): send one "
            f"without taskId, with contextId {found.session_id} to continue its conversation"
        )
    if message.context_id and message.context_id != found.session_id:
        raise InvalidParamsError(
            f"task {task_id} is in context {found.session_id}, not {message.context_id[:64]}"
        )
    data = decisions_of(message, _pending(found))
    try:
        await limit_turn_rate(caller.principal, caller.services)
        started = await caller.services.turns.decide(caller.owner_id, found.turn_id, data)
    except AppError as exc:
        raise a2a_error(exc) from exc
    continued = await find(caller, task_id)  # its history now ends with the decisions
    requests = found.requests if continued is None else continued.requests
    return Started(
        started, found.session_id, requests, task_id=found.task_id, message_id=found.message_id
    )
