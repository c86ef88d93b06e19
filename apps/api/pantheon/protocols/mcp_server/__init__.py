"""The MCP server at ``/mcp``: every room and agent of the caller as a tool (docs/mcp-server.md)."""
