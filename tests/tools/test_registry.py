"""The decorator registry: schemas from signatures, scope injection, every failure a result."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import pytest
from pydantic import Field

from pantheon.engine.tooling import ToolError, ToolScope
from pantheon.tools.registry import ToolRegistry, tool

SCOPE = ToolScope(owner_id="u1", turn_id="t1", agent_id="a1", agent_key="alice", room_id="r1")


@tool
async def greet(
    name: Annotated[str, Field(description="Who to greet", max_length=20)],
    times: int = 1,
) -> str:
    """Greet someone."""
    return " ".join([f"hello {name}"] * times)


@tool(name="who-am-i")
async def whoami(scope: ToolScope) -> dict[str, Any]:
    """Say who is calling."""
    return {"agent": scope.agent_key, "room": scope.room_id}


@tool
async def refuse(reason: str) -> str:
    """Always fails with a message for the model."""
    raise ToolError(reason)


@tool
async def crash() -> str:
    """Fails with an unexpected error."""
    raise RuntimeError("secret internal detail")


@tool
async def chatty(size: int) -> str:
    """Returns a lot of text."""
    return "x" * size


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([greet, whoami, refuse, crash, chatty], max_result_chars=200)


def test_schema_comes_from_the_signature() -> None:
    assert greet.name == "greet"
    assert greet.description == "Greet someone."
    assert greet.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who to greet", "maxLength": 20},
            "times": {"type": "integer", "default": 1},
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_scope_parameter_is_injected_not_described() -> None:
    assert whoami.name == "who-am-i"
    assert whoami.parameters["properties"] == {}
    assert whoami.scope_param == "scope"


async def test_calls_with_validated_arguments(registry: ToolRegistry) -> None:
    result = await registry.call("greet", {"name": "bob", "times": 2}, SCOPE)
    assert result.ok
    assert result.content == "hello bob hello bob"


async def test_non_string_results_are_json(registry: ToolRegistry) -> None:
    result = await registry.call("who-am-i", {}, SCOPE)
    assert result.ok
    assert result.content == '{"agent": "alice", "room": "r1"}'


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "name: Field required"),
        ({"name": "bob", "times": "many"}, "times: Input should be a valid integer"),
        ({"name": "x" * 21}, "name: String should have at most 20 characters"),
        ({"name": "bob", "extra": 1}, "extra: Extra inputs are not permitted"),
    ],
)
async def test_invalid_arguments_are_an_error_result(
    registry: ToolRegistry, arguments: dict[str, Any], message: str
) -> None:
    result = await registry.call("greet", arguments, SCOPE)
    assert not result.ok
    assert result.content.startswith("invalid arguments for greet: ")
    assert message in result.content


async def test_tool_error_message_reaches_the_model(registry: ToolRegistry) -> None:
    result = await registry.call("refuse", {"reason": "no such order 42"}, SCOPE)
    assert (result.ok, result.content) == (False, "no such order 42")


async def test_unexpected_errors_are_generic_and_logged(
    registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        result = await registry.call("crash", {}, SCOPE)
    assert (result.ok, result.content) == (False, "crash failed with an internal error")
    assert "secret internal detail" not in result.content
    assert "secret internal detail" in caplog.text


async def test_results_are_capped_with_a_marker(registry: ToolRegistry) -> None:
    short = await registry.call("chatty", {"size": 200}, SCOPE)
    assert short.content == "x" * 200
    long = await registry.call("chatty", {"size": 10_000}, SCOPE)
    assert long.ok
    assert len(long.content) == 200
    assert long.content.endswith("[truncated: result was 10000 characters, limit 200]")


async def test_unknown_tool_names_the_available_ones(registry: ToolRegistry) -> None:
    result = await registry.call("nope", {}, SCOPE)
    assert not result.ok
    assert "unknown tool 'nope'" in result.content
    assert "greet" in result.content


def test_registrations_after_construction() -> None:
    registry = ToolRegistry.with_builtins()

    def factory(prefix: str) -> None:
        @registry.register
        async def search_knowledge(query: str, scope: ToolScope) -> str:
            """Search this agent's documents."""
            return f"{prefix}:{query}:{scope.agent_key}"

    factory("db")
    assert registry.names() == ["calculator", "current_time", "search_knowledge"]
    registry.add(greet)
    with pytest.raises(ValueError, match="'greet' is already registered"):
        registry.add(greet)


async def test_factory_tools_see_their_closure_and_scope() -> None:
    registry = ToolRegistry()
    prefix = "found"

    # The knowledge package's shape: defaults first, the scope keyword-only.
    @registry.register
    async def lookup(query: str, limit: int = 5, *, scope: ToolScope) -> str:
        """Look something up."""
        return f"{prefix} {limit} {query} for {scope.owner_id}"

    assert registry.get("lookup") is not None
    assert lookup.parameters["required"] == ["query"]
    result = await registry.call("lookup", {"query": "q"}, SCOPE)
    assert result.content == "found 5 q for u1"


def test_definition_mistakes_fail_at_registration() -> None:
    async def no_doc(x: int) -> str:
        return ""

    async def untyped(x) -> str:  # type: ignore[no-untyped-def]
        """Doc."""
        return ""

    async def variadic(*args: int) -> str:
        """Doc."""
        return ""

    def sync(x: int) -> str:
        """Doc."""
        return ""

    with pytest.raises(ValueError, match="needs a docstring"):
        tool(no_doc)
    with pytest.raises(TypeError, match="needs a type annotation"):
        tool(untyped)
    with pytest.raises(TypeError, match="must be a plain parameter"):
        tool(variadic)
    with pytest.raises(TypeError, match="must be an async function"):
        tool(sync)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must match"):
        tool(name="has space")(greet.fn)
    with pytest.raises(ValueError, match="must match"):
        tool(name="x" * 65)(greet.fn)
