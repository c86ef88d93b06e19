"""Deleting a document (or its room or agent) stops its ingest at once: a waiting one never
starts, a parse in progress is killed, so the next upload does not wait behind work nobody
wants. The parse is held by the test (``held``) and would never end by itself."""

from __future__ import annotations

import functools
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from pantheon.settings import Settings
from tests.factories import create_agent, create_room
from tests.knowledge.held import MARKER, held_parse, started
from tests.knowledge.helpers import settled, upload
from tests.waiting import until

BIG = b"\n\n".join(MARKER + b" paragraph %d. " % n + b"Filler words. " * 50 for n in range(40))
TINY = b"Twenty-five bytes, tiny."
SPAWN_ATTEMPTS = 6000  # polls of 10 ms for the parser child to start: a bound, not a timing


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # The held parse must outlast any wait here: only a kill ends it.
    knowledge = settings.knowledge.model_copy(update={"parse_timeout_s": 3600.0})
    return settings.model_copy(update={"knowledge": knowledge})


@pytest.fixture
def gate(app: FastAPI, tmp_path: Path) -> Path:
    """The directory where held parses say they started; installs the held parser."""
    directory = tmp_path / "held"
    directory.mkdir()
    parser = app.state.services.knowledge.ingest.parser
    parser.function = functools.partial(held_parse, directory)
    return directory


async def _held(client: httpx.AsyncClient, gate: Path, place: str, name: str) -> str:
    """Upload a big document to ``place`` and return its id once its parse is held."""
    big = str((await upload(client, place, name, BIG + name.encode()))["id"])
    await until(lambda: big in started(gate), attempts=SPAWN_ATTEMPTS)
    return big


async def test_deleting_a_document_mid_parse_frees_the_parser(
    client: httpx.AsyncClient, app: FastAPI, gate: Path
) -> None:
    place = f"rooms/{(await create_room(client))['id']}"
    big = await _held(client, gate, place, "big.txt")
    held_child = app.state.services.knowledge.ingest.parser.pids()
    assert (await client.delete(f"/v1/documents/{big}")).status_code == 204
    # the same room's next upload is parsed (by a new child) and ready
    tiny = await upload(client, place, "tiny.txt", TINY)
    assert (await settled(client, tiny["id"]))["status"] == "ready"
    assert not set(held_child) & set(app.state.services.knowledge.ingest.parser.pids())
    assert (await client.get(f"/v1/documents/{big}")).status_code == 404


async def test_a_deleted_waiting_document_never_starts(
    client: httpx.AsyncClient, gate: Path
) -> None:
    place = f"rooms/{(await create_room(client))['id']}"
    first = await _held(client, gate, place, "first.txt")
    waiting = await upload(client, place, "second.txt", BIG + b"second")  # behind the first
    assert (await client.get(f"/v1/documents/{waiting['id']}")).json()["status"] == "pending"
    assert (await client.delete(f"/v1/documents/{waiting['id']}")).status_code == 204
    assert (await client.delete(f"/v1/documents/{first}")).status_code == 204
    tiny = await upload(client, place, "tiny.txt", TINY)
    assert (await settled(client, tiny["id"]))["status"] == "ready"
    # in upload order: had the deleted one started, it would have been held before the tiny one
    assert started(gate) == {first}


@pytest.mark.parametrize("kind", ["rooms", "agents"])
async def test_deleting_its_room_or_agent_stops_the_ingest(
    client: httpx.AsyncClient, gate: Path, kind: str
) -> None:
    owner = await (create_room(client) if kind == "rooms" else create_agent(client, "reader"))
    big = await _held(client, gate, f"{kind}/{owner['id']}", "big.txt")
    assert (await client.delete(f"/v1/{kind}/{owner['id']}")).status_code == 204
    other = f"rooms/{(await create_room(client))['id']}"
    tiny = await upload(client, other, "tiny.txt", TINY)
    assert (await settled(client, tiny["id"]))["status"] == "ready"
    stopped = (await client.get(f"/v1/documents/{big}")).json()
    assert stopped["status"] == "failed"
    assert stopped["error"] == f"its {kind[:-1]} was deleted"
