"""MCP shapes to Pantheon's: a listed tool to a model-visible definition, a call result to
the text a model reads (text joined; images, audio and binary resources described)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types import (
    AudioContent,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    Tool,
)

from pantheon.llm.types import ToolDefinition
from pantheon.tools.names import mcp_model_name


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool a server listed: ``name`` as the server knows it, ``model_name`` as a model
    sees it (``<server>__<tool>``)."""

    server: str
    name: str
    model_name: str
    description: str
    parameters: dict[str, Any]
    # The server's own description (or title), "" when it gave none: what is pinned.
    listed_description: str = ""

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.model_name, self.description, self.parameters)


def to_mcp_tool(server: str, tool: Tool) -> McpTool:
    listed = tool.description or tool.title or ""
    description = listed or f"{tool.name} (MCP server {server})"
    schema = dict(tool.input_schema) or {"type": "object", "properties": {}}
    model_name = mcp_model_name(server, tool.name)
    return McpTool(server, tool.name, model_name, description, schema, listed)


def result_text(result: CallToolResult) -> str:
    """The content blocks as one text; structured content when there is no block."""
    if not result.content and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(_block_text(block) for block in result.content)


def _block_text(block: ContentBlock) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {len(block.data)} base64 characters, not shown]"
    if isinstance(block, ResourceLink):
        return f"[resource link {block.uri}]"
    if isinstance(block, EmbeddedResource):
        if isinstance(block.resource, TextResourceContents):
            return block.resource.text
        return f"[binary resource {block.resource.uri}, not shown]"
    return f"[{type(block).__name__}, not shown]"


def unique_by_model_name(tools: Sequence[McpTool]) -> list[McpTool]:
    """Drop later tools whose sanitised name collides with an earlier one."""
    seen: set[str] = set()
    kept = []
    for tool in tools:
        if tool.model_name not in seen:
            seen.add(tool.model_name)
            kept.append(tool)
    return kept
