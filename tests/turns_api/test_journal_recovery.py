"""Start-up recovery (live/recovery.py): journal files a dead process left are
recorded ``interrupted`` before the app serves, then dropped; files it cannot use are
handled without stopping the server."""

from __future__ import annotations

import fcntl
import uuid
from pathlib import Path

import httpx

from pantheon.db.base import utcnow
from pantheon.engine.events import (
    AgentStartedEvent,
    DeltaEvent,
    TurnEvent,
    TurnStartedEvent,
    event_to_json,
)
from pantheon.live.meta import TurnMeta
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.factories import create_room, create_session
from tests.turns_api.apps import running_client


async def _new_session(settings: Settings, scripted: ScriptedProvider) -> str:
    async with running_client(settings, scripted) as client:
        room = await create_room(client, ["alpha"], mode="roundtable")
        return str((await create_session(client, room["id"]))["id"])


def _write_journal(
    settings: Settings, session_id: str, *, torn: bool = True, turn_id: str | None = None
) -> Path:
    """What a process killed mid-answer leaves: meta, events, maybe half a line."""
    turn_id = turn_id or str(uuid.uuid4())
    meta = TurnMeta(
        turn_id=turn_id, session_id=session_id, owner_id=str(uuid.uuid4()), mode="roundtable",
        message="are you there?", created_at=utcnow(), idempotency_key="k",
    )  # fmt: skip
    events: list[TurnEvent] = [
        TurnStartedEvent(turn_id=turn_id, session_id=session_id, mode="roundtable", agents=["a"]),
        AgentStartedEvent(turn_id=turn_id, agent_key="alpha", agent_name="Alpha"),
        DeltaEvent(turn_id=turn_id, agent_key="alpha", text="Yes, I "),
        DeltaEvent(turn_id=turn_id, agent_key="alpha", text="am"),
    ]
    lines = [meta.to_json(), *(event_to_json(e) for e in events)]
    text = "\n".join(lines) + "\n" + ('{"type": "delta", "tu' if torn else "")
    directory = settings.data_dir / "journal"
    directory.mkdir(exist_ok=True)
    path = directory / f"{turn_id}.jsonl"
    path.write_text(text)
    return path


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


async def _turn(client: httpx.AsyncClient, turn_id: str) -> httpx.Response:
    return await client.get(f"/v1/turns/{turn_id}")


async def test_a_dead_process_s_turn_is_recorded_at_start_and_its_file_dropped(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    session_id = await _new_session(settings, scripted)
    path = _write_journal(settings, session_id)
    async with running_client(settings, scripted) as client:
        assert not path.exists()
        turn = (await _turn(client, path.stem)).json()
    assert (turn["status"], turn["message"]) == ("interrupted", "are you there?")
    assert [(m["agent_key"], m["content"]) for m in turn["messages"]] == [
        (None, "are you there?"),
        ("alpha", "Yes, I am"),  # the torn last line is not an event
    ]


async def test_a_locked_file_belongs_to_a_live_process_and_is_left_alone(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    session_id = await _new_session(settings, scripted)
    path = _write_journal(settings, session_id, torn=False)
    with path.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        async with running_client(settings, scripted) as client:
            assert (await _turn(client, path.stem)).status_code == 404
        assert path.exists()
    async with running_client(settings, scripted) as client:  # its owner is gone now
        assert (await _turn(client, path.stem)).json()["status"] == "interrupted"
    assert not path.exists()


async def test_unusable_files_never_stop_the_server(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    session_id = await _new_session(settings, scripted)
    directory = settings.data_dir / "journal"
    directory.mkdir(exist_ok=True)
    empty = directory / f"{uuid.uuid4()}.jsonl"
    empty.write_text("")
    corrupt = directory / f"{uuid.uuid4()}.jsonl"
    corrupt.write_text("not json\n")
    async with running_client(settings, scripted) as client:
        done = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})
        assert done.status_code == 201
    # Committed, but the process died before it deleted the file: only the file goes.
    _write_journal(settings, session_id, turn_id=done.json()["id"])
    async with running_client(settings, scripted) as client:
        assert (await _turn(client, done.json()["id"])).json()["status"] == "completed"
        turns = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["items"]
    assert [t["status"] for t in turns] == ["completed"]
    assert _names(directory) == [corrupt.with_suffix(".corrupt").name]
