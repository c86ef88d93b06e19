"""The MCP conformance suite (``@modelcontextprotocol/conformance``, npm) against a real
Pantheon server: every server scenario that applies to a server offering tools passes.

The suite's package and its node (it needs node 22) come from
``tests/mcp_server/conformance/package-lock.json`` (``npm ci``, which ``.ci/run`` does).
Without them the test is skipped with the reason; with ``CI=true`` it is mandatory.
Each scenario runs alone (``--scenario``), and passes when the CLI exits 0 and every
check it recorded is a success (or information): a warning fails too. The suite's list
of server scenarios must be exactly the applied ones plus the ones that cannot apply,
each with its reason (docs/mcp-server.md#conformance), so a new suite version's
scenarios are decided, never silently left out.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from tests.factories import create_room
from tests.turns_api.conftest import Serve

SUITE = Path(__file__).parent / "conformance"
NODE = SUITE / "node_modules" / ".bin" / "node"
CLI = SUITE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
RUN_TIMEOUT_S = 120.0
APPLIED = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection")
_FIXTURE_TOOL = "calls the suite's fixture tool `{}`, which only its reference server has"
NOT_APPLICABLE = {
    "logging-set-level": "Pantheon offers no logging capability",
    "completion-complete": "completions complete prompt and resource arguments; "
    "Pantheon offers neither",
    "tools-call-simple-text": _FIXTURE_TOOL.format("test_simple_text"),
    "tools-call-image": _FIXTURE_TOOL.format("test_image_content"),
    "tools-call-audio": _FIXTURE_TOOL.format("test_audio_content"),
    "tools-call-embedded-resource": _FIXTURE_TOOL.format("test_embedded_resource"),
    "tools-call-mixed-content": _FIXTURE_TOOL.format("test_multiple_content_types"),
    "tools-call-with-logging": _FIXTURE_TOOL.format("test_tool_with_logging"),
    "tools-call-error": _FIXTURE_TOOL.format("test_error_handling"),
    "tools-call-with-progress": _FIXTURE_TOOL.format("test_tool_with_progress"),
    "tools-call-sampling": _FIXTURE_TOOL.format("test_sampling"),
    "tools-call-elicitation": _FIXTURE_TOOL.format("test_elicitation"),
    "elicitation-sep1034-defaults": _FIXTURE_TOOL.format("test_elicitation_sep1034_defaults"),
    "elicitation-sep1330-enums": _FIXTURE_TOOL.format("test_elicitation_sep1330_enums"),
    "json-schema-2020-12": _FIXTURE_TOOL.format("json_schema_2020_12_tool"),
    "server-sse-polling": _FIXTURE_TOOL.format("test_reconnection"),
    "server-sse-multiple-streams": "it tests streams within one Mcp-Session-Id; Pantheon "
    "is stateless and issues none (the scenario only warns and checks nothing)",
    **{
        f"resources-{name}": "Pantheon offers no resources"
        for name in ("list", "read-text", "read-binary", "templates-read")
    },
    "resources-subscribe": "Pantheon offers no resources",
    "resources-unsubscribe": "Pantheon offers no resources",
    **{
        f"prompts-{name}": "Pantheon offers no prompts"
        for name in ("list", "get-simple", "get-with-args", "get-embedded-resource")
    },
    "prompts-get-with-image": "Pantheon offers no prompts",
}
PASSING = {"SUCCESS", "INFO"}


def _installed() -> None:
    if NODE.exists() and CLI.exists():
        return
    reason = (
        "the MCP conformance suite is not installed: npm ci --prefix tests/mcp_server/conformance"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (mandatory with CI=true; .ci/run installs it)")
    pytest.skip(reason)


async def _cli(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        str(NODE),
        str(CLI),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(errors="replace")


def _checks(results: Path) -> list[dict[str, object]]:
    found = [
        check for path in results.rglob("checks.json") for check in json.loads(path.read_text())
    ]
    assert found, f"the suite recorded no checks under {results}"
    return found


async def test_the_suite_s_server_scenarios_are_all_decided() -> None:
    _installed()
    code, out = await _cli("list", "--server")
    assert code == 0, out
    listed = set(re.findall(r"^\s+- ([a-z0-9-]+) \[", out, re.MULTILINE))
    assert listed == set(APPLIED) | set(NOT_APPLICABLE)
    assert not set(APPLIED) & set(NOT_APPLICABLE)


@pytest.mark.parametrize("scenario", APPLIED)
async def test_a_pantheon_server_passes_the_scenario(
    serve: Serve, tmp_path: Path, scenario: str
) -> None:
    _installed()
    async with serve() as live:
        await create_room(live.http, ["alpha", "beta"], name="Launch Team")
        results = tmp_path / "results"
        code, out = await _cli(
            "server", "--url", f"{live.url}/mcp", "--scenario", scenario, "-o", str(results)
        )
    assert code == 0, out
    checks = _checks(results)
    failed = [c for c in checks if c["status"] not in PASSING]
    assert not failed, json.dumps(failed, indent=1)
    assert any(c["status"] == "SUCCESS" for c in checks), out
    if scenario == "tools-list":  # the listing it checked is the caller's real tools
        listed = next(c for c in checks if c["id"] == "tools-list")["details"]
        assert isinstance(listed, dict)
        assert {"room_launch_team", "agent_alpha", "agent_beta"} <= set(listed["tools"])
