"""A same-key retry whose followed turn ended without a record (a claim that was given
back because another replica's turn with the key committed first) is answered with the
key's recorded turn, not ``503 could not be saved``; with no such turn, the 503 stays."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from pantheon.errors import ServiceUnavailable
from pantheon.live.streamed import StreamedEvent
from pantheon.turns.service import StartedTurn, TurnService
from tests.factories import create_room, create_session


@dataclass
class GivenBackClaim:
    """A ``LiveView`` of a claim that never ran: it is over at once and never recorded."""

    session_id: str
    idempotency_key: str | None
    owner_id: uuid.UUID
    turn_id: str = str(uuid.uuid4())
    request_hash: str | None = None

    async def stream(self, after: int) -> AsyncIterator[StreamedEvent]:
        return
        yield

    def cancel(self) -> None:
        """Nothing runs."""

    async def wait_finished(self) -> None:
        """It never ran."""


async def _setup(app: FastAPI, client: httpx.AsyncClient) -> tuple[TurnService, uuid.UUID, str]:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    owner = uuid.UUID((await client.get("/v1/me")).json()["id"])
    return app.state.services.turns, owner, session


async def test_a_retry_that_followed_a_claim_given_back_gets_the_keys_turn(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    service, owner, session = await _setup(app, client)
    first = await client.post(
        f"/v1/sessions/{session}/turns", json={"message": "go"}, headers={"Idempotency-Key": "k"}
    )
    assert first.status_code == 201, first.text
    ghost = GivenBackClaim(session, "k", owner)
    detail = await service.wait_for_detail(owner, StartedTurn(ghost.turn_id, ghost))
    assert str(detail.id) == first.json()["id"]


@pytest.mark.parametrize("key", [None, "never-recorded"])
async def test_an_unrecorded_turn_without_a_recorded_key_is_503(
    app: FastAPI, client: httpx.AsyncClient, key: str | None
) -> None:
    service, owner, session = await _setup(app, client)
    ghost = GivenBackClaim(session, key, owner)
    with pytest.raises(ServiceUnavailable, match="could not be saved"):
        await service.wait_for_detail(owner, StartedTurn(ghost.turn_id, ghost))
