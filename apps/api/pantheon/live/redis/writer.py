"""One writer task per replica sends every local turn's queued events to Redis.

Each round trip is one ``APPEND`` script call carrying whatever all turns queued in a short
window (``redis.mirror_window_ms``, 20 ms) after the first. Alone, a turn's event goes out
up to 20 ms late (to other replicas' listeners only: this one's read from memory); under
load a round trip carries many turns' events, so the cost per event falls as the load
rises. The window is fixed from the first event, so a steady stream cannot hold the
writes back, and a turn that waits on its events (to free its session at the end) cuts
it short.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Protocol

from redis.exceptions import RedisError

from pantheon.live.redis.store import RedisStore

log = logging.getLogger(__name__)
LOST, REFUSED = -1, -2  # the script's answers for a stream that is gone, or an entry refused


class Queued(Protocol):
    """A turn's mirror as the writer sees it: entries to take, and the outcome to hear."""

    @property
    def key(self) -> str: ...

    def take(self) -> tuple[bool, int, list[str]]:
        """(must the stream exist, TTL ms to give it, id/field/value of each entry)."""

    def wrote(self, added: int, error: str | None) -> None:
        """``added`` entries of the last taken are in the stream; or ``error``."""


class MirrorWriter:
    """The replica's one writer of turn events; its ``run`` is a task of the backend."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._window_s = store.settings.mirror_window_ms / 1000
        self._queued: dict[str, Queued] = {}  # by stream key, in the order they queued
        self._wake = asyncio.Event()
        self._hurry = asyncio.Event()

    def queued(self, mirror: Queued) -> None:
        """``mirror`` has entries to send: they go in the next round trip."""
        self._queued[mirror.key] = mirror
        self._wake.set()

    def hurry(self) -> None:
        """A turn waits on its events (to free its session): send without gathering more."""
        self._hurry.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            if self._window_s and not self._hurry.is_set():
                with contextlib.suppress(TimeoutError):  # gather what else comes meanwhile
                    async with asyncio.timeout(self._window_s):
                        await self._hurry.wait()
            self._wake.clear()
            self._hurry.clear()
            batch, self._queued = list(self._queued.values()), {}
            try:
                await self._write(batch)
            except Exception:  # a bug here must not leave every turn waiting on its mirror
                log.exception("writing %d turns' events to Redis failed", len(batch))
                for mirror in batch:
                    mirror.wrote(0, "the writer failed")

    async def _write(self, batch: Sequence[Queued]) -> None:
        keys: list[str] = []
        args: list[str | int] = [self._store.settings.stream_maxlen]
        taken: list[tuple[Queued, int]] = []
        for mirror in batch:
            must_exist, ttl_ms, fields = mirror.take()
            if fields:
                keys.append(mirror.key)
                args += (1 if must_exist else 0, ttl_ms, len(fields) // 3, *fields)
            taken.append((mirror, len(fields) // 3))
        try:
            added: list[int] = await self._store.append(keys=keys, args=args) if keys else []
        except (RedisError, OSError) as exc:
            for mirror, _count in taken:
                mirror.wrote(0, str(exc))
            return
        answers = iter(added)
        for mirror, count in taken:
            written = next(answers) if count else 0
            if written == LOST:
                mirror.wrote(0, "Redis lost the stream (restarted?)")
            elif written == REFUSED:
                mirror.wrote(0, "Redis refused an event")
            else:
                mirror.wrote(written, None)
