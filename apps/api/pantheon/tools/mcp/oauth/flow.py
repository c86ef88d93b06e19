"""One connect, in two halves a web redirect apart: ``begin`` discovers, registers and
builds the authorization URL (PKCE S256, ``state``, the ``resource`` indicator); the
callback's ``finish`` exchanges the code; ``refresh`` renews a token set. What the second
half needs travels as a ``Flow`` the caller seals and stores by the state's hash."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import httpx2
from mcp.client.auth.exceptions import OAuthTokenError
from mcp.client.auth.oauth2 import PKCEParameters
from mcp.client.auth.utils import handle_token_response_scopes
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import BaseModel

from pantheon.secret_tokens import new_token
from pantheon.tools.mcp.config import McpServerConfig
from pantheon.tools.mcp.oauth.discovery import client_for, discover


class Flow(BaseModel):
    """The server-side half of a connect (sealed at rest: it holds the PKCE verifier)."""

    server: str
    redirect_uri: str
    code_verifier: str
    resource: str
    scope: str | None
    client: OAuthClientInformationFull
    metadata: OAuthMetadata


@dataclass(frozen=True, slots=True)
class Begun:
    url: str
    state: str
    flow: Flow


async def begin(http: httpx2.AsyncClient, config: McpServerConfig, redirect_uri: str) -> Begun:
    """Everything up to the authorization URL the user's browser opens."""
    assert config.url is not None
    assert config.oauth is not None
    found = await discover(http, config.url)
    wanted = config.oauth.scopes or tuple(found.protected.scopes_supported or ())
    scope = " ".join(wanted) or None
    client = await client_for(http, config, found, redirect_uri, scope)
    pkce = PKCEParameters.generate()
    state = new_token()
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": "S256",
        "resource": found.resource,
    }
    if scope:
        params["scope"] = scope
    url = f"{found.server.authorization_endpoint}?{urlencode(params)}"
    flow = Flow(
        server=config.name,
        redirect_uri=redirect_uri,
        code_verifier=pkce.code_verifier,
        resource=found.resource,
        scope=scope,
        client=client,
        metadata=found.server,
    )
    return Begun(url, state, flow)


async def finish(http: httpx2.AsyncClient, flow: Flow, code: str) -> OAuthToken:
    """The token set for ``code`` (``OAuthTokenError`` when the server refuses)."""
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": flow.redirect_uri,
        "code_verifier": flow.code_verifier,
        "resource": flow.resource,
    }
    token = await _token_request(http, flow.client, flow.metadata, data)
    if token.scope is None:
        token.scope = flow.scope
    return token


async def refresh(
    http: httpx2.AsyncClient,
    client: OAuthClientInformationFull,
    metadata: OAuthMetadata,
    resource: str,
    token: OAuthToken,
) -> OAuthToken:
    """A renewed token set; scope and refresh token carried over when not re-issued."""
    assert token.refresh_token is not None
    data = {"grant_type": "refresh_token", "refresh_token": token.refresh_token}
    data["resource"] = resource
    renewed = await _token_request(http, client, metadata, data)
    renewed.scope = renewed.scope or token.scope
    renewed.refresh_token = renewed.refresh_token or token.refresh_token
    return renewed


async def _token_request(
    http: httpx2.AsyncClient,
    client: OAuthClientInformationFull,
    metadata: OAuthMetadata,
    data: dict[str, str],
) -> OAuthToken:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    form: dict[str, Any] = {**data, "client_id": client.client_id}
    method = client.token_endpoint_auth_method
    if client.client_secret and method == "client_secret_basic":
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif client.client_secret:
        form["client_secret"] = client.client_secret
    response = await http.post(str(metadata.token_endpoint), data=form, headers=headers)
    if response.status_code not in (200, 201):
        # The body is the server's error; it never holds a token of ours.
        raise OAuthTokenError(f"the token endpoint answered {response.status_code}")
    return await handle_token_response_scopes(response)
