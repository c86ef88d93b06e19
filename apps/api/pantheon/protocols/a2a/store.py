"""The SDK's ``TaskStore`` over turns: a task read from its turns (``tasks``), listed with
the running ones (``listing``). Only a turn writes its task: ``save`` and ``delete`` refuse."""

from __future__ import annotations

from a2a.server.context import ServerCallContext
from a2a.server.tasks.task_store import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task
from a2a.utils.errors import UnsupportedOperationError

from pantheon.protocols.a2a.fold import TaskFold
from pantheon.protocols.a2a.listing import list_tasks
from pantheon.protocols.a2a.tasks import caller_of, find, recorded_task


class TurnTaskStore(TaskStore):
    """The caller's tasks of one room (``Caller`` in the call context's state)."""

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        caller = caller_of(context)
        found = await find(caller, task_id)
        if found is None:
            return None
        if found.turn is not None:
            return await recorded_task(caller, found.turn, found)
        fold = TaskFold(
            found.task_id, found.session_id, requests=found.requests, message_id=found.message_id
        )
        return fold.task()

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """Running tasks first, then recorded ones, newest first (``listing``)."""
        return await list_tasks(caller_of(context), params)

    async def save(self, task: Task, context: ServerCallContext) -> None:
        raise UnsupportedOperationError("a task is a Pantheon turn: only its turn writes it")

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        raise UnsupportedOperationError("a task is a Pantheon turn: it is kept with its session")
