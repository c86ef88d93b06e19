"""The A2A request handler of every room's agent: a fold over ``TurnService``'s turns.

The SDK's ``DefaultRequestHandler`` keeps running tasks in one process's memory; here a
task is a turn, so sending runs the room's turn, reading and listing come from
``TurnTaskStore`` (live backend or record), following replays the turn's events from
the first, and cancelling reaches the turn on whichever replica runs it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from a2a.server.context import ServerCallContext
from a2a.server.events.event_queue import Event
from a2a.server.request_handlers.request_handler import RequestHandler, validate_request_params
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import (
    ExtendedAgentCardNotConfiguredError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)

from pantheon.errors import AppError, Conflict
from pantheon.protocols.a2a.decide import decide_task
from pantheon.protocols.a2a.fold import TaskFold
from pantheon.protocols.a2a.store import TurnTaskStore
from pantheon.protocols.a2a.tasks import Caller, caller_of, find, history_length, trim_history
from pantheon.protocols.a2a.turns import Started, a2a_error, start_turn
from pantheon.protocols.run import read_turn, turn_stream

TERMINAL = frozenset({
    TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED,
})  # fmt: skip


async def _read(caller: Caller, turn_id: str, fold: TaskFold) -> AsyncIterator[Event]:
    """The A2A events of the turn's events from the first, live while it runs, else from
    its record. A caller that goes away leaves the task running (ADR 0039)."""
    try:
        stream = await turn_stream(caller.services.turns, caller.owner_id, turn_id)
    except AppError as exc:
        raise a2a_error(exc) from exc
    async for update in read_turn(stream, fold):
        yield update


class TurnRequestHandler(RequestHandler):
    """Every method of the A2A service for the room in the call context (``Caller``)."""

    def __init__(self) -> None:
        self.tasks = TurnTaskStore()

    async def _follow(
        self, caller: Caller, fold: TaskFold, turn_id: str
    ) -> AsyncGenerator[Event, None]:
        yield fold.task()
        async for update in _read(caller, turn_id, fold):
            yield update

    @validate_request_params
    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Task | Message:
        """Run the turn (or a paused task's continuation); answer when it ends, or at
        once with ``returnImmediately``."""
        caller = caller_of(context)
        history_length(params.configuration)  # refuses a negative one before the turn
        started = await _start(caller, params.message)
        fold = _fold(started)
        if not params.configuration.return_immediately:
            async for _update in _read(caller, started.turn.turn_id, fold):
                pass  # the task is read whole once its turn ends
        return trim_history(fold.task(), params.configuration)

    @validate_request_params
    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        """The task, then its status updates and answer chunks as the turn runs."""
        caller = caller_of(context)
        started = await _start(caller, params.message)
        async for event in self._follow(caller, _fold(started), started.turn.turn_id):
            yield event

    @validate_request_params
    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        """Follow a task again from its first event, on any replica; a finished one
        cannot be followed (read it with GetTask)."""
        caller = caller_of(context)
        found = await find(caller, params.id)
        if found is None:
            raise TaskNotFoundError(f"task {params.id[:64]} not found")
        if found.turn is not None:
            task = await self.tasks.get(params.id, context)
            assert task is not None
            if task.status.state in TERMINAL:
                state = TaskState.Name(task.status.state)
                raise UnsupportedOperationError(f"task {params.id} is over ({state}): GetTask it")
            yield task  # waits for a person: nothing more will happen in this turn
            return
        fold = TaskFold(
            found.task_id, found.session_id, requests=found.requests, message_id=found.message_id
        )
        async for event in self._follow(caller, fold, found.turn_id):
            yield event

    @validate_request_params
    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        history_length(params)  # refuses a negative one before any lookup
        task = await self.tasks.get(params.id, context)
        return None if task is None else trim_history(task, params)

    @validate_request_params
    async def on_list_tasks(
        self, params: ListTasksRequest, context: ServerCallContext
    ) -> ListTasksResponse:
        return await self.tasks.list(params, context)

    @validate_request_params
    async def on_cancel_task(
        self, params: CancelTaskRequest, context: ServerCallContext
    ) -> Task | None:
        """Stop the running turn wherever it runs; the task ends ``canceled``."""
        caller = caller_of(context)
        found = await find(caller, params.id)
        if found is None:
            return None
        try:
            await caller.services.turns.cancel(caller.owner_id, found.turn_id)
        except Conflict as exc:
            raise TaskNotCancelableError(f"task {params.id} is not running: {exc.message}") from exc
        except AppError as exc:
            raise a2a_error(exc) from exc
        return await self.tasks.get(params.id, context)

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        raise PushNotificationNotSupportedError

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        raise PushNotificationNotSupportedError

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        raise ExtendedAgentCardNotConfiguredError


async def _start(caller: Caller, message: Message) -> Started:
    """A message on a task decides it (``decide``); any other starts a turn."""
    return await (decide_task(caller, message) if message.task_id else start_turn(caller, message))


def _fold(started: Started) -> TaskFold:
    return TaskFold(
        started.task, started.session_id, requests=started.requests, message_id=started.message_id
    )
