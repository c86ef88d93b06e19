"""The live-turn backend interface: where running turns are found, claimed and followed.

Two implementations (ADR 0010): ``LiveTurnRegistry`` keeps them in this process (one
server, the default), ``RedisLiveBackend`` shares them between replicas through Redis
(``PANTHEON_REDIS_URL``). The service calls the backend once per request, never per event:
a turn running here is always followed through its in-memory ``LiveTurn``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from pantheon.live.meta import TurnMeta
from pantheon.live.registry import LiveTurn
from pantheon.live.streamed import StreamedEvent


class LiveView(Protocol):
    """A running turn, here or on another replica."""

    @property
    def turn_id(self) -> str: ...

    @property
    def owner_id(self) -> uuid.UUID: ...

    @property
    def session_id(self) -> str: ...

    @property
    def idempotency_key(self) -> str | None: ...

    @property
    def request_hash(self) -> str | None: ...

    def stream(self, after: int) -> AsyncIterator[StreamedEvent]:
        """Its events after ``after``, live until the turn ends."""
        ...

    def cancel(self) -> None:
        """Ask the turn to stop; it still records itself (status ``cancelled``)."""

    async def wait_finished(self) -> None:
        """Return once the turn has ended (committed, or given up)."""


class LiveBackend(Protocol):
    """Running turns, and the one-running-turn-per-session rule."""

    @property
    def name(self) -> str:
        """``in-process`` or ``redis``, as ``/ready`` reports it."""
        ...

    def ensure_accepting(self) -> None:
        """503 once shutdown has begun (or the shared store is known to be down)."""

    async def check(self) -> None:
        """For ``/ready``: 503 naming the problem when running turns cannot be shared."""

    def key_lock(
        self, owner_id: uuid.UUID, session_id: str, key: str
    ) -> AbstractAsyncContextManager[None]:
        """Serialise this process's requests that carry one Idempotency-Key."""
        ...

    async def find(self, turn_id: str) -> LiveView | None:
        """The running turn ``turn_id`` (any owner: callers check it)."""

    async def find_with_key(
        self, owner_id: uuid.UUID, session_id: str, key: str
    ) -> LiveView | None:
        """The session's running turn if it was started with this Idempotency-Key."""

    async def running_of(self, owner_id: uuid.UUID) -> list[TurnMeta]:
        """The owner's running turns, on every replica (what A2A's ListTasks shows)."""
        ...

    async def claim(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> LiveView:
        """Start ``live`` running ``body`` here, or return the running turn an idempotent
        retry refers to; 409 naming the session's running turn otherwise."""
        ...

    async def start(self) -> None:
        """Start background work (lease renewal, the dead-replica sweeper)."""

    async def shutdown(self, grace_s: float) -> None:
        """Refuse new turns, let this process's turns finish for ``grace_s``, cancel the
        rest, then stop background work."""
