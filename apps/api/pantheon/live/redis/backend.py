"""``RedisLiveBackend``: the live-turn backend of several replicas (ADR 0010).

A turn runs on the replica that claimed its session's lease (``SET NX PX`` in a script,
renewed every third of ``lease_s`` while it runs). Its events go to a Redis Stream (see
``mirror``); any replica follows, resumes and cancels it (``remote``). Turns whose owner
died are recorded ``interrupted`` by the sweeper (``sweeper``).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from redis.exceptions import RedisError

from pantheon.errors import Conflict
from pantheon.live.backend import LiveView
from pantheon.live.meta import TurnMeta, ensure_same_request
from pantheon.live.redis.mirror import END_FIELD, StreamMirror
from pantheon.live.redis.remote import Recorded, RecordedTurn, RemoteTurn
from pantheon.live.redis.store import RedisStore, checked
from pantheon.live.redis.sweeper import RecordInterrupted, Sweeper
from pantheon.live.redis.writer import MirrorWriter
from pantheon.live.registry import LiveTurn, LiveTurnRegistry

log = logging.getLogger(__name__)
CLAIM_ATTEMPTS = 3  # the running turn may leave between our claim and our look at it
CLAIM_POLL_S = 0.02  # how often a retry looks again at a keyed claim still checking
RUNNING = "running"  # a claim's meta ``state`` once it runs (``_Claim``)
# The id and request digest of the session's turn recorded with this Idempotency-Key.
RecordedWithKey = Callable[[str, str], Awaitable[tuple[str, str | None] | None]]


class RedisLiveBackend:
    """Running turns of every replica; this replica's own run in ``local``."""

    def __init__(
        self,
        store: RedisStore,
        recorded: Recorded,
        record: RecordInterrupted,
        recorded_with_key: RecordedWithKey,
        local: LiveTurnRegistry,
    ) -> None:
        self.store = store
        self._recorded = recorded
        self._recorded_with_key = recorded_with_key
        self._local = local
        self._mirrors: dict[str, StreamMirror] = {}
        self._writer = MirrorWriter(store)
        self._sweeper = Sweeper(store, record, lambda t: self._local.get(t) is not None)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def name(self) -> str:
        return "redis"

    def ensure_accepting(self) -> None:
        self._local.ensure_accepting()

    async def check(self) -> None:
        await checked(self.store.redis.ping())

    def key_lock(
        self, owner_id: uuid.UUID, session_id: str, key: str
    ) -> contextlib.AbstractAsyncContextManager[None]:
        return self._local.key_lock(owner_id, session_id, key)

    async def find(self, turn_id: str) -> LiveView | None:
        found = await self._lookup(turn_id)
        return None if found is _Claim.CHECKING else found

    async def _lookup(self, turn_id: str) -> LiveView | _Claim | None:
        here = self._local.get(turn_id)
        if here is not None:
            return here
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hgetall(keys.meta(turn_id))
        pipe.xrevrange(keys.events(turn_id), count=1)
        meta, tail = await checked(pipe.execute())
        if not meta or (tail and END_FIELD in tail[0][1]):
            return None  # unknown here, or over: the database has it
        if meta.get("state") == _Claim.CHECKING.value:
            return _Claim.CHECKING
        return RemoteTurn.from_meta(self.store, self._recorded, self._local.stopping, meta)

    async def _find_claimed(self, turn_id: str) -> LiveView | None:
        """``find``, once a keyed claim has looked at the record: until then it may still
        be given back (its key's turn is recorded), and a retry that followed it would
        wait for a turn that never runs. A claimer that died looking lets its lease lapse."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.store.settings.lease_s
        while (found := await self._lookup(turn_id)) is _Claim.CHECKING:
            if loop.time() >= deadline:
                return None
            log.debug("turn %s: its claim is checking the record; waiting", turn_id)
            await asyncio.sleep(CLAIM_POLL_S)
        return found

    async def find_with_key(
        self, owner_id: uuid.UUID, session_id: str, key: str
    ) -> LiveView | None:
        holder = await checked(self.store.text(self.store.keys.lease(session_id)))
        if holder is None:
            return None
        running = await self._find_claimed(holder)
        if running is None or running.owner_id != owner_id or running.idempotency_key != key:
            return None
        return running

    async def running_of(self, owner_id: uuid.UUID) -> list[TurnMeta]:
        """The owner's turns in the running set (every replica's, and those of a dead
        replica until the sweeper records them) whose stream has no end marker yet."""
        keys = self.store.keys
        turn_ids = [str(t) for t in await checked(self.store.redis.zrange(keys.running, 0, -1))]
        pipe = self.store.redis.pipeline(transaction=False)
        for turn_id in turn_ids:
            pipe.hmget(keys.meta(turn_id), ["owner_id", "meta"])
            pipe.xrevrange(keys.events(turn_id), count=1)
        found = await checked(pipe.execute())
        owner, running = str(owner_id), []
        for (who, meta), tail in zip(found[::2], found[1::2], strict=True):
            if who == owner and meta and not (tail and END_FIELD in tail[0][1]):
                running.append(TurnMeta.from_json(meta))
        return running

    async def claim(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> LiveView:
        self.ensure_accepting()
        keys, store = self.store.keys, self.store
        for _ in range(CLAIM_ATTEMPTS):
            holder = await checked(
                store.claim(
                    keys=[keys.lease(live.session_id), keys.meta(live.turn_id), keys.running],
                    args=[live.turn_id, store.lease_ms, store.live_ttl_ms, *_meta(live)],
                )
            )
            if holder is None:
                if (recorded := await self._already_recorded(live)) is not None:
                    return recorded
                await self._run_here(live, body)
                return live
            running = await self._find_claimed(holder)
            if running is None:
                continue  # it ended meanwhile: try again
            if live.idempotency_key is not None and running.idempotency_key == live.idempotency_key:
                ensure_same_request(running.request_hash, live.request_hash)
                return running
            raise Conflict(
                f"session {live.session_id} already has a running turn {holder}",
                running_turn_id=holder,
            )
        raise Conflict(f"session {live.session_id} is busy; retry", running_turn_id=None)

    async def _already_recorded(self, live: LiveTurn) -> LiveView | None:
        """With the lease won: the turn this Idempotency-Key already recorded, if one on
        another replica committed after our preflight looked (an owner frees the lease only
        after its commit, so it is visible now). The lease goes back then; else the claim
        stops ``checking``, so retries elsewhere follow it."""
        if live.idempotency_key is None:
            return None
        try:
            found = await self._recorded_with_key(live.session_id, live.idempotency_key)
            if found is None:
                meta = self.store.keys.meta(live.turn_id)
                await checked(self.store.redis.hset(meta, "state", RUNNING))
        except BaseException:
            await self._give_back(live)
            raise
        if found is None:
            return None
        await self._give_back(live)
        turn_id, stored_hash = found
        ensure_same_request(stored_hash, live.request_hash)
        return RecordedTurn(
            self._recorded,
            turn_id,
            live.owner_id,
            live.idempotency_key,
            stored_hash,
            live.session_id,
        )

    async def _give_back(self, live: LiveTurn) -> None:
        """Undo a claim of a turn that will not run: its lease, running entry and meta."""
        keys = self.store.keys
        await checked(
            self.store.release(
                keys=[keys.lease(live.session_id), keys.running], args=[live.turn_id]
            )
        )
        await checked(self.store.redis.delete(keys.meta(live.turn_id)))

    async def _run_here(
        self, live: LiveTurn, body: Callable[[LiveTurn], Coroutine[Any, Any, None]]
    ) -> None:
        if not self._local.accepting:  # shutdown began during the claim: give it back
            await self._give_back(live)
            self._local.ensure_accepting()
        mirror = StreamMirror(self.store, self._writer, live)
        live.mirror = mirror
        self._mirrors[live.turn_id] = mirror
        mirror.task.add_done_callback(lambda _t: self._mirrors.pop(live.turn_id, None))
        self._local.adopt(live, body)

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._writer.run(), name="stream-writer"),
            asyncio.create_task(self._renew_leases(), name="lease-renewal"),
            asyncio.create_task(self._listen_for_cancels(), name="cancel-listener"),
            asyncio.create_task(self._sweeper.run(), name="interrupted-sweeper"),
        ]

    async def shutdown(self, grace_s: float) -> None:
        await self._local.shutdown(grace_s)
        mirrors = [m.task for m in self._mirrors.values()]
        if mirrors:  # the last events and end markers of turns that just ended
            await asyncio.wait(mirrors, timeout=self.store.settings.timeout_s * 2)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.store.aclose()

    async def _renew_leases(self) -> None:
        """Every third of the lease: renew every local turn's lease in one round trip;
        act on a cancel flag (a missed cancel message), or on a lease lost to the sweeper."""
        while True:
            await asyncio.sleep(self.store.settings.lease_s / 3)
            await self._renew_once()

    async def _renew_once(self) -> None:
        async with self.store.lease_lock:  # a turn that frees its lease meanwhile waits
            mirrors = self._mirrors
            shared = [
                live
                for live in self._local.running()
                if (mirror := mirrors.get(live.turn_id)) is not None and not mirror.released
            ]
            if not shared:
                return
            try:
                verdicts = await self._renew(shared)
            except (RedisError, OSError) as exc:
                log.warning("%d lease(s) not renewed (%s)", len(shared), exc)
                return
        for live, verdict in zip(shared, verdicts, strict=True):
            if verdict == "cancel":
                live.cancel()
            elif verdict in ("lost", "swept"):
                log.warning("turn %s: lease %s; stopping it", live.turn_id, verdict)
                live.cancel()

    async def _renew(self, turns: list[LiveTurn]) -> list[str]:
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        for live in turns:  # awaiting a script on a pipeline only queues it
            await self.store.renew(
                keys=[
                    keys.lease(live.session_id),
                    keys.running,
                    keys.swept(live.turn_id),
                    keys.cancel(live.turn_id),
                ],
                args=[live.turn_id, self.store.lease_ms],
                client=pipe,
            )
        verdicts: list[str] = await pipe.execute()
        return verdicts

    async def _listen_for_cancels(self) -> None:
        """Cancel messages for turns running here; reconnects after a Redis failure."""
        while True:
            try:
                await self._cancel_messages()
            except (RedisError, OSError) as exc:
                log.warning("cancel channel lost (%s); reconnecting", exc)
                await asyncio.sleep(self.store.settings.timeout_s)

    async def _cancel_messages(self) -> None:
        pubsub = self.store.blocking.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self.store.keys.cancel_channel)
            while True:
                message = await pubsub.get_message(timeout=self.store.settings.block_s)
                if message is None:
                    continue
                live = self._local.get(str(message["data"]))
                if live is not None:
                    live.cancel()
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]


class _Claim(enum.Enum):
    """What ``_lookup`` finds of a keyed claim still ``checking`` the record (its meta's
    ``state``; it becomes ``running`` once the claim runs)."""

    CHECKING = "checking"


def _meta(live: LiveTurn) -> list[str]:
    """What another replica needs to follow the turn, or to record it if we die."""
    assert live.meta is not None, "a shared turn carries its meta (live/meta.py)"
    fields = {
        "state": RUNNING if live.idempotency_key is None else _Claim.CHECKING.value,
        "turn_id": live.turn_id,
        "session_id": live.session_id,
        "owner_id": str(live.owner_id),
        "key": live.idempotency_key or "",
        "hash": live.request_hash or "",
        "meta": live.meta.to_json(),
    }
    return [part for pair in fields.items() for part in pair]
