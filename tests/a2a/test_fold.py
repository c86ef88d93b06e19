"""The fold of a turn's events into A2A task events, without a server."""

from __future__ import annotations

from typing import Any

from a2a.types.a2a_pb2 import TaskState

from pantheon.engine.values import TURN_STATUSES
from pantheon.error_codes import ErrorCode
from pantheon.protocols.a2a.fold import STATES, TaskFold, task_state


def _ended(status: str, error_code: str | None = None) -> TaskFold:
    fold = TaskFold("t-1", "s-1", requests=("hi",))
    events: list[dict[str, Any]] = [
        {"type": "turn_started", "turn_id": "t-1", "session_id": "s-1", "mode": "roundtable",
         "agents": ["alpha"]},
        {"type": "turn_completed", "turn_id": "t-1", "status": status, "error_code": error_code,
         "usage": {}, "message_ids": []},
    ]  # fmt: skip
    for event in events:
        fold.feed(event)
    return fold


def test_every_turn_status_has_a_task_state() -> None:
    assert set(STATES) == set(TURN_STATUSES)
    assert task_state("a status from a newer replica") == TaskState.TASK_STATE_FAILED


def test_an_interrupted_turn_fails_saying_why() -> None:
    task = _ended("interrupted", ErrorCode.INTERRUPTED).task()
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert task.status.message.parts[0].text == ErrorCode.INTERRUPTED.sentence
    assert task.history[0].parts[0].text == "hi"


def test_a_completed_turn_has_no_status_message() -> None:
    task = _ended("completed").task()
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert not task.status.HasField("message")
    assert list(task.artifacts) == []  # nothing was answered
