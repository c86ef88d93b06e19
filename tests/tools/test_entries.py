"""Agent tool entries: what parses, what validates, and the names a model sees."""

from __future__ import annotations

import pytest

from pantheon.tools.entries import ToolEntry, parse_entry, validate_entries
from pantheon.tools.names import is_model_name, mcp_model_name


@pytest.mark.parametrize(
    ("entry", "parsed"),
    [
        ("calculator", ToolEntry(None, "calculator", False)),
        ("calculator!", ToolEntry(None, "calculator", True)),
        ("orders.refund!", ToolEntry("orders", "refund", True)),
        ("orders.*", ToolEntry("orders", "*", False)),
        ("files.read.v2", ToolEntry("files", "read.v2", False)),
    ],
)
def test_parses(entry: str, parsed: ToolEntry) -> None:
    assert parse_entry(entry) == parsed


@pytest.mark.parametrize(
    "entry", ["", "!", "calc ulator", "orders.", ".tool", "orders.*x", "9orders.x", "a!!", "é"]
)
def test_malformed(entry: str) -> None:
    with pytest.raises(ValueError, match="malformed tool entry"):
        parse_entry(entry)


def test_validation_names_the_available_ones() -> None:
    builtins, servers = ["calculator", "current_time"], ["orders"]
    assert len(validate_entries(["calculator", "orders.*", "orders.x!"], builtins, servers)) == 3
    with pytest.raises(
        ValueError, match="unknown tool 'search'; built-in tools: calculator, current_time"
    ):
        validate_entries(["search"], builtins, servers)
    with pytest.raises(ValueError, match="unknown MCP server 'files'; servers: orders"):
        validate_entries(["files.read"], builtins, servers)
    with pytest.raises(ValueError, match="servers: none configured"):
        validate_entries(["files.read"], builtins, [])


def test_mcp_model_names_fit_the_pattern() -> None:
    assert mcp_model_name("orders", "refund") == "orders__refund"
    assert mcp_model_name("files", "read.v2/all") == "files__read_v2_all"
    long_a = mcp_model_name("srv", "a" * 100)
    long_b = mcp_model_name("srv", "a" * 99 + "b")
    assert len(long_a) == 64
    assert long_a != long_b
    assert all(is_model_name(n) for n in (long_a, long_b))
