"""Schemathesis with every phase (examples, coverage, fuzzing, stateful links) against a
real server, as its CLI runs against any deployment: no request may get a 5xx, even with
non-finite numbers in half of the bodies (``tests/auth/st_hooks.py``), and a method a path
does not serve must be a 405 with ``Allow`` (``unsupported_method``, ST204).

Sizes are small so ``make test`` stays fast; raise ``--max-examples`` by hand to dig.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from pantheon.db.engine import Database
from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.server.serving import TurnAwareServer
from pantheon.settings import LimitSettings, Settings
from tests.auth.conftest import make_user

pytestmark = pytest.mark.fuzz
PHASES = "examples,coverage,fuzzing,stateful"
CHECKS = "not_a_server_error,unsupported_method"
ROOT = Path(__file__).resolve().parents[2]  # tests.auth.st_hooks is imported from here
MAX_EXAMPLES = 8


async def _seed(url: str, key: str) -> None:
    """Resources for the links and path ids to reach (a room with an agent, a turn)."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers) as http:
        agent = await http.post("/v1/agents", json={"key": "a", "name": "A", "role_prompt": "r"})
        room = (await http.post("/v1/rooms", json={"name": "r"})).json()
        await http.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent.json()["id"]})
        session = (await http.post(f"/v1/rooms/{room['id']}/sessions", json={})).json()
        await http.post(f"/v1/sessions/{session['id']}/turns", json={"message": "hi"})


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, str]]:
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'fuzz.db'}",
        auth_mode="keys",
        limits=LimitSettings(turns_per_minute=1_000_000, body_timeout_s=5),
    )
    await upgrade(settings.resolved_database_url)
    db = Database.from_url(settings.resolved_database_url)
    try:
        key = await make_user(db, "fuzzer", admin=True)
    finally:
        await db.dispose()
    app = create_app(settings, scripted=ScriptedProvider())
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, access_log=False)
    server = TurnAwareServer(config, app, grace_s=1)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        await _seed(url, key)
        yield url, key
    finally:
        server.should_exit = True
        await task


async def test_all_phases_find_no_server_error(server: tuple[str, str], tmp_path: Path) -> None:
    url, key = server
    command = [
        str(Path(sys.executable).with_name("st")), "run", f"{url}/openapi.json",
        "--phases", PHASES, "--checks", CHECKS,
        "--header", f"Authorization: Bearer {key}",
        "--max-examples", str(MAX_EXAMPLES), "--seed", "1", "--generation-deterministic",
        "--workers", "1", "--request-timeout", "20", "--no-color",
    ]  # fmt: skip
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "SCHEMATHESIS_HOOKS": "tests.auth.st_hooks"}
    proc = await asyncio.create_subprocess_exec(  # cwd: its cache stays out of the checkout
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(proc.communicate(), timeout=600)
    report = output.decode(errors="replace")
    assert proc.returncode == 0, report[-6000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in report, report[-2000:]
    generated = re.search(r"(\d+) generated, (\d+) passed", report)
    assert generated is not None, report[-2000:]
    assert int(generated[1]) == int(generated[2]) >= 500
