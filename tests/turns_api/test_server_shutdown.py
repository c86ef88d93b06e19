"""``pantheon serve``'s shutdown order: the turn grace period runs before uvicorn closes
connections, so a JSON request waiting on its turn still gets the finished turn."""

from __future__ import annotations

import asyncio

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import TurnSettings
from tests.turns_api.conftest import Serve
from tests.waiting import until


async def test_json_turn_in_flight_gets_its_answer_and_new_turns_get_503(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    scripted.script("done in time", agent="alpha", delay_s=0.3)
    async with serve(turns=TurnSettings(shutdown_grace_s=5)) as live:
        busy = await live.session(["alpha"])
        idle = await live.session(["beta"])
        waiting = asyncio.create_task(
            live.http.post(f"/v1/sessions/{busy}/turns", json={"message": "hi"})
        )
        registry = live.app.state.services.live_turns
        await until(registry.running)
        live.server.should_exit = True  # what SIGTERM does
        await until(lambda: not registry.accepting)
        refused = await live.http.post(f"/v1/sessions/{idle}/turns", json={"message": "hi"})
        answered = await waiting
    assert refused.status_code == 503
    assert "shutting down" in refused.json()["detail"]
    assert answered.status_code == 201
    assert answered.json()["status"] == "completed"
    assert answered.json()["output"] == "Alpha: done in time"
