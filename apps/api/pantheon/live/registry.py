"""Running turns: each is a task owned by the registry, not by the HTTP request.

Promises:
- Events get ``seq`` 1, 2, 3 ... in publish order (internal events, ``publish_internal``,
  get none: they go to the journal and the mirror, never to listeners); the buffer
  keeps all of them, so a listener that joins late, or resumes after ``n``, gets
  exactly the events after ``n`` and then the live ones. Any number of listeners may
  follow one turn.
- Requests with the same Idempotency-Key for a session are serialised (``key_lock``) from
  their registry check to their start, so a retry never misses its first turn.
- A session has at most one running turn; ``start`` is synchronous (no await between the
  check and the insert), so two racing requests cannot both start one.
- A turn leaves the registry only after its commit, so a reader that misses it here finds
  it in the database.
- ``shutdown`` refuses new turns, waits ``grace`` seconds for running ones, then cancels
  the rest; each cancelled turn still records itself (status ``cancelled``).
- With a ``TurnJournal`` (live/journal.py), every started turn that carries its ``meta``
  is journalled outside the one commit, so a crash of the process loses nothing.

This registry holds the turns running in this process. It is the whole live-turn backend
when there is one process; with Redis (``pantheon.live.redis``) it holds this replica's
own turns, each with a ``mirror`` that shares its events and lifetime with the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from pantheon.engine.events import TurnEvent, event_to_json
from pantheon.errors import Conflict, ServiceUnavailable
from pantheon.live.meta import TurnMeta, ensure_same_request

log = logging.getLogger(__name__)
SHUTTING_DOWN = "the server is shutting down; retry on another instance"


@dataclass(frozen=True, slots=True)
class PublishedEvent:
    """An event as published: ``seq`` is its id, or for an internal event the id of the
    public event it follows (it has none of its own)."""

    seq: int
    event: TurnEvent
    data: str
    internal: bool = False


class TurnMirror(Protocol):
    """Shares a running turn beyond this process (the Redis backend); called in order."""

    def published(self, published: PublishedEvent) -> None: ...

    def closed(self) -> None: ...

    async def committed(self) -> None:
        """The turn is in the database: free its session before its final event goes out."""


class TurnObserver(Protocol):
    """Told of each published event and of the end, synchronously: keep it cheap."""

    def published(self, event: PublishedEvent) -> None: ...

    def closed(self) -> None: ...


class Journal(Protocol):
    def follow(self, live: LiveTurn) -> None:
        """Start journalling ``live`` (it sets ``live.observer``)."""

    async def drain(self) -> None:
        """Wait until every journalled turn's file is written (and dropped if recorded)."""


@dataclass(eq=False)
class LiveTurn:
    turn_id: str
    session_id: str
    owner_id: uuid.UUID
    idempotency_key: str | None = None
    request_hash: str | None = None
    meta: TurnMeta | None = None  # what recording it ``interrupted`` would need
    mirror: TurnMirror | None = None
    events: list[PublishedEvent] = field(default_factory=list)  # public: what listeners get
    log: list[PublishedEvent] = field(default_factory=list)  # public and internal, in order
    task: asyncio.Task[None] | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False
    cancel_requested: bool = False
    recorded: bool = False  # its one commit succeeded
    observer: TurnObserver | None = None
    watchers: list[TurnObserver] = field(default_factory=list)  # besides the journal: metrics
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def prepare(self, event: TurnEvent) -> PublishedEvent:
        """The event as it will be published next, without publishing it yet."""
        return PublishedEvent(len(self.events) + 1, event, event_to_json(event))

    def append(self, published: PublishedEvent) -> None:
        assert published.seq == len(self.events) + 1, "events are published in order"
        self.events.append(published)
        self._told(published)
        self._wake()

    def publish_internal(self, event: TurnEvent) -> None:
        """Journal and mirror ``event`` without a seq; listeners never see it."""
        assert event.internal, "only internal events bypass the stream"
        self._told(PublishedEvent(len(self.events), event, event_to_json(event), internal=True))

    def _told(self, published: PublishedEvent) -> None:
        self.log.append(published)
        if self.mirror is not None:
            self.mirror.published(published)
        if self.observer is not None:
            self.observer.published(published)
        for watcher in self.watchers:
            watcher.published(published)

    def publish(self, event: TurnEvent) -> PublishedEvent:
        published = self.prepare(event)
        self.append(published)
        return published

    def close(self) -> None:
        """No more events: wake every listener so it can drain and stop."""
        self.finished.set()
        if self.mirror is not None:
            self.mirror.closed()
        self._wake()
        if self.observer is not None:
            self.observer.closed()
        for watcher in self.watchers:
            watcher.closed()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def follow(self, after: int = 0) -> AsyncIterator[PublishedEvent]:
        """Buffered events after ``after``, then live ones until the turn is closed."""
        position = after
        while True:
            changed = self._changed
            while position < len(self.events):
                yield self.events[position]
                position += 1
            if self.finished.is_set():
                return
            await changed.wait()

    def stream(self, after: int) -> AsyncIterator[PublishedEvent]:
        """``follow``: the events as published, typed and with their JSON text."""
        return self.follow(after)

    async def wait_finished(self) -> None:
        await self.finished.wait()

    def cancel(self) -> None:
        """Stop the turn; it still records itself (status ``cancelled``).

        A task cancelled before its first step would never enter its body, so nothing
        would record the turn nor free its session: until the body has started, the
        request is only noted, and the body cancels itself as it starts."""
        self.cancel_requested = True
        if self.started and self.task is not None and not self.task.done():
            self.task.cancel()


@dataclass(eq=False)
class _KeyLock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class LiveTurnRegistry:
    """The app's running turns, by turn id and by session id."""

    def __init__(self, journal: Journal | None = None) -> None:
        self._journal = journal
        self._by_turn: dict[str, LiveTurn] = {}
        self._by_session: dict[str, LiveTurn] = {}
        self._key_locks: dict[tuple[uuid.UUID, str, str], _KeyLock] = {}
        self.accepting = True
        # Set when shutdown begins: waits on other replicas' turns end at once (ADR 0010).
        self.stopping = asyncio.Event()

    @contextlib.asynccontextmanager
    async def key_lock(self, owner_id: uuid.UUID, session_id: str, key: str) -> AsyncIterator[None]:
        """Serialise requests that carry one Idempotency-Key for one session; the lock is
        forgotten when nobody holds or waits for it, so the map stays small."""
        ident = (owner_id, session_id, key)
        entry = self._key_locks.setdefault(ident, _KeyLock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._key_locks[ident]

    @property
    def name(self) -> str:
        return "in-process"

    async def check(self) -> None:
        """Nothing to reach: the running turns live in this process."""

    def ensure_accepting(self) -> None:
        """503 once shutdown has begun."""
        if not self.accepting:
            raise ServiceUnavailable(SHUTTING_DOWN)

    def get(self, turn_id: str) -> LiveTurn | None:
        return self._by_turn.get(turn_id)

    def running(self) -> list[LiveTurn]:
        return list(self._by_turn.values())

    async def find(self, turn_id: str) -> LiveTurn | None:
        """``get`` as the live-turn backend interface spells it."""
        return self._by_turn.get(turn_id)

    async def find_with_key(
        self, owner_id: uuid.UUID, session_id: str, key: str
    ) -> LiveTurn | None:
        return self.running_with_key(owner_id, session_id, key)

    async def running_of(self, owner_id: uuid.UUID) -> list[TurnMeta]:
        """The owner's running turns (those that carry their meta: every started one)."""
        return [t.meta for t in self.running() if t.owner_id == owner_id and t.meta is not None]

    async def claim(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> LiveTurn:
        """``join_or_start`` as the live-turn backend interface spells it."""
        return self.join_or_start(live, body)[0]

    async def start(self) -> None:
        """Nothing to start in one process (the interface's hook for background tasks)."""

    def running_with_key(self, owner_id: uuid.UUID, session_id: str, key: str) -> LiveTurn | None:
        """The session's running turn if it was started with this Idempotency-Key."""
        current = self._by_session.get(session_id)
        if current is None or current.owner_id != owner_id or current.idempotency_key != key:
            return None
        return current

    def join_or_start(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> tuple[LiveTurn, bool]:
        """Start ``live`` running ``body``, or return the running turn an idempotent retry
        refers to. Returns (turn, started)."""
        current = self._by_session.get(live.session_id)
        if current is not None:
            if live.idempotency_key is not None and current.idempotency_key == live.idempotency_key:
                ensure_same_request(current.request_hash, live.request_hash)
                return current, False
            raise Conflict(
                f"session {live.session_id} already has a running turn {current.turn_id}",
                running_turn_id=current.turn_id,
            )
        self.adopt(live, body)
        return live, True

    def adopt(self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]) -> None:
        """Run ``live`` here without the session check: a shared backend has already made
        this turn the session's one running turn (its lease)."""
        self.ensure_accepting()
        self._by_turn[live.turn_id] = live
        self._by_session[live.session_id] = live
        live.task = asyncio.create_task(self._run(live, body), name=f"turn-{live.turn_id}")
        if self._journal is not None and live.meta is not None:
            self._journal.follow(live)

    async def _run(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> None:
        live.started = True
        try:
            if live.cancel_requested:
                live.cancel()  # delivered at the body's first await, so it still records
            await body(live)
        finally:
            self._by_turn.pop(live.turn_id, None)
            if self._by_session.get(live.session_id) is live:
                del self._by_session[live.session_id]
            live.close()

    async def shutdown(self, grace_s: float) -> None:
        """Stop taking turns, let running ones finish for ``grace_s``, cancel the rest."""
        self.accepting = False
        self.stopping.set()
        await self._finish_turns(grace_s)
        if self._journal is not None:
            await self._journal.drain()

    async def _finish_turns(self, grace_s: float) -> None:
        tasks = [t.task for t in self.running() if t.task is not None]
        if not tasks:
            return
        log.info("waiting up to %.1fs for %d running turn(s)", grace_s, len(tasks))
        _done, pending = await asyncio.wait(tasks, timeout=grace_s)
        for live in self.running():
            if live.task in pending:
                live.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError):
                await task
