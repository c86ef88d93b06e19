"""Responses as Pantheon turns: start one, follow or re-read it, cancel it, from any replica.

A response is a turn (``resp_<turn id>``) run through the chat facade's ``FacadeService``
(same sessions, auth, limits and budgets). Everything a client later asks about it is a
fold over that turn's events (``fold.ResponseFold``), read live from whichever replica
runs it, or from the event log once it is recorded, so ``GET`` and a resumed stream give
the same output and the same sequence numbers anywhere. ``previous_response_id``
continues the earlier response's session; ``store: false`` hides the response's session
once its turn is recorded, so it can be neither retrieved nor continued.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from pantheon.db.uow import unit_of_work
from pantheon.engine.events import TurnEvent
from pantheon.errors import AppError
from pantheon.facade.errors import ModelNotFound
from pantheon.facade.responses.fold import ResponseFold, ResponseMeta
from pantheon.facade.responses.records import keep_request, kept_meta
from pantheon.facade.responses.request import to_chat
from pantheon.facade.responses.schemas import ResponseCreate
from pantheon.facade.service import Completion, FacadeService
from pantheon.live.records import replay_events
from pantheon.live.streamed import typed
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.service import SessionService
from pantheon.turns.repository import TurnRepository

PREFIX = "resp_"
# A GET of a running response shows what its turn produced so far: the events already
# there arrive at once, so a pause this long means the fold has caught up; a turn that
# streams without pause is read for at most SNAPSHOT_S. A recorded turn is read whole.
CAUGHT_UP_S = 0.02
SNAPSHOT_S = 0.25


def response_id(turn_id: str) -> str:
    return f"{PREFIX}{turn_id}"


def turn_of(resp_id: str) -> str:
    """The turn id inside a response id; 404 in OpenAI's shape when it is not one."""
    raw = resp_id.removeprefix(PREFIX)
    try:
        return str(uuid.UUID(raw)) if resp_id.startswith(PREFIX) else _missing(resp_id)
    except ValueError:
        return _missing(resp_id)


def _missing(resp_id: str) -> str:
    raise ModelNotFound(f"response '{resp_id}' not found")


@dataclass(frozen=True, slots=True)
class StartedResponse:
    completion: Completion
    meta: ResponseMeta


@dataclass
class ResponsesService:
    facade: FacadeService

    async def create(self, owner_id: uuid.UUID, body: ResponseCreate) -> StartedResponse:
        """Validate and start the response's turn; errors before it starts raise."""
        chat = to_chat(body, self.facade.turns.settings.turns)
        session = None
        if body.previous_response_id:
            session = await self._session_of(owner_id, body.previous_response_id)
        completion = await self.facade.start(owner_id, chat, session)
        meta = ResponseMeta(
            id=response_id(completion.turn.turn_id),
            model=body.model,
            created_at=completion.created,
            background=bool(body.background),
            store=body.store is not False,
            instructions=body.instructions,
            previous_response_id=body.previous_response_id,
            metadata=dict(body.metadata or {}),
        )
        if meta.store:  # store: false keeps nothing to retrieve
            db = self.facade.turns.db
            await keep_request(db, owner_id, completion.turn.turn_id, meta)
        return StartedResponse(completion, meta)

    async def _session_of(self, owner_id: uuid.UUID, resp_id: str) -> str:
        turn_id = turn_of(resp_id)
        live = await self.facade.turns.live_turn(owner_id, turn_id)
        if live is not None:
            return live.session_id
        async with unit_of_work(self.facade.turns.db, write=False) as db:
            turn = await TurnRepository(db).get(owner_id, turn_id)
        if turn is None:
            raise ModelNotFound(f"previous response '{resp_id}' not found")
        return str(turn.session_id)

    async def forget(self, owner_id: uuid.UUID, session_id: str) -> None:
        """``store: false``: hide the response's session now that its turn is recorded."""
        async with unit_of_work(self.facade.turns.db, write=True) as db:
            await SessionService(SessionRepository(db)).delete(owner_id, session_id)

    async def meta_of(self, owner_id: uuid.UUID, resp_id: str) -> ResponseMeta:
        """What a stored response says about itself: its request's kept fields, else (made
        before they were kept) what its session tells.

        The live registry is asked first: a turn leaves it only once it is recorded."""
        turn_id = turn_of(resp_id)
        live = await self.facade.turns.live_turn(owner_id, turn_id)
        created, finished = int(time.time()), None
        async with unit_of_work(self.facade.turns.db, write=False) as db:
            session_id: str | uuid.UUID | None = None if live is None else live.session_id
            if live is None and (turn := await TurnRepository(db).get(owner_id, turn_id)):
                session_id, created = turn.session_id, int(turn.created_at.timestamp())
                finished = None if turn.finished_at is None else int(turn.finished_at.timestamp())
            chat = (
                None
                if session_id is None
                else await SessionRepository(db).get(owner_id, session_id)
            )
            kept = None if chat is None else await kept_meta(db, owner_id, turn_id, resp_id)
        if chat is None:
            raise ModelNotFound(f"response '{resp_id}' not found")
        if kept is not None:
            return replace(kept, finished_at=finished)
        model = f"room-{chat.room_id}" if chat.room_id else f"agent-{chat.agent_id}"
        return ResponseMeta(resp_id, model=model, created_at=created, finished_at=finished)

    async def turn_events(self, owner_id: uuid.UUID, resp_id: str) -> AsyncIterator[TurnEvent]:
        """The response's turn events from the first; 404 when there is no such response."""
        try:
            source = await self.facade.turns.events(owner_id, turn_of(resp_id), 0)
        except AppError as exc:
            if exc.status_code == 404:
                raise ModelNotFound(f"response '{resp_id}' not found") from exc
            raise
        return typed(source)

    async def snapshot(self, owner_id: uuid.UUID, resp_id: str) -> dict[str, Any]:
        """The response as it stands: whole once recorded, so far while it runs.

        Its status never goes backwards: a turn commits before anyone is told how it ended,
        so what the live read leaves open is settled by the record, read whole however
        long that takes; only a turn not recorded yet answers ``in_progress``."""
        meta = await self.meta_of(owner_id, resp_id)
        turn_id = turn_of(resp_id)
        live = await self.facade.turns.live_turn(owner_id, turn_id)
        fold = ResponseFold(meta)
        if live is not None:
            await _read_so_far(fold, typed(live.stream(0)))
            if fold.finished:
                return fold.response()
        recorded = await self._recorded(owner_id, turn_id)
        if recorded is None:
            if live is None:  # gone from the registry, yet not recorded: its write failed
                raise ModelNotFound(f"response '{resp_id}' not found")
            return fold.response()
        fold = ResponseFold(meta)
        async for event in recorded:
            fold.feed(event)
        return fold.response()

    async def _recorded(self, owner_id: uuid.UUID, turn_id: str) -> AsyncIterator[TurnEvent] | None:
        """The recorded turn's events from the first; None while it is not recorded."""
        db = self.facade.turns.db
        async with unit_of_work(db, write=False) as session:
            turn = await TurnRepository(session).get(owner_id, turn_id)
        return None if turn is None else typed(replay_events(db, turn.id, 0))

    async def cancel(self, owner_id: uuid.UUID, resp_id: str) -> dict[str, Any]:
        """Stop the response's turn if it runs; the response as it then stands."""
        turn_id = turn_of(resp_id)
        live = await self.facade.turns.live_turn(owner_id, turn_id)
        if live is not None:
            live.cancel()
            await live.wait_finished()
        return await self.snapshot(owner_id, resp_id)


async def _read_so_far(fold: ResponseFold, events: AsyncIterator[TurnEvent]) -> None:
    """Feed ``fold`` what a running turn has published: the events already there arrive at
    once, so a pause of ``CAUGHT_UP_S`` means it has caught up; at most ``SNAPSHOT_S``."""
    loop = asyncio.get_running_loop()
    until = loop.time() + SNAPSHOT_S
    async with contextlib.aclosing(events):  # type: ignore[type-var]
        while not fold.finished and loop.time() < until:
            try:
                event = await asyncio.wait_for(anext(events), CAUGHT_UP_S)
            except (StopAsyncIteration, TimeoutError):
                return
            fold.feed(event)
