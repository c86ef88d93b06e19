"""At start-up, before serving: record every journalled turn that is not in the database
as ``interrupted`` (live/interrupted.py), then drop its journal file.

- A file still locked belongs to a live process on the same data directory: left alone.
- Only complete lines count: a line the crash cut short is ignored (its event is lost,
  like the ones never flushed).
- A turn already in the database (it committed; the process died before deleting the
  file) is not touched; its file is just dropped.
- When the database refuses the write, the file stays for the next start and the server
  starts anyway. A file that cannot be parsed is renamed ``*.corrupt`` and kept for the
  operator, never retried.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from pantheon.db.engine import Database
from pantheon.live.interrupted import record_interrupted
from pantheon.live.journal import SUFFIX
from pantheon.live.meta import TurnMeta

log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Claimed:
    """A journal file this process holds the lock of, and what it says."""

    path: Path
    handle: BinaryIO
    lines: list[str]
    ended_at: datetime

    def drop(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        finally:
            self.handle.close()

    def set_aside(self) -> None:
        try:
            self.path.rename(self.path.with_suffix(".corrupt"))
        finally:
            self.handle.close()

    def release(self) -> None:
        self.handle.close()


def _files(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    return sorted(directory.glob(f"*{SUFFIX}"))


def _claim(path: Path) -> _Claimed | None:
    """Lock and read ``path``; ``None`` when a live process holds it (or it is gone)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    data = handle.read()
    ended_at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    complete = data.split(b"\n")[:-1]  # after the last newline: "" or a torn line
    return _Claimed(path, handle, [line.decode("utf-8", "replace") for line in complete], ended_at)


async def _recover_one(db: Database, claimed: _Claimed) -> bool:
    """Record the file's turn if needed and drop the file; True if it was recorded now."""
    try:
        if not claimed.lines:
            log.warning("journal %s: empty (a crash as the turn started); dropped", claimed.path)
            await asyncio.to_thread(claimed.drop)
            return False
        meta = TurnMeta.from_json(claimed.lines[0])
        recorded = await record_interrupted(db, meta, claimed.lines[1:], claimed.ended_at)
    except ValueError:
        log.exception("journal %s: unreadable; renamed *.corrupt", claimed.path)
        await asyncio.to_thread(claimed.set_aside)
        return False
    except Exception:
        log.exception("journal %s: not recorded; kept for the next start", claimed.path)
        await asyncio.to_thread(claimed.release)
        return False
    await asyncio.to_thread(claimed.drop)
    return recorded


async def recover_journal(db: Database, directory: Path) -> int:
    """Record the journalled turns of dead processes; how many were recorded now."""
    recorded = 0
    for path in await asyncio.to_thread(_files, directory):
        claimed = await asyncio.to_thread(_claim, path)
        if claimed is not None and await _recover_one(db, claimed):
            log.warning(
                "turn %s was interrupted (the server stopped mid-turn); recorded", path.stem
            )
            recorded += 1
    return recorded
