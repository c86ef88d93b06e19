"""A service whose models have a tiny context window, for the context and summary tests.

``tiny`` is a scripted alias of 700 tokens with ``max_tokens = 100`` (so prompts may take
600) and prices, so summary calls cost something; it is the default model, hence the
manager's and every agent's. ``seed_turns`` writes finished turns straight into the
database, so a test can start from a long session without running hundreds of turns.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import insert

from pantheon.db.engine import Database
from pantheon.db.models import Message, Turn
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.factories import create_room, create_session

WINDOW = 700
MAX_TOKENS = 100
TINY = f"""
[models.tiny]
provider = "scripted"
base_url = "http://unused"
context_window = {WINDOW}
max_tokens = {MAX_TOKENS}
input_price_per_mtok = 1000.0
output_price_per_mtok = 2000.0
"""


@dataclass
class Tiny:
    app: FastAPI
    http: httpx.AsyncClient

    async def session(self, keys: list[str], **room: Any) -> str:
        created = await create_room(self.http, keys, **room)
        return str((await create_session(self.http, created["id"]))["id"])


@pytest.fixture
async def tiny(
    tmp_path: Path, settings: Settings, scripted: ScriptedProvider
) -> AsyncIterator[Tiny]:
    async with tiny_service(tmp_path, settings, scripted) as service:
        yield service


@contextlib.asynccontextmanager
async def tiny_service(
    tmp_path: Path, settings: Settings, scripted: ScriptedProvider, **overrides: Any
) -> AsyncIterator[Tiny]:
    models = tmp_path / "tiny.toml"
    models.write_text(TINY)
    chosen = {"config_file": models, "default_model": "tiny", **overrides}
    async with running_app(settings, scripted, **chosen) as started:
        yield Tiny(started.app, started.http)


async def seed_turns(db: Database, session_id: str, count: int, agent_key: str) -> None:
    """``count`` finished one-agent turns, a minute apart and ending a minute ago."""
    session = uuid.UUID(session_id)
    start = datetime.now(UTC) - timedelta(minutes=count + 1)
    turns: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for n in range(count):
        turn_id, at = uuid.uuid4(), start + timedelta(minutes=n)
        done = at + timedelta(seconds=5)
        turns.append(
            {"id": turn_id, "session_id": session, "mode": "roundtable", "status": "completed",
             "message": f"seeded question {n}", "output": f"seeded answer {n}",
             "created_at": at, "started_at": at, "finished_at": done}
        )  # fmt: skip
        for seq, (role, key, text, when) in enumerate(
            [("user", None, f"seeded question {n}", at),
             ("assistant", agent_key, f"seeded answer {n}", done)]
        ):  # fmt: skip
            messages.append(
                {"id": uuid.uuid4(), "turn_id": turn_id, "session_id": session, "seq": seq,
                 "role": role, "agent_key": key, "agent_name": key and key.title(),
                 "content": text, "status": "ok", "visible": True, "created_at": when}
            )  # fmt: skip
    async with unit_of_work(db, write=True) as write:
        await write.execute(insert(Turn), turns)
        await write.execute(insert(Message), messages)
