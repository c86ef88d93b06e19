"""A turn's events -> A2A task events: a fold, through the ``Narration`` (engine/narration.py).

The answer (``content``: the mode's answer text, ``ModeSpec.answer``) streams as appends
to one artifact, ``answer``; the narration (``reasoning_content``: rounds, routing, the
specialists' outputs, tool activity) and each agent's start and end are ``working``
status updates whose metadata names the event, the round and the agent. The turn's final
status settles the task's state (``STATES``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from a2a.server.events.event_queue import Event
from a2a.types.a2a_pb2 import (
    Artifact,
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.json_format import ParseDict
from google.protobuf.struct_pb2 import Value

from pantheon.engine.events import ApprovalRequiredEvent, TurnEvent
from pantheon.engine.narration import Narration
from pantheon.engine.reader import TurnReader
from pantheon.engine.values import TurnStatus
from pantheon.error_codes import ErrorCode
from pantheon.protocols.openai.service import outcome_error

ANSWER_ID = "answer"
# Every turn status, as the A2A task state it ends in.
STATES: dict[TurnStatus, TaskState] = {
    "completed": TaskState.TASK_STATE_COMPLETED,
    "partial": TaskState.TASK_STATE_COMPLETED,  # some agent failed; the answer stands
    "failed": TaskState.TASK_STATE_FAILED,
    "cancelled": TaskState.TASK_STATE_CANCELED,
    "interrupted": TaskState.TASK_STATE_FAILED,  # its replica died mid-turn
    "awaiting_approval": TaskState.TASK_STATE_INPUT_REQUIRED,
}
_CODES: dict[str, ErrorCode] = {code.value: code for code in ErrorCode}
# Steps a client may show even when they add no narration.
_STEPS = frozenset({"turn_started", "agent_started", "agent_completed", "agent_failed"})


def task_state(status: str) -> TaskState:
    """The task state of a recorded turn status (an unknown one: failed)."""
    for name, state in STATES.items():
        if name == status:
            return state
    return TaskState.TASK_STATE_FAILED


def _pending_call(event: ApprovalRequiredEvent) -> dict[str, Any]:
    """What a client needs to decide a gated call (docs/a2a.md, approvals)."""
    data = event.model_dump(mode="json")
    return {key: data[key] for key in ("call_id", "agent_key", "name", "arguments")}


def text_message(text: str, task_id: str, context_id: str, role: Role, ident: str) -> Message:
    return Message(
        message_id=ident, task_id=task_id, context_id=context_id, role=role, parts=[Part(text=text)]
    )


class TaskFold(TurnReader[Event]):
    """Feed it the turn's typed events in order; it returns the A2A events each one adds.

    Every event is narrated (``transcript``); the base keeps the round and the agents its
    status updates name."""

    def __init__(
        self,
        task_id: str,
        context_id: str,
        requests: tuple[str, ...] = (),  # the user's message, then each decision: its history
        message_id: str = "",  # the client's id of the user's message, when it gave one
    ) -> None:
        super().__init__()
        self.task_id, self.context_id = task_id, context_id
        self.requests, self.message_id = requests, message_id
        self.transcript = Narration()
        self.answer: list[str] = []
        self.pending: list[dict[str, Any]] = []  # calls awaiting a decision
        self._notes = 0
        self._last_note = ""

    @property
    def state(self) -> TaskState:
        if self.transcript.error is not None:
            return TaskState.TASK_STATE_FAILED
        if self.transcript.status is None:
            return TaskState.TASK_STATE_WORKING
        return task_state(self.transcript.status)

    def on_approval_required(self, event: ApprovalRequiredEvent) -> Iterable[Event]:
        self.pending.append(_pending_call(event))
        return ()

    def feed(self, event: TurnEvent) -> list[Event]:
        pieces = self.transcript.feed(event)
        out = super().feed(event)
        content = "".join(text for f, text in pieces if f == "content")
        if content:
            out.append(self._chunk(content, last=False))
        note = "".join(text for f, text in pieces if f == "reasoning_content")
        if note or event.type in _STEPS:
            out.append(self._step(event, note))
        if self.transcript.finished:
            out.extend(self._final())
        return out

    def _chunk(self, text: str, *, last: bool) -> TaskArtifactUpdateEvent:
        append = bool(self.answer)
        self.answer.append(text)
        artifact = Artifact(artifact_id=ANSWER_ID, name=ANSWER_ID, parts=[Part(text=text)])
        return TaskArtifactUpdateEvent(
            task_id=self.task_id, context_id=self.context_id, artifact=artifact,
            append=append, last_chunk=last,
        )  # fmt: skip

    def _step(self, event: TurnEvent, note: str) -> TaskStatusUpdateEvent:
        update = TaskStatusUpdateEvent(
            task_id=self.task_id, context_id=self.context_id, status=self._status(note)
        )
        round_ = 0 if self.round is None else self.round
        meta: dict[str, Any] = {"event": event.type, "round": round_, "agents": self.agents}
        fields = vars(event)  # the event's fields, as its JSON names them
        if "agent_key" in fields:
            meta["agent_key"] = str(fields["agent_key"])
        update.metadata.update({"pantheon": meta})
        if note:
            self._last_note = note
        return update

    def _status(self, note: str, state: TaskState | None = None) -> TaskStatus:
        status = TaskStatus(state=self.state if state is None else state)
        if note:
            self._notes += 1
            ident = f"{self.task_id}-note-{self._notes}"
            status.message.CopyFrom(
                text_message(note, self.task_id, self.context_id, Role.ROLE_AGENT, ident)
            )
            if status.state == TaskState.TASK_STATE_INPUT_REQUIRED and self.pending:
                status.message.parts.append(
                    Part(data=ParseDict({"pending": self.pending}, Value()))
                )
        return status

    def _final(self) -> list[Event]:
        out: list[Event] = [self._chunk("", last=True)] if self.answer else []
        update = TaskStatusUpdateEvent(
            task_id=self.task_id, context_id=self.context_id, status=self._status(self.outcome)
        )
        usage = self.transcript.usage
        spent = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
        status = self.transcript.status or "failed"
        update.metadata.update({"pantheon": {"status": status, "usage": spent}})
        return [*out, update]

    @property
    def outcome(self) -> str:
        """Why the task ended as it did (empty when it simply completed)."""
        if self.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            return self._last_note
        failure = outcome_error(self.transcript, self.task_id)
        if failure is not None:
            return failure.message
        code = _CODES.get(self.transcript.error_code or "")
        if code is not None and self.state != TaskState.TASK_STATE_COMPLETED:
            return code.sentence  # interrupted, stopped by a spend limit ...
        return ""

    def task(self) -> Task:
        """The task as these events leave it."""
        status = self._status(self.outcome if self.transcript.finished else "")
        task = Task(id=self.task_id, context_id=self.context_id, status=status)
        for index, request in enumerate(self.requests):
            ident = f"{self.task_id}-request" + (f"-{index}" if index else "")
            ident = (self.message_id or ident) if index == 0 else ident
            task.history.append(
                text_message(request, self.task_id, self.context_id, Role.ROLE_USER, ident)
            )
        if self.answer:
            parts = [Part(text="".join(self.answer))]
            task.artifacts.append(Artifact(artifact_id=ANSWER_ID, name=ANSWER_ID, parts=parts))
        return task
