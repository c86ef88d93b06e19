"""kill -9 of a real ``pantheon serve`` on SQLite mid-turn, then a restart: the turn is
recorded ``interrupted`` from the crash journal with the user's message and the text
streamed so far, its replay ends in ``error`` / ``interrupted``, and a retry with the
same Idempotency-Key runs the turn again."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import httpx

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.sse import open_stream, types
from tests.sse_client import read_events
from tests.turns_api.process import start_server, stop
from tests.waiting import until

CHUNKS = [f"w{i} " for i in range(40)]
STREAMED = 6  # the upstream sends this many chunks, then holds the stream open


def _journalled_deltas(path: Path) -> int:
    if not path.exists():
        return 0
    lines = path.read_text().split("\n")[1:]
    return sum(1 for line in lines if line and json.loads(line)["type"] == "delta")


async def test_kill_9_mid_turn_then_restart_records_the_turn_interrupted(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    upstream.queue(Reply(chunks=CHUNKS, chunk_delay_s=0.02, hang_after=STREAMED, hang_s=120))
    key = {"Idempotency-Key": "kill-9"}
    proc, url = await start_server(tmp_path, upstream)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            room = await create_room(http, ["alpha"], mode="roundtable")
            session = (await create_session(http, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            body = {"message": "tell me everything"}
            async with open_stream(http, turns, method="POST", json=body, headers=key) as stream:
                seen = [event for _ in range(STREAMED) for event in await stream.until("delta")]
                turn_id = seen[0][1]["turn_id"]
                journal = tmp_path / "journal" / f"{turn_id}.jsonl"
                # Deltas reach the journal within PANTHEON_TURNS__JOURNAL_FLUSH_S.
                await until(lambda: _journalled_deltas(journal) == STREAMED, attempts=3000)
                proc.send_signal(signal.SIGKILL)
                assert await asyncio.wait_for(proc.wait(), 20) == -signal.SIGKILL
    finally:
        await stop(proc)
    streamed = "".join(d["text"] for _, d in seen if d["type"] == "delta")
    assert streamed == "".join(CHUNKS[:STREAMED])

    upstream.queue(Reply(chunks=["again"]))
    proc, url = await start_server(tmp_path, upstream, migrate=False)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            journalled = list((tmp_path / "journal").iterdir())  # recorded, then dropped
            turn = (await http.get(f"/v1/turns/{turn_id}")).json()
            replay = await read_events(http, turn_id)
            retry = await http.post(turns, json=body, headers=key)
    finally:
        await stop(proc)

    assert (turn["status"], turn["error_code"]) == ("interrupted", "interrupted")
    assert turn["message"] == "tell me everything"
    messages = [(m["role"], m["content"], m["status"]) for m in turn["messages"]]
    assert messages == [
        ("user", "tell me everything", "ok"),
        ("assistant", streamed, "cancelled"),
    ]
    assert [seq for seq, _ in replay] == list(range(1, len(replay) + 1))
    assert [data for _, data in replay[: len(seen)]] == [data for _, data in seen]
    assert types(replay)[-1] == "error"
    assert replay[-1][1]["code"] == "interrupted"
    assert journalled == []

    assert retry.status_code == 201, retry.text
    assert retry.json()["id"] != turn_id
    assert retry.json()["status"] == "completed"
    assert retry.json()["output"] == "Alpha: again"
