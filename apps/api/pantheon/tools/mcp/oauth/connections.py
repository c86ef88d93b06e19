"""Each user's OAuth connections to the ``auth = "oauth"`` MCP servers: connects under way
(``mcp_connects``) and token sets (``mcp_connections``), both sealed at rest. Requests to
the authorization server run outside any database transaction, each under
``tools.mcp_oauth_timeout_s``; nothing here logs a token or a verifier."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta

import anyio
import httpx2
from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from sqlalchemy import delete, select

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.mcp_connection_models import McpOAuthConnect, McpOAuthConnection
from pantheon.db.uow import unit_of_work
from pantheon.secret_tokens import token_digest
from pantheon.tools.mcp.config import McpServerConfig
from pantheon.tools.mcp.oauth.flow import Flow, begin, finish, refresh
from pantheon.tools.mcp.oauth.sealing import Sealer

log = logging.getLogger(__name__)
CONNECT_TTL = timedelta(minutes=10)
REFRESH_MARGIN = timedelta(seconds=30)
OAUTH_ERRORS = (
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
    httpx2.HTTPError,
    TimeoutError,
)
# A connect's discovery makes several requests; an exchange as a whole gets this many
# request deadlines.
WHOLE_EXCHANGE_REQUESTS = 3


class ConnectFailed(Exception):
    """A connect could not start or finish; the message names why (never a secret)."""


@dataclass(frozen=True, slots=True)
class ConnectionStatus:
    server: str
    connected: bool
    scopes: list[str]
    expires_at: datetime | None


class OAuthConnections:
    """The per-user token store and the connect flow, for the configured oauth servers."""

    def __init__(
        self,
        db: Database,
        sealer: Sealer | None,
        servers: Mapping[str, McpServerConfig],
        timeout_s: float,
    ) -> None:
        self._db, self._sealer, self._timeout_s = db, sealer, timeout_s
        self.servers = {n: c for n, c in servers.items() if c.oauth is not None}

    def _http(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(timeout=self._timeout_s, follow_redirects=False)

    def _deadline(self) -> AbstractContextManager[anyio.CancelScope]:
        """The whole of one exchange: each request's own timeout bounds only each read,
        so a server that trickles bytes would otherwise stretch it without end."""
        return anyio.fail_after(self._timeout_s * WHOLE_EXCHANGE_REQUESTS)

    def _seal(self) -> Sealer:
        if self._sealer is None:
            raise ConnectFailed("PANTHEON_SECRET_KEY is not set: OAuth connections are off")
        return self._sealer

    async def statuses(self, user_id: uuid.UUID) -> list[ConnectionStatus]:
        async with unit_of_work(self._db, write=False) as session:
            rows = await session.scalars(
                select(McpOAuthConnection).where(McpOAuthConnection.user_id == user_id)
            )
            found = {row.server: row for row in rows}
        items = []
        for server in sorted(self.servers):
            row = found.get(server)
            scopes = row.scopes.split() if row is not None else []
            expires = row.expires_at if row is not None else None
            items.append(ConnectionStatus(server, row is not None, scopes, expires))
        return items

    async def start(self, user_id: uuid.UUID, server: str, redirect_uri: str) -> str:
        """The authorization URL for ``user_id``'s browser; the flow is kept server-side."""
        sealer = self._seal()
        try:
            with self._deadline():
                async with self._http() as http:
                    begun = await begin(http, self.servers[server], redirect_uri)
        except OAUTH_ERRORS as exc:
            raise ConnectFailed(f"MCP server {server}: {_reason(exc)}") from None
        now = utcnow()
        async with unit_of_work(self._db, write=True) as session:
            await session.execute(delete(McpOAuthConnect).where(McpOAuthConnect.expires_at <= now))
            session.add(
                McpOAuthConnect(
                    state_hash=token_digest(begun.state),
                    user_id=user_id,
                    server=server,
                    sealed_flow=sealer.seal(begun.flow.model_dump_json()),
                    created_at=now,
                    expires_at=now + CONNECT_TTL,
                )
            )
        return begun.url

    async def complete(self, server: str, state: str, code: str) -> None:
        """Exchange ``code`` for the user the ``state`` was issued to; ``ConnectFailed``
        when the state is unknown, used, expired or another server's, or the exchange fails."""
        sealer = self._seal()
        async with unit_of_work(self._db, write=True) as session:
            row = await session.scalar(
                select(McpOAuthConnect).where(McpOAuthConnect.state_hash == token_digest(state))
            )
            if row is not None:
                await session.delete(row)
        if row is None or row.server != server or row.expires_at <= utcnow():
            raise ConnectFailed("unknown or expired state")
        opened = sealer.open(row.sealed_flow)
        if opened is None:
            raise ConnectFailed("the connect was sealed under another PANTHEON_SECRET_KEY")
        flow = Flow.model_validate_json(opened)
        try:
            with self._deadline():
                async with self._http() as http:
                    token = await finish(http, flow, code)
        except OAUTH_ERRORS as exc:
            raise ConnectFailed(f"MCP server {server}: {_reason(exc)}") from None
        await self._save(row.user_id, server, token, flow.client, flow.metadata, flow.resource)

    async def disconnect(self, user_id: uuid.UUID, server: str) -> None:
        async with unit_of_work(self._db, write=True) as session:
            await session.execute(
                delete(McpOAuthConnection).where(
                    McpOAuthConnection.user_id == user_id, McpOAuthConnection.server == server
                )
            )

    async def access_token(self, user_id: uuid.UUID, server: str) -> str | None:
        """``user_id``'s live access token for ``server`` (refreshed when due), or ``None``
        when they have not connected or it cannot be renewed."""
        if self._sealer is None:
            return None
        async with unit_of_work(self._db, write=False) as session:
            row = await session.scalar(
                select(McpOAuthConnection).where(
                    McpOAuthConnection.user_id == user_id, McpOAuthConnection.server == server
                )
            )
        if row is None:
            return None
        opened = self._sealer.open(row.sealed_tokens)
        if opened is None:
            return None
        token = OAuthToken.model_validate_json(opened)
        if row.expires_at is None or row.expires_at - REFRESH_MARGIN > utcnow():
            return token.access_token
        return await self._renewed(user_id, server, row, token)

    async def _renewed(
        self, user_id: uuid.UUID, server: str, row: McpOAuthConnection, token: OAuthToken
    ) -> str | None:
        if token.refresh_token is None:
            return None
        assert self._sealer is not None
        client = OAuthClientInformationFull.model_validate(row.client["client"])
        sealed_secret = row.client.get("secret")
        if isinstance(sealed_secret, str):
            client.client_secret = self._sealer.open(sealed_secret)
        metadata = OAuthMetadata.model_validate(row.client["metadata"])
        resource = str(row.client["resource"])
        try:
            with self._deadline():
                async with self._http() as http:
                    renewed = await refresh(http, client, metadata, resource, token)
        except OAUTH_ERRORS as exc:
            log.info("mcp %s: refresh failed for a user: %s", server, _reason(exc))
            return None
        await self._save(user_id, server, renewed, client, metadata, resource)
        return renewed.access_token

    async def _save(
        self,
        user_id: uuid.UUID,
        server: str,
        token: OAuthToken,
        client: OAuthClientInformationFull,
        metadata: OAuthMetadata,
        resource: str,
    ) -> None:
        sealed = self._seal().seal(token.model_dump_json())
        now = utcnow()
        expires = now + timedelta(seconds=token.expires_in) if token.expires_in else None
        # The client secret is part of the registration: it is sealed with the tokens'
        # key too, never stored plain.
        public = client.model_copy(update={"client_secret": None})
        info: dict[str, object] = {
            "client": public.model_dump(mode="json"),
            "metadata": metadata.model_dump(mode="json"),
            "resource": resource,
            "secret": self._seal().seal(client.client_secret) if client.client_secret else None,
        }
        async with unit_of_work(self._db, write=True) as session:
            await session.execute(
                delete(McpOAuthConnection).where(
                    McpOAuthConnection.user_id == user_id, McpOAuthConnection.server == server
                )
            )
            session.add(
                McpOAuthConnection(
                    user_id=user_id,
                    server=server,
                    sealed_tokens=sealed,
                    scopes=token.scope or "",
                    expires_at=expires,
                    client=info,
                    updated_at=now,
                )
            )


def _reason(exc: Exception) -> str:
    if isinstance(exc, httpx2.TimeoutException | TimeoutError):
        return "the authorization server did not answer in time (mcp_oauth_timeout_s)"
    if isinstance(exc, httpx2.HTTPError):
        return f"the authorization server could not be reached ({type(exc).__name__})"
    return str(exc)


def open_store(
    db: Database, secret: str | None, servers: Mapping[str, McpServerConfig], timeout_s: float
) -> OAuthConnections:
    """The store for ``servers``' oauth ones; ``ValueError`` at startup when one is
    configured and ``PANTHEON_SECRET_KEY`` is missing or too short."""
    wanted = any(c.oauth is not None for c in servers.values())
    sealer = Sealer(secret) if wanted and secret is not None else None
    if wanted and sealer is None:
        raise ValueError('an [mcp_servers.NAME] with auth = "oauth" needs PANTHEON_SECRET_KEY')
    return OAuthConnections(db, sealer, servers, timeout_s)
