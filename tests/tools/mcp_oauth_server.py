"""A real OAuth-protected MCP server for the tests, on the SDK's resource-server auth:
``python mcp_oauth_server.py ISSUER PORT`` serves Streamable HTTP at ``/mcp`` on
127.0.0.1, publishes its protected-resource metadata (RFC 9728) naming ``ISSUER``, and
accepts a bearer token only when the issuer's ``/userinfo`` accepts it (the test provider,
``oidc-provider-mock``, has no introspection endpoint). Its ``whoami`` tool answers the
token's subject, so a test sees whose account a call ran as.

Run as a script by path, so it imports nothing from the test package.
"""

from __future__ import annotations

import sys

import httpx
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class UserinfoVerifier:
    """A token is good when the issuer's ``/userinfo`` answers 200 for it."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer

    async def verify_token(self, token: str) -> AccessToken | None:
        async with httpx.AsyncClient(timeout=5) as http:
            response = await http.get(
                f"{self.issuer}/userinfo", headers={"Authorization": f"Bearer {token}"}
            )
        if response.status_code != 200:
            return None
        subject = str(response.json()["sub"])
        return AccessToken(token=token, client_id="?", scopes=[], subject=subject)


def build(issuer: str, port: int) -> MCPServer:
    server = MCPServer(
        "pantheon-oauth-test",
        token_verifier=UserinfoVerifier(issuer),
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=f"http://127.0.0.1:{port}/mcp",
            validate_token_resource=False,  # the mock ignores `resource` (no audience)
        ),
    )

    @server.tool()
    async def whoami() -> str:
        """The subject of the token this call came with."""
        token = get_access_token()
        if token is None:
            return "<anonymous>"
        return token.subject or "<no subject>"

    @server.tool()
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


if __name__ == "__main__":
    issuer, port = sys.argv[1], int(sys.argv[2])
    app = build(issuer, port).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
