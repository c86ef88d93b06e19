"""Per-user OAuth 2.1 connections to ``auth = "oauth"`` MCP servers (docs/adr/0046)."""
