"""Finding a protected MCP server's authorization server, with the SDK's own pieces:
RFC 9728 protected-resource metadata (from the server's 401 ``WWW-Authenticate``, then the
well-known URLs), the resource check (RFC 8707), RFC 8414 / OIDC authorization-server
metadata with its issuer checked, and the client: pre-registered or dynamically
registered (RFC 7591). Every request runs under the caller's ``httpx2`` deadline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import httpx2
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.oauth2 import check_registration_usable
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_client_registration_request,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    handle_registration_response,
    validate_metadata_issuer,
)
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url
from pydantic import AnyUrl

from pantheon.tools.mcp.config import McpServerConfig

CLIENT_NAME = "Pantheon"
_PROBE = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


@dataclass(frozen=True, slots=True)
class Discovered:
    resource: str
    protected: ProtectedResourceMetadata
    server: OAuthMetadata


async def discover(http: httpx2.AsyncClient, url: str) -> Discovered:
    """The server's resource and authorization-server metadata; ``OAuthFlowError`` naming
    what is missing or does not match."""
    probe = await http.post(url, json=_PROBE, headers={"Accept": "application/json"})
    hint = extract_resource_metadata_from_www_auth(probe)
    protected = None
    for candidate in build_protected_resource_metadata_discovery_urls(hint, url):
        protected = await handle_protected_resource_response(
            await http.send(create_oauth_metadata_request(candidate))
        )
        if protected is not None:
            break
    if protected is None or not protected.authorization_servers:
        raise OAuthFlowError("the server publishes no protected-resource metadata (RFC 9728)")
    expected = resource_url_from_server_url(url)
    resource = str(protected.resource)
    if not check_resource_allowed(requested_resource=expected, configured_resource=resource):
        raise OAuthFlowError(f"the server's metadata names resource {resource}, not {expected}")
    issuer = str(protected.authorization_servers[0])
    metadata = await _server_metadata(http, issuer, url)
    return Discovered(resource, protected, metadata)


async def _server_metadata(http: httpx2.AsyncClient, issuer: str, url: str) -> OAuthMetadata:
    for candidate in build_oauth_authorization_server_metadata_discovery_urls(issuer, url):
        ok, metadata = await handle_auth_metadata_response(
            await http.send(create_oauth_metadata_request(candidate))
        )
        if not ok:
            break
        if metadata is not None:
            validate_metadata_issuer(metadata, issuer)
            return metadata
    raise OAuthFlowError(f"no authorization-server metadata for {issuer}")


def _secret_method(server: OAuthMetadata) -> Literal["client_secret_basic", "client_secret_post"]:
    """How a client with a secret authenticates at the token endpoint: Basic unless the
    server lists only POST; absent, the list means Basic alone (RFC 8414 section 2), and
    some servers accept POST for the code but not for a refresh."""
    supported = server.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    if "client_secret_basic" not in supported and "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


async def client_for(
    http: httpx2.AsyncClient,
    config: McpServerConfig,
    found: Discovered,
    redirect_uri: str,
    scope: str | None,
) -> OAuthClientInformationFull:
    """The configured client, else one registered now at the server's registration
    endpoint (``OAuthRegistrationError`` when there is none or it refuses)."""
    oauth = config.oauth
    assert oauth is not None
    redirect = [AnyUrl(redirect_uri)]
    if oauth.client_id is not None:
        method = _secret_method(found.server) if oauth.client_secret else "none"
        return OAuthClientInformationFull(
            client_id=oauth.client_id,
            client_secret=oauth.client_secret,
            redirect_uris=redirect,
            token_endpoint_auth_method=method,
        )
    if found.server.registration_endpoint is None:
        raise OAuthFlowError(
            "the authorization server has no registration endpoint: set client_id "
            "(and client_secret_env) for this server"
        )
    metadata = OAuthClientMetadata(
        redirect_uris=redirect,
        client_name=CLIENT_NAME,
        scope=scope,
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method=_secret_method(found.server),
    )
    request = create_client_registration_request(found.server, metadata, str(found.server.issuer))
    registered = await handle_registration_response(await http.send(request))
    check_registration_usable(registered)
    return registered
