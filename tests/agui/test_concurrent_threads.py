"""Several first runs posted at once on one new thread id: they open the thread together
and every one of them finds it to be the caller's. One runs its turn, the others are
told the thread is busy (409 as the run's error), none is told the thread is not
theirs (404), and the thread is kept with the turn that ran."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from tests.agui.conftest import parse_events, post_run, run_input
from tests.factories import create_room

RUNS = 10
ROUNDS = 3  # the race lost about 2 runs in 10 before threads tolerated it


async def _first_runs(client: httpx.AsyncClient, room_id: str, thread: str) -> list[str]:
    """How each run ended: ``RUN_FINISHED`` or its error's code."""
    bodies = [run_input(f"question {n}", thread=thread) for n in range(RUNS)]
    responses = await asyncio.gather(*(post_run(client, room_id, body) for body in bodies))
    assert [r.status_code for r in responses] == [200] * RUNS, [r.text for r in responses]
    ends = [parse_events(response)[-1] for response in responses]
    return [e["type"] if e["type"] == "RUN_FINISHED" else e["code"] for e in ends]


async def test_concurrent_first_runs_on_a_new_thread_all_find_it_theirs(
    client: httpx.AsyncClient,
) -> None:
    room = await create_room(client, ["alpha"])
    for _round in range(ROUNDS):
        thread = str(uuid.uuid4())
        ended = await _first_runs(client, room["id"], thread)

        assert set(ended) <= {"RUN_FINISHED", "conflict"}, ended
        assert "RUN_FINISHED" in ended
        session = await client.get(f"/v1/sessions/{thread}")
        assert session.status_code == 200, session.text
        assert session.json()["room_id"] == room["id"]
        turns = (await client.get(f"/v1/sessions/{thread}/turns")).json()
        assert turns["total"] == ended.count("RUN_FINISHED")
