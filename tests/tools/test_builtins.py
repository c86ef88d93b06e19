"""The built-in tools through the registry, the way the engine calls them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from pantheon.engine.tooling import ToolScope
from pantheon.tools.registry import ToolRegistry

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


async def test_calculator(registry: ToolRegistry) -> None:
    result = await registry.call("calculator", {"expression": "(2 + 3) * 4.5"}, SCOPE)
    assert (result.ok, result.content) == (True, "22.5")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "division by zero"),
        ("2**99999", "exponent 99999 is larger than 1000"),
        ("open('/etc/passwd')", "unsupported syntax Call"),
        ("().__class__.__bases__", "unsupported syntax Attribute"),
    ],
)
async def test_calculator_errors_reach_the_model(
    registry: ToolRegistry, expression: str, message: str
) -> None:
    result = await registry.call("calculator", {"expression": expression}, SCOPE)
    assert not result.ok
    assert message in result.content


async def test_calculator_rejects_oversized_input_before_parsing(registry: ToolRegistry) -> None:
    result = await registry.call("calculator", {"expression": "1+" * 1000 + "1"}, SCOPE)
    assert not result.ok
    assert "at most 500 characters" in result.content


async def test_current_time_defaults_to_utc(registry: ToolRegistry) -> None:
    result = await registry.call("current_time", {}, SCOPE)
    assert result.ok
    data = json.loads(result.content)
    moment = datetime.fromisoformat(data["iso"])
    assert data["timezone"] == "UTC"
    assert moment.utcoffset() == timedelta(0)
    assert data["weekday"] == moment.strftime("%A")


async def test_current_time_in_a_zone(registry: ToolRegistry) -> None:
    result = await registry.call("current_time", {"timezone": "Asia/Kolkata"}, SCOPE)
    data = json.loads(result.content)
    assert datetime.fromisoformat(data["iso"]).utcoffset() == timedelta(hours=5, minutes=30)


@pytest.mark.parametrize(
    "zone", ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "", "Europe"]
)
async def test_current_time_unknown_zone_is_named(registry: ToolRegistry, zone: str) -> None:
    result = await registry.call("current_time", {"timezone": zone}, SCOPE)
    assert not result.ok
    assert f"unknown time zone {zone!r}" in result.content
