"""``notifications/tools/list_changed`` on 2026-07-28's ``subscriptions/listen`` streams,
fed by re-reading the caller's tools from the database, so a room or agent changed
through any replica (or the CLI) reaches hosts listening on every replica.

The SDK serves the stream itself (acknowledgement, subscription ids, the filter, a
bounded backlog) with its ``ListenHandler``; Pantheon feeds its bus. One watch per user
and replica re-reads what ``tools/list`` would answer every ``mcp.tools_poll_s`` while
that user has a stream open there, and publishes ``ToolsListChanged`` when it differs;
users never see each other's events (one bus each). Once the server begins to stop, the
next tick closes the streams gracefully (else uvicorn would wait for them forever).
Handshake revisions have no such stream (docs/mcp-server.md#tools).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, SubscriptionsListenRequestParams, SubscriptionsListenResult

from pantheon.protocols.mcp_server.catalogue import Target

logger = logging.getLogger(__name__)
Read = Callable[[], Awaitable[list[Target]]]
Stopping = Callable[[], bool]
SHUTTING_DOWN = "the server is shutting down; listen again (another replica may answer)"


@dataclass
class _UserWatch:
    """One user's open streams on this replica and the task that re-reads their tools."""

    bus: InMemorySubscriptionBus
    handler: ListenHandler
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    streams: int = 0
    task: asyncio.Task[None] | None = None


@dataclass
class ToolWatch:
    """Every user's watch on this replica; ``per_user`` bounds a user's open streams."""

    poll_s: float
    per_user: int
    _users: dict[uuid.UUID, _UserWatch] = field(default_factory=dict)

    async def listen(
        self,
        user_id: uuid.UUID,
        read: Read,
        stopping: Stopping,
        ctx: ServerRequestContext[Any, Any],
        params: SubscriptionsListenRequestParams,
    ) -> SubscriptionsListenResult:
        """Serve one listen stream of ``user_id`` (``read``: their tools as listed now)
        until the host closes it, or ``stopping`` says the server began to stop (then a
        graceful close)."""
        if stopping():
            raise MCPError(INTERNAL_ERROR, SHUTTING_DOWN)
        watch = self._users.get(user_id)
        if watch is None:
            bus = InMemorySubscriptionBus()
            watch = _UserWatch(bus, ListenHandler(bus, max_subscriptions=self.per_user))
            watch.task = asyncio.create_task(self._poll(watch, read, stopping))
            self._users[user_id] = watch
        watch.streams += 1
        try:
            await watch.ready.wait()  # the baseline is read before the stream is acknowledged
            return await watch.handler(ctx, params)
        finally:
            watch.streams -= 1
            if watch.streams == 0 and self._users.get(user_id) is watch:
                del self._users[user_id]
                if watch.task is not None:
                    watch.task.cancel()

    async def _poll(self, watch: _UserWatch, read: Read, stopping: Stopping) -> None:
        seen = await self._read(read)
        watch.ready.set()
        while True:
            await asyncio.sleep(self.poll_s)
            if stopping():  # the streams end before uvicorn waits for connections
                watch.handler.close()
                return
            now = await self._read(read)
            if now is None or now == seen:
                continue
            seen = now  # a first read after a failed one counts as a change: refetch is harmless
            await watch.bus.publish(ToolsListChanged())

    @staticmethod
    async def _read(read: Read) -> list[Target] | None:
        try:
            return await read()
        except Exception:  # a database hiccup: the stream stays, the next read tries again
            logger.warning("could not re-read an MCP listener's tools", exc_info=True)
            return None
