"""The crash journal: each running turn's request and events in a local file, outside the
one commit, so a process that dies mid-turn loses nothing (docs/adr/0011-crash-journal.md).

Promises:
- One append-only file per running turn, ``<data_dir>/journal/<turn id>.jsonl``: the
  turn's ``TurnMeta`` as the first line, then each published event's JSON text (exactly
  as streamed), one per line, in publish order; internal events (``llm_call``,
  ``tool_call_record``: never streamed) are lines too, so a dead turn keeps its usage.
- The file is created ``flush_s`` after the turn started (or once ``BATCH_EVENTS``
  events wait): a turn that commits sooner, as most short ones do, never touches the
  disk, and a crash that early loses no more than the flush interval allows anyway.
- Events are written in batches, never one write per token: at most ``flush_s`` after an
  event; at once when an agent starts, finishes or fails, a tool call starts or ends,
  ``BATCH_EVENTS`` are waiting, or the turn ends. Writes only reach the OS (no fsync):
  they survive the process being killed, not the machine losing power.
- File work runs in the journal's own thread (not the shared default pool, so a slow
  disk delays only the journal); the event loop only notes new events and, once per
  batch, schedules a wake-up.
- Once the turn's commit succeeded the file is deleted. A turn whose commit failed keeps
  its file: the next start records it ``interrupted`` (``journal_recovery.py``).
- While its turn runs, the file holds an exclusive ``flock``: a server starting on the
  same data directory leaves a live process's turns alone. The lock dies with the process.
- A journal that cannot be written (disk full, read-only) is logged and the turn goes on
  unjournalled: the journal never fails a turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO, TypeVar

from pantheon.live.registry import LiveTurn, PublishedEvent

log = logging.getLogger(__name__)
T = TypeVar("T")

SUFFIX = ".jsonl"
BATCH_EVENTS = 256
# Events after which a crash would lose a speaker's boundary: written at once.
_AT_ONCE = frozenset(
    {
        "turn_started", "agent_started", "agent_completed", "agent_failed",
        "synthesis_started", "synthesis_completed", "tool_call", "tool_result",
        "turn_completed", "error", "llm_call", "tool_call_record",
    }
)  # fmt: skip


def _create(path: Path, header: str) -> BinaryIO:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("xb")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        handle.write(header.encode("utf-8") + b"\n")
        handle.flush()
    except BaseException:
        handle.close()
        path.unlink(missing_ok=True)
        raise
    return handle


def _append(handle: BinaryIO, texts: list[str]) -> None:
    handle.write("".join(text + "\n" for text in texts).encode("utf-8"))
    handle.flush()


def _finish(handle: BinaryIO, path: Path, drop: bool) -> None:
    try:
        if drop:
            path.unlink(missing_ok=True)  # while still locked: nobody else reads it
    finally:
        handle.close()


class _TurnFile:
    """One turn's file and its writer task (the turn's ``observer``)."""

    def __init__(self, journal: TurnJournal, live: LiveTurn) -> None:
        self.journal = journal
        self.live = live
        self.path = journal.path(live.turn_id)
        self.flush_s = journal.flush_s
        self.written = 0
        self.opened = False
        self.ended = False
        self.wake = asyncio.Event()
        # The first write waits one interval: most short turns commit before it is due.
        self.timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(
            self.flush_s, self.wake.set
        )

    # -- observer: on the event loop, per event ---------------------------------------
    def published(self, event: PublishedEvent) -> None:
        boundary = self.opened and event.event.type in _AT_ONCE
        if boundary or len(self.live.log) - self.written >= BATCH_EVENTS:
            self.wake.set()
        elif self.timer is None and not self.wake.is_set():
            self.timer = asyncio.get_running_loop().call_later(self.flush_s, self.wake.set)

    def closed(self) -> None:
        self.ended = True
        self.wake.set()

    # -- writer task ------------------------------------------------------------------
    async def run(self) -> None:
        live = self.live
        assert live.meta is not None
        try:
            await self.wake.wait()
            if self.ended and live.recorded:
                return  # committed before its first write was due: no file at all
            try:
                handle = await self.journal.io(_create, self.path, live.meta.to_json())
            except OSError:
                log.exception("turn %s: journal not written", live.turn_id)
                return
            self.opened = True
            try:
                await self._write_until_closed(handle)
            except OSError:
                log.exception("turn %s: journal writes stopped", live.turn_id)
            finally:
                await self.journal.io(_finish, handle, self.path, live.recorded)
        finally:
            live.observer = None
            self._stop_timer()

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    async def _write_until_closed(self, handle: BinaryIO) -> None:
        while True:  # the wake that opened the file is still set: the first pass writes
            await self.wake.wait()
            self.wake.clear()
            self._stop_timer()
            ended = self.ended  # read before the write: events may still come during it
            new = self.live.log[self.written :]
            if new:
                await self.journal.io(_append, handle, [p.data for p in new])
                self.written += len(new)
            if ended:
                return


class TurnJournal:
    """The journal of this process's running turns, in ``directory``."""

    def __init__(self, directory: Path, flush_s: float) -> None:
        self.directory = directory
        self.flush_s = flush_s
        self._tasks: set[asyncio.Task[None]] = set()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pantheon-journal")

    async def io(self, work: Callable[..., T], *args: object) -> T:
        """Run blocking file work in the journal's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, *args)

    def path(self, turn_id: str) -> Path:
        return self.directory / f"{turn_id}{SUFFIX}"

    def follow(self, live: LiveTurn) -> None:
        """Journal ``live`` from now until its end (it must carry ``meta``)."""
        writer = _TurnFile(self, live)
        live.observer = writer
        task = asyncio.create_task(writer.run(), name=f"journal-{live.turn_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for every writer, then let the thread go; called once no turn runs (the
        registry's shutdown), and the journal takes no turns after it."""
        while self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.gather(*list(self._tasks))
        self._thread.shutdown(wait=False)
