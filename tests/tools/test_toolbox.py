"""ToolBox over in-process tools only: entries to definitions, dispatch, deadlines."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from pantheon.engine.tooling import ToolRunner, ToolScope
from pantheon.settings import Settings, ToolSettings
from pantheon.tools.registry import ToolRegistry
from pantheon.tools.toolbox import ToolBox, open_toolbox

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)


@pytest.fixture
def toolbox() -> ToolBox:
    registry = ToolRegistry.with_builtins(max_result_chars=300)

    @registry.register
    async def slow() -> str:
        """Takes too long."""
        await anyio.sleep(30)
        return "late"

    return ToolBox(registry, {}, ToolSettings(timeout_s=0.2, max_result_chars=300))


def test_is_a_tool_runner(toolbox: ToolBox) -> None:
    runner: ToolRunner = toolbox
    assert runner is toolbox


async def test_definitions_follow_entries_and_skip_the_unknown(toolbox: ToolBox) -> None:
    allowed = ["current_time!", "calculator", "calculator", "nope", "bad entry", "srv.*"]
    definitions = await toolbox.definitions(allowed)
    assert [d.name for d in definitions] == ["current_time", "calculator"]
    assert definitions[1].parameters["required"] == ["expression"]
    assert await toolbox.definitions([]) == []


async def test_calls_dispatch_by_name(toolbox: ToolBox) -> None:
    result = await toolbox.call("calculator", {"expression": "6*7"}, SCOPE)
    assert (result.ok, result.content) == (True, "42")
    unknown = await toolbox.call("nope", {}, SCOPE)
    assert (unknown.ok, unknown.content) == (False, "unknown tool 'nope'")


async def test_in_process_tools_have_a_deadline(toolbox: ToolBox) -> None:
    with anyio.fail_after(5):
        result = await toolbox.call("slow", {}, SCOPE)
    assert (result.ok, result.content) == (False, "slow: no answer within 0.2s")


def test_approval_entries(toolbox: ToolBox) -> None:
    assert toolbox.needs_approval(["current_time!", "calculator"], "current_time")
    assert not toolbox.needs_approval(["current_time!", "calculator"], "calculator")
    assert not toolbox.needs_approval(["srv.*!"], "srv__x"), "unknown server grants nothing"


def test_validate_names_what_exists(toolbox: ToolBox) -> None:
    assert toolbox.builtin_names() == ["calculator", "current_time", "slow"]
    assert toolbox.server_names() == []
    with pytest.raises(ValueError, match="built-in tools: calculator, current_time, slow"):
        toolbox.validate(["weather"])


async def test_open_toolbox_without_config_has_the_builtins() -> None:
    async with open_toolbox(Settings(config_file=None, models_file=None)) as toolbox:
        assert toolbox.builtin_names() == ["calculator", "current_time"]
        assert [i.name for i in await toolbox.catalog()] == ["calculator", "current_time"]


async def test_open_toolbox_rejects_a_bad_config() -> None:
    settings = Settings(config_file=Path("/nonexistent/pantheon.toml"))
    with pytest.raises(ValueError, match=r"config file /nonexistent/pantheon\.toml: cannot read"):
        async with open_toolbox(settings):
            pass
