"""kill -9 of a real ``pantheon serve`` after one of the turn's LLM calls finished: the
turn recorded ``interrupted`` at the restart keeps that call (its ``llm_calls`` row,
usage and cost), because the call travelled as an internal ``llm_call`` event through
the crash journal. Before, an interrupted turn counted zero usage."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import httpx

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.sse import open_stream
from tests.turns_api.process import start_server, stop
from tests.waiting import until


def _journalled(path: Path, type_: str) -> int:
    if not path.exists():
        return 0
    lines = path.read_text().split("\n")[1:]
    return sum(1 for line in lines if line and json.loads(line)["type"] == type_)


async def test_an_interrupted_turn_keeps_its_finished_calls_usage(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    upstream.queue(Reply(chunks=["alpha ", "done"], usage=(11, 2)))
    upstream.queue(Reply(chunks=["beta ", "w1 ", "w2 "], hang_after=2, hang_s=120))
    proc, url = await start_server(tmp_path, upstream)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            room = await create_room(http, ["alpha", "beta"], mode="roundtable")
            session = (await create_session(http, room["id"]))["id"]
            body = {"message": "go"}
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(http, turns, method="POST", json=body) as stream:
                seen = await stream.until("delta", agent_key="beta")
                turn_id = seen[0][1]["turn_id"]
                journal = tmp_path / "journal" / f"{turn_id}.jsonl"
                await until(lambda: _journalled(journal, "llm_call") == 1, attempts=3000)
                proc.send_signal(signal.SIGKILL)
                assert await asyncio.wait_for(proc.wait(), 20) == -signal.SIGKILL
    finally:
        await stop(proc)
    assert all(data["type"] != "llm_call" for _, data in seen)  # never streamed

    proc, url = await start_server(tmp_path, upstream, migrate=False)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            turn = (await http.get(f"/v1/turns/{turn_id}")).json()
    finally:
        await stop(proc)
    assert turn["status"] == "interrupted"
    calls = [(c["agent_key"], c["status"], c["input_tokens"], c["output_tokens"])
             for c in turn["llm_calls"]]  # fmt: skip
    assert calls == [("alpha", "ok", 11, 2)]  # beta's call never settled: not known
    assert (turn["usage"]["input_tokens"], turn["usage"]["output_tokens"]) == (11, 2)
