"""One stall watchdog per upstream call, instead of an ``asyncio.timeout`` per item.

An ``asyncio.timeout`` around every read schedules and cancels a timer per streamed
delta; this arms one timer per call that only looks at when the current wait began, so
a delta costs two attribute writes. The semantics are the same: a wait for the next item
longer than the stall limit, or past the call's deadline, cancels the wait and surfaces
as ``Expired`` in the reader.
"""

from __future__ import annotations

import asyncio


class Expired(Exception):
    """The current wait passed the stall limit or the deadline."""


class StallWatch:
    """Cancels ``task`` when a wait begun with ``waiting`` lasts past its limit."""

    def __init__(self, stall_s: float, deadline: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[object] | None = None
        self._stall_s, self._deadline = stall_s, deadline
        self._since: float | None = None
        self._cancelling = 0
        self._timer: asyncio.TimerHandle | None = None
        self.expired = False
        self.stalled = False  # expired by the stall limit rather than the deadline

    def waiting(self) -> None:
        """A wait for the next item starts now."""
        self._since = self._loop.time()
        self._task = task = asyncio.current_task()  # a generator may move between tasks
        assert task is not None, "a stall watch runs inside a task"
        self._cancelling = task.cancelling()
        if self._timer is None:
            self._timer = self._loop.call_at(self._limit(self._since), self._check)

    def received(self) -> None:
        """The wait ended (an item, the end, or an error)."""
        self._since = None

    def settle(self, exc: asyncio.CancelledError) -> None:
        """Raise ``Expired`` if ``exc`` is this watch's own cancellation."""
        if self.expired and self._task is not None and self._task.uncancel() <= self._cancelling:
            raise Expired from None
        raise exc

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _limit(self, since: float) -> float:
        return min(since + self._stall_s, self._deadline)

    def _check(self) -> None:
        self._timer = None
        if self._since is None or self.expired or self._task is None:
            return  # not waiting: the next ``waiting`` re-arms
        limit = self._limit(self._since)
        if self._loop.time() >= limit:
            self.expired = True
            self.stalled = self._since + self._stall_s < self._deadline
            self._task.cancel()
        else:
            self._timer = self._loop.call_at(limit, self._check)
