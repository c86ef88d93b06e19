"""MCP client side: operator-configured servers over Streamable HTTP or stdio."""
