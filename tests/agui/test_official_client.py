"""The official AG-UI client (``@ag-ui/client`` 1.0, run by node: tests/agui/client/run.mjs)
drives a room on a real server through a four-specialist orchestrator turn: its verifier
finds nothing wrong, its applier places every event, and each message carries its agent;
and through an approval: the run ends on the client's pending interrupt, which the client
resumes with its own ``buildResumeArray``.

Outside CI the test is skipped, with the reason shown, when node or the npm package is
missing (``npm ci`` in tests/agui/client); with ``CI=true`` that fails the run instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.agui.conftest import SPECIALISTS, script_four_specialists
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.approvals_helpers import echo, gated_agent
from tests.turns_api.conftest import Serve

CLIENT = Path(__file__).resolve().parent / "client"
NODE_TIMEOUT_S = 60  # the whole node run, start to exit


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs)"
    if not (CLIENT / "node_modules" / "@ag-ui" / "client").is_dir():
        return f"@ag-ui/client is not installed (npm ci --prefix {CLIENT})"
    return None


@pytest.fixture
def node_client() -> Path:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"AG-UI client test cannot run: {reason} (mandatory with CI=true)")
        pytest.skip(f"AG-UI client test skipped: {reason}")
    return CLIENT / "run.mjs"


async def _run_node(script: Path, *args: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        "node", str(script), *args, cwd=CLIENT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(process.communicate(), NODE_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode == 0, err.decode()
    result: dict[str, Any] = json.loads(out)
    return result


async def test_the_official_client_reads_four_concurrent_specialists(
    serve: Serve, scripted: ScriptedProvider, node_client: Path
) -> None:
    script_four_specialists(scripted)
    async with serve() as live:
        room = await create_room(live.http, SPECIALISTS, mode="orchestrator")
        url = f"{live.url}/agui/rooms/{room['id']}"
        seen = await _run_node(node_client, url, "plan it")
    [run] = seen["runs"]
    assert run["error"] is None
    assert seen["warnings"] == []
    assert run["outcome"] == {"type": "success"}
    assert run["events"][0] == "RUN_STARTED"
    assert run["events"][-1] == "RUN_FINISHED"
    answers = [m for m in seen["messages"] if m["role"] == "assistant"]
    by_name = {m["name"]: m for m in answers}
    assert set(by_name) == {key.title() for key in SPECIALISTS} | {"Manager"}
    for key in SPECIALISTS:
        assert by_name[key.title()]["content"] == f"{key} says hello from its part"
    assert by_name["Manager"]["content"] == "the combined answer"
    # Each specialist's message belongs to its own subagent run; the synthesis is the room's.
    runs = {s["id"]: s["name"] for s in seen["subagents"]}
    assert sorted(runs.values()) == sorted(key.title() for key in SPECIALISTS)
    for key in SPECIALISTS:
        assert runs[by_name[key.title()]["subagentRunId"]] == key.title()
    assert "subagentRunId" not in by_name["Manager"]
    # The four streamed at once: all four messages opened before the first closed.
    events = run["events"]
    first_end = events.index("TEXT_MESSAGE_END")
    assert events[:first_end].count("TEXT_MESSAGE_START") == len(SPECIALISTS)


async def test_the_official_client_resumes_an_approval_interrupt(
    serve: Serve, scripted: ScriptedProvider, node_client: Path
) -> None:
    scripted.script(gated_agent, agent="calc")
    async with serve() as live:
        tools = TestTools({"calculator": calculator, "echo": echo})
        use_tools(live.app, tools)
        room = await create_room(live.http, [], mode="roundtable")
        calc = await create_agent(live.http, "calc", tools=["calculator!", "echo"])
        await add_to_room(live.http, room["id"], calc["id"])
        url = f"{live.url}/agui/rooms/{room['id']}"
        seen = await _run_node(node_client, url, "what is 17*23?", "approve")
    paused, resumed = seen["runs"]
    assert (paused["error"], resumed["error"], seen["warnings"]) == (None, None, [])
    assert paused["outcome"]["type"] == "interrupt"
    assert [i["id"] for i in paused["interrupts"]] == ["c-calc"]
    assert resumed["outcome"] == {"type": "success"}
    assert resumed["interrupts"] == []
    assert "TOOL_CALL_START" not in resumed["events"]
    # The client's transcript: the call, its result and the answer, each placed.
    results = {m["toolCallId"]: m["content"] for m in seen["messages"] if m["role"] == "tool"}
    assert results == {"c-echo": "echo: hi", "c-calc": "391"}
    answers = [m["content"] for m in seen["messages"] if m["role"] == "assistant"]
    assert answers[-1] == "Result: 391 | echo: hi"
    assert ("calculator", {"expression": "17*23"}) in tools.calls
