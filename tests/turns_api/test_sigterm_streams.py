"""SIGTERM to a real ``pantheon serve`` during a turn: the grace period lets every stream
run to its turn's end (then close), and a listener that joins during the grace still gets
the whole stream. The turn's model is a slow in-test upstream, so the process is real."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import httpx

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.sse import open_stream, types
from tests.turns_api.process import start_server

WORDS = [f"w{i} " for i in range(30)]  # 1.5 s at 0.05 s a chunk


async def test_sigterm_lets_running_streams_finish_and_late_listeners_join(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    upstream.queue(Reply(chunks=WORDS, chunk_delay_s=0.05))
    proc, url = await start_server(tmp_path, upstream)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=20) as http:
            room = await create_room(http, ["alpha"])
            session = (await create_session(http, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(http, turns, method="POST", json={"message": "go"}) as stream:
                first = await stream.until("delta")
                proc.send_signal(signal.SIGTERM)
                await asyncio.sleep(1.0)  # sse-starlette used to cut every stream by now
                late_url = f"/v1/turns/{first[0][1]['turn_id']}/events"
                async with open_stream(http, late_url) as late:
                    rest = await asyncio.wait_for(stream.rest(), timeout=15)
                    joined = await asyncio.wait_for(late.rest(), timeout=15)
        # uvicorn re-raises the signal it handled once it has shut down cleanly.
        assert await asyncio.wait_for(proc.wait(), 20) in (0, -signal.SIGTERM)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    events = first + rest
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] == "completed"
    assert "".join(d["text"] for _, d in events if d["type"] == "delta") == "".join(WORDS)
    assert [seq for seq, _ in joined] == [seq for seq, _ in events]  # the whole stream
