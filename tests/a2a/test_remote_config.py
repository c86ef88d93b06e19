"""``[a2a_agents.NAME]`` of the config file: every mistake fails at startup naming the
agent; a call that cannot reach or authenticate to the agent fails as an LLM error."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pantheon.config_file import read_config_file
from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.providers.a2a_remote import A2AAgentProvider
from pantheon.llm.providers.a2a_remote_config import RemoteAgent, load_a2a_agents
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import ChatMessage, LLMRequest
from pantheon.settings import Settings


def _agents(tmp_path: Path, text: str) -> list[RemoteAgent]:
    path = tmp_path / "pantheon.toml"
    path.write_text(text)
    return load_a2a_agents(read_config_file(path))


def test_an_agent_becomes_a_model_alias(tmp_path: Path) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_text(
        '[a2a_agents.planner]\nurl = "https://agents.example/a2a/"\n'
        'headers = { Authorization = "PLANNER_TOKEN" }\ntimeout_s = 12\n'
    )
    registry = ModelRegistry.from_settings(Settings(config_file=path))
    alias = registry.get("planner")
    assert (alias.provider, alias.base_url) == ("a2a", "https://agents.example/a2a")
    [agent] = load_a2a_agents(read_config_file(path))
    assert (agent.headers, agent.timeout_s) == ({"Authorization": "PLANNER_TOKEN"}, 12.0)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('url = "ftp://x"', "url must be"),
        ("timeout_s = 5", "url must be"),
        ('url = "http://x"\ncolor = "red"', "unknown key(s) color"),
        ('url = "http://x"\nheaders = { A = 1 }', "headers must map"),
        ('url = "http://x"\ntimeout_s = 0', "timeout_s must be"),
        ('url = "http://x"\ncontext_window = true', "context_window must be"),
    ],
)
def test_a_bad_agent_fails_naming_it(tmp_path: Path, table: str, problem: str) -> None:
    with pytest.raises(ValueError, match=r"a2a_agents\.bad") as raised:
        _agents(tmp_path, f"[a2a_agents.bad]\n{table}\n")
    assert problem in str(raised.value)


def test_an_agent_may_not_shadow_a_model(tmp_path: Path) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_text('[models.twin]\nbase_url = "http://m"\n[a2a_agents.twin]\nurl = "http://a"\n')
    with pytest.raises(ValueError, match="a model alias has that name"):
        ModelRegistry.from_settings(Settings(config_file=path))


async def test_calls_that_cannot_reach_or_authenticate_fail_as_llm_errors() -> None:
    request = LLMRequest(model="far", messages=(ChatMessage("user", "hi"),))
    unreachable = RemoteAgent("far", "http://127.0.0.1:9", timeout_s=2)
    locked = RemoteAgent("far", "http://127.0.0.1:9", {"Authorization": "PANTHEON_TEST_UNSET"})
    async with httpx.AsyncClient() as http:
        provider = A2AAgentProvider(http, [unreachable])
        with pytest.raises(Unavailable, match="A2A agent far"):
            [item async for item in provider.stream(unreachable.alias, request)]
        provider = A2AAgentProvider(http, [locked])
        with pytest.raises(BadRequest, match="PANTHEON_TEST_UNSET is unset"):
            [item async for item in provider.stream(locked.alias, request)]
