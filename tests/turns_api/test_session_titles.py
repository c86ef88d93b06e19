"""An untitled session is named after its first message as soon as that turn starts, not
only once it is recorded (issue 33: running sessions all read "Untitled session of ...")."""

from __future__ import annotations

from typing import Any

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room
from tests.sse import open_stream, types
from tests.turns_api.conftest import LiveServer

SLOW = " ".join(f"w{i}" for i in range(12))
FIRST = "  \n  Plan   the launch of the new product line with every team and each date\nmore"
TITLE = "Plan the launch of the new product line with every team and…"


async def _untitled(live: LiveServer, title: str = "", key: str = "alpha") -> tuple[str, str]:
    room = await create_room(live.http, [key], mode="roundtable")
    made = await live.http.post(f"/v1/rooms/{room['id']}/sessions", json={"title": title})
    assert made.status_code == 201, made.text
    return room["id"], made.json()["id"]


async def _read(live: LiveServer, path: str) -> Any:
    response = await live.http.get(path)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_running_first_turn_names_its_session(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="alpha", purpose="specialist", chunk_delay_s=0.04)
    room_id, session_id = await _untitled(live)
    url = f"/v1/sessions/{session_id}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": FIRST}) as stream:
        await stream.until("delta")  # the turn runs: nothing of it is recorded yet
        running = await _read(live, f"/v1/sessions/{session_id}")
        assert running["title"] == TITLE
        assert running["turn_count"] == 0
        listed = await _read(live, f"/v1/rooms/{room_id}/sessions")
        assert [s["title"] for s in listed["items"]] == [TITLE]
        await stream.rest()
    assert types(stream.seen)[-1] == "turn_completed"
    second = await live.http.post(url, json={"message": "A later message"})
    assert second.status_code == 201, second.text
    done = await _read(live, f"/v1/sessions/{session_id}")
    assert (done["title"], done["title_is_auto"], done["turn_count"]) == (TITLE, True, 2)
    renamed = await live.http.patch(f"/v1/sessions/{session_id}", json={"title": "Mine"})
    assert (renamed.json()["title"], renamed.json()["title_is_auto"]) == ("Mine", False)
    cleared = await live.http.patch(f"/v1/sessions/{session_id}", json={"title": ""})
    assert (cleared.json()["title"], cleared.json()["title_is_auto"]) == (TITLE, True)
    third = await live.http.post(url, json={"message": "Not a title"})
    assert third.status_code == 201, third.text
    assert (await _read(live, f"/v1/sessions/{session_id}"))["title"] == TITLE


async def test_a_given_title_is_kept_and_a_refused_turn_names_nothing(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script("fine", agent="alpha", purpose="specialist")
    _, named = await _untitled(live, "Chosen")
    made = await live.http.post(f"/v1/sessions/{named}/turns", json={"message": "Other words"})
    assert made.status_code == 201, made.text
    read = await _read(live, f"/v1/sessions/{named}")
    assert (read["title"], read["title_is_auto"]) == ("Chosen", False)

    _, untitled = await _untitled(live, key="beta")
    limit = (await _read(live, "/v1/defaults"))["max_message_chars"]
    too_long = {"message": "x" * (limit + 1)}  # refused by the preflight, as a turn starts
    refused = await live.http.post(f"/v1/sessions/{untitled}/turns", json=too_long)
    assert refused.status_code == 422, refused.text
    read = await _read(live, f"/v1/sessions/{untitled}")
    assert (read["title"], read["title_is_auto"]) == ("", False)
