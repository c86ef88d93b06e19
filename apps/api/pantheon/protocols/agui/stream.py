"""A run's AG-UI events, as the SSE ``data:`` texts of its response.

``RUN_STARTED``; on a reconnect the thread's ``MESSAGES_SNAPSHOT`` (the messages before
this run's turn); then the fold of the turn's events from the first (live while it runs,
else from its record), which ends with ``RUN_FINISHED`` or ``RUN_ERROR``. A refused run
is one ``RUN_ERROR``. The turn does not depend on the request: a client that goes away
leaves it running, and posting the run again picks it up.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ag_ui.core import BaseEvent, RunErrorEvent

from pantheon.error_codes import ErrorCode
from pantheon.errors import AppError
from pantheon.protocols.agui.fold import RunFold
from pantheon.protocols.agui.runs import RoomCaller, Run
from pantheon.protocols.agui.snapshot import snapshot
from pantheon.protocols.run import read_turn, turn_stream


def encoded(event: BaseEvent) -> str:
    """An AG-UI event as JSON with its wire names (camelCase, no null optionals)."""
    return event.model_dump_json(by_alias=True)


def refused(exc: AppError) -> RunErrorEvent:
    """Pantheon's refusal to run a turn, as the run's error."""
    return RunErrorEvent(message=exc.message, code=str(exc.code))


async def run_events(caller: RoomCaller, run: Run) -> AsyncIterator[str]:
    """Every AG-UI event of ``run``, encoded."""
    if run.refusal is not None:
        yield encoded(refused(run.refusal))
        return
    request, services = run.request, caller.services
    fold = RunFold(request.thread, request.run_id, run.resumed_calls)
    yield encoded(fold.started(turn_id=run.turn_id, session_id=str(request.thread_id)))
    try:
        if run.reconnect:
            text = request.turn.message if request.turn is not None else None
            yield encoded(await snapshot(services.db, request.thread_id, run.turn_id, text))
        events = await turn_stream(services.turns, caller.owner_id, run.turn_id)
        async for out in read_turn(events, fold):  # a client gone leaves the turn running
            yield encoded(out)
        if fold.done:
            return
        # The events stopped without a final one (a write that failed; a dead replica's
        # turn gets its final ``error`` from the sweeper, so this is rare).
        failure: tuple[str, str] = (
            f"turn {run.turn_id} ended without its final event",
            ErrorCode.UNAVAILABLE,
        )
    except AppError as exc:
        failure = (exc.message, exc.code)
    for out in fold.error(failure[0], str(failure[1])):  # what is open closed, then RUN_ERROR
        yield encoded(out)
