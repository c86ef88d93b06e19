"""Per-mode test nets, derived from the engine's mode specs (engine/modes/specs.py): a new
mode is in every suite that asks for "every mode" (or every mode with a property) without
editing a test. Sessions and messages follow the spec, not the mode's name."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from pantheon.engine.modes.specs import MODE_SPECS, MODES, ModeSpec, mode_spec
from tests.factories import add_to_room, create_agent, create_room

__all__ = ["MODES", "calc_session", "modes_where", "question"]


def modes_where(test: Callable[[ModeSpec], bool]) -> list[str]:
    """The modes whose spec passes ``test``, in the specs' order."""
    return [spec.name for spec in MODE_SPECS if test(spec)]


def question(mode: str, text: str = "what is 17*23?") -> str:
    """``text`` as a turn of ``mode`` must ask it: naming ``calc`` and ``plain`` where the
    mode answers only the agents a message mentions."""
    return f"@calc and @plain: {text}" if mode_spec(mode).needs_mentions else text


async def calc_session(client: httpx.AsyncClient, mode: str) -> str:
    """A session of ``mode`` whose agent ``calc`` has the calculator: on ``calc`` itself
    where the mode runs on one agent, else in a room with ``plain`` as well."""
    calc = await create_agent(client, "calc", tools=["calculator"])
    if mode_spec(mode).session == "agent":
        response = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    else:
        room = await create_room(client, ["plain"], mode=mode)
        await add_to_room(client, room["id"], calc["id"])
        response = await client.post(f"/v1/rooms/{room['id']}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])
