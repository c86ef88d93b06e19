"""Migration 0011 copies every recorded continuation into ``turn_decisions``: a turn
decided before it stays decided after the upgrade; one still waiting stays open."""

from __future__ import annotations

from pantheon.db.migrations import downgrade, upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.sse_client import stream_turn
from tests.turns_api.approvals_helpers import agent_session, decide, decisions, gated_agent
from tests.turns_api.apps import running_client


async def test_recorded_continuations_become_decisions(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    scripted.script(gated_agent, agent="calc")
    approve = decisions(("c-calc", True, ""))
    async with running_client(settings, scripted) as client:
        session_id = await agent_session(client, ["calculator!"])
        first = await stream_turn(client, session_id, {"message": "17*23?"})
        continuation = await decide(client, first[0][1]["turn_id"], approve)
        assert continuation.status_code == 201, continuation.text
        second = await stream_turn(client, session_id, {"message": "again?"})
        assert second[-1][1]["status"] == "awaiting_approval"
    paused = [first[0][1]["turn_id"], second[0][1]["turn_id"]]

    await downgrade(settings.resolved_database_url, "0010_approvals")
    await upgrade(settings.resolved_database_url)
    async with running_client(settings, scripted) as client:
        again = await decide(client, paused[0], approve)
        assert again.status_code == 409, again.text
        assert again.json()["continued_by"] == continuation.json()["id"]
        still_open = await decide(client, paused[1], approve)
        assert still_open.status_code == 201, still_open.text
