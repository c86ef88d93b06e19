"""``GET /v1/tools`` and agent ``tools`` validation, through HTTP like a client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.app_factory import AppWith
from tests.factories import create_agent
from tests.tools.conftest import FAST, STDIO_COMMAND, write_config

CONFIG = f"""
[mcp_servers.local]
command = {STDIO_COMMAND}

[mcp_servers.ghost]
command = ["/nonexistent/mcp-server"]
"""


@pytest.fixture
async def mcp_client(app_with: AppWith, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """An app whose config file declares a working stdio server and one that cannot start."""
    async with app_with(config_file=write_config(tmp_path, CONFIG), tools=FAST) as started:
        yield started.http


async def test_lists_builtins(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/tools")
    assert response.status_code == 200
    body = response.json()
    assert (body["total"], body["limit"], body["offset"]) == (3, 50, 0)
    calculator, current_time, search_knowledge = body["items"]
    assert calculator["name"] == "calculator"
    assert calculator["source"] == "builtin"
    assert calculator["available"] is True
    assert calculator["parameters"]["required"] == ["expression"]
    assert current_time["name"] == "current_time"
    assert current_time["description"].startswith("The current date and time")
    assert search_knowledge["name"] == "search_knowledge"
    assert search_knowledge["parameters"]["required"] == ["query"]
    assert "scope" not in search_knowledge["parameters"]["properties"]  # injected


async def test_pages(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/tools", params={"limit": 1, "offset": 1})).json()
    assert [i["name"] for i in body["items"]] == ["current_time"]
    assert (body["total"], body["limit"], body["offset"]) == (3, 1, 1)
    bad = await client.get("/v1/tools", params={"limit": 0})
    assert bad.status_code == 422


async def test_lists_mcp_tools_and_unavailable_servers(mcp_client: httpx.AsyncClient) -> None:
    response = await mcp_client.get("/v1/tools", params={"limit": 200})
    assert response.status_code == 200
    items = {i["name"]: i for i in response.json()["items"]}
    assert items["local.add"]["source"] == "mcp:local"
    assert items["local.add"]["available"] is True
    assert items["local.add"]["parameters"]["required"] == ["a", "b"]
    assert "local.dotted.name" in items
    ghost = items["ghost.*"]
    assert (ghost["source"], ghost["available"]) == ("mcp:ghost", False)


async def test_agent_tools_are_validated(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "calc", tools=["calculator", "current_time!"])
    assert agent["tools"] == ["calculator", "current_time!"]
    cases = {
        "search": "unknown tool 'search'; built-in tools: calculator, current_time",
        "orders.refund": "unknown MCP server 'orders'; servers: none configured",
        "not a tool": "malformed tool entry 'not a tool'",
        "orders.": "malformed tool entry 'orders.'",
    }
    for entry, message in cases.items():
        body = {"key": "x", "name": "X", "role_prompt": "r", "tools": [entry]}
        response = await client.post("/v1/agents", json=body)
        assert response.status_code == 422, entry
        assert message in response.json()["detail"]
    too_long = {"key": "x", "name": "X", "role_prompt": "r", "tools": ["a" * 201]}
    assert (await client.post("/v1/agents", json=too_long)).status_code == 422
    assert (await client.get("/v1/agents")).json()["total"] == 1


async def test_agent_patch_validates_tools(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "calc")
    url = f"/v1/agents/{agent['id']}"
    bad = await client.patch(url, json={"tools": ["calculator", "weather"]})
    assert bad.status_code == 422
    assert "unknown tool 'weather'" in bad.json()["detail"]
    assert (await client.get(url)).json()["tools"] == []
    good = await client.patch(url, json={"tools": ["current_time"]})
    assert good.status_code == 200
    assert good.json()["tools"] == ["current_time"]


async def test_agents_may_use_configured_servers(mcp_client: httpx.AsyncClient) -> None:
    agent = await create_agent(mcp_client, "ops", tools=["local.*", "local.add!", "ghost.x"])
    assert agent["tools"] == ["local.*", "local.add!", "ghost.x"]
    response = await mcp_client.post(
        "/v1/agents", json={"key": "y", "name": "Y", "role_prompt": "r", "tools": ["files.x"]}
    )
    assert response.status_code == 422
    assert "servers: ghost, local" in response.json()["detail"]


async def test_a_bad_server_table_stops_startup(app_with: AppWith, tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        '[mcp_servers.orders]\nurl = "http://x/mcp"\n'
        'headers = { Authorization = "Bearer ${PANTHEON_TEST_UNSET_TOKEN}" }\n',
    )
    with pytest.raises(ValueError, match=r"mcp_servers\.orders: headers\.Authorization") as caught:
        async with app_with(config_file=config):
            pass
    assert str(config) in str(caught.value)
    assert "PANTHEON_TEST_UNSET_TOKEN is not set" in str(caught.value)
