"""One turn per mode, the same for every door: tests/turns_api/test_public_streams.py's.

Agent ``calc`` calls the calculator once (17*23) and answers with its result; agent
``plain`` answers with the scripted provider's default reply. Standalone turns run on
``calc`` alone; room turns on a room of ``plain`` then ``calc``, in the mode asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from fastapi import FastAPI

from pantheon.engine.modes.specs import MODE_SPECS, ModeSpec
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, use_tools
from tests.factories import add_to_room, create_agent, create_room

_SPECS: dict[str, ModeSpec] = {spec.name: spec for spec in MODE_SPECS}


@dataclass(frozen=True)
class Target:
    """Where a door sends the turn: the room (``None`` for a standalone turn) and the
    message (with @mentions where the mode needs them)."""

    mode: str
    room_id: str | None
    room_name: str
    message: str


async def prepare(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str
) -> Target:
    """Agents, room and scripts for one turn of ``mode``."""
    use_tools(app, TestTools())
    scripted.script(calculating_agent, agent="calc")
    scripted.script('{"agents": ["calc", "plain"]}', purpose="route")
    scripted.script("the synthesis", purpose="synthesis")
    calc = await create_agent(client, "calc", tools=["calculator"])
    spec = _SPECS[mode]
    message = "@calc and @plain: what is 17*23?" if spec.needs_mentions else "what is 17*23?"
    if spec.session == "agent":
        return Target(mode, None, "", message)
    room = await create_room(client, ["plain"], mode=mode, name="Team")
    await add_to_room(client, room["id"], calc["id"])
    return Target(mode, str(room["id"]), "team", message)
