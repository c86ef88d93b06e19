"""The ingest queue: which waiting document a free ingest worker takes next.

Fair across owners and places, so a small document is never stuck behind another user's
(or another room's) huge one: at most one document per place (room or agent) ingests at
a time, one owner holds at most ``owner_cap`` workers (the app uses ``workers - 1``, so
one is always left for everyone else), and among the eligible places the next document
comes from the owner with the fewest running documents, then the owner and the place
served least recently (round-robin). Within a place documents go in upload order.
Pure bookkeeping in the event loop: no I/O, no locks.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections import Counter, deque
from dataclasses import dataclass

from pantheon.db.models import Document


@dataclass(frozen=True, slots=True)
class Job:
    """A document to ingest and whose it is (for fairness)."""

    document_id: uuid.UUID
    owner_id: uuid.UUID
    place: str

    @classmethod
    def of(cls, row: Document) -> Job:
        return cls(row.id, row.owner_id, row.place)


class FairQueue:
    """Waiting jobs by place; ``get`` hands the next eligible one to a worker."""

    def __init__(self, owner_cap: int) -> None:
        self.owner_cap = max(1, owner_cap)
        self._waiting: dict[str, deque[Job]] = {}
        self._running_places: set[str] = set()
        self._running_owners: Counter[uuid.UUID] = Counter()
        self._served: dict[object, int] = {}  # owner id or place -> when last served
        self._clock = itertools.count()
        self._changed = asyncio.Event()

    def put(self, job: Job) -> None:
        queue = self._waiting.setdefault(job.place, deque())
        if all(waiting.document_id != job.document_id for waiting in queue):
            queue.append(job)
            self._changed.set()

    def discard(self, document_id: uuid.UUID) -> bool:
        """Drop a waiting job (its document was deleted); whether it was waiting."""
        for place, queue in self._waiting.items():
            for job in queue:
                if job.document_id == document_id:
                    queue.remove(job)
                    if not queue:
                        del self._waiting[place]
                    return True
        return False

    def take(self) -> Job | None:
        """The next eligible job, now counted as running; None when none may start."""
        eligible = [
            queue[0]
            for place, queue in self._waiting.items()
            if place not in self._running_places
            and self._running_owners[queue[0].owner_id] < self.owner_cap
        ]
        if not eligible:
            return None
        job = min(eligible, key=self._priority)
        queue = self._waiting[job.place]
        queue.popleft()
        if not queue:
            del self._waiting[job.place]
        self._running_places.add(job.place)
        self._running_owners[job.owner_id] += 1
        tick = next(self._clock)
        self._served[job.owner_id] = self._served[job.place] = tick
        return job

    def _priority(self, job: Job) -> tuple[int, int, int]:
        return (
            self._running_owners[job.owner_id],
            self._served.get(job.owner_id, -1),
            self._served.get(job.place, -1),
        )

    def done(self, job: Job) -> None:
        """The job's worker is free again (whatever the outcome)."""
        self._running_places.discard(job.place)
        self._running_owners[job.owner_id] -= 1
        if self._running_owners[job.owner_id] <= 0:
            del self._running_owners[job.owner_id]
        if job.place not in self._waiting:
            self._served.pop(job.place, None)
            if job.owner_id not in self._running_owners and not any(
                queue[0].owner_id == job.owner_id for queue in self._waiting.values()
            ):
                self._served.pop(job.owner_id, None)
        self._changed.set()

    async def get(self) -> Job:
        """Wait for the next job a worker may start."""
        while (job := self.take()) is None:
            self._changed.clear()
            await self._changed.wait()
        return job

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._waiting.values())
