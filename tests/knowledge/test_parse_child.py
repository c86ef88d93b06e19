"""The parser child never outlives its server: shutdown kills it, a child whose server died
exits by itself, and a parse past its deadline or memory cap is stopped in the child."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from pantheon.knowledge import parse_child
from pantheon.knowledge.formats import Format
from pantheon.knowledge.parsing import ParseLimits, parse_document
from pantheon.knowledge.sections import ParseError
from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.files import docx_bytes
from tests.knowledge.helpers import ingested

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc (Linux)")

GONE_WITHIN_S = 30.0  # a deadline for the wait, not a timing assertion

# A server process that parses once, reports its parser child and dies by SIGKILL: no
# shutdown, no atexit.
ORPHANING_SERVER = """
import asyncio, os, signal, sys
from pathlib import Path
from pantheon.knowledge.formats import Format
from pantheon.knowledge.parse_pool import ParsePool
from pantheon.settings import KnowledgeSettings

pool = ParsePool(KnowledgeSettings(parse_timeout_s=60))
parsed = asyncio.run(pool.parse(Path(sys.argv[1]), Format.TXT))
assert parsed.chunks, parsed
print(*pool.pids(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _gone(pid: int) -> bool:
    """The process has exited (a zombie not yet reaped by its new parent counts)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _wait_gone(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline and not all(_gone(pid) for pid in pids):
        time.sleep(0.05)
    return [pid for pid in pids if not _gone(pid)]


async def test_shutdown_kills_the_parser_child(settings: Settings) -> None:
    async with running_app(settings) as started:
        place = f"rooms/{(await create_room(started.http))['id']}"
        await ingested(started.http, place, "one.txt", b"Parsed in a child process.")
        children = started.app.state.services.knowledge.ingest.parser.pids()
        assert children, "the parse ran in no child process"
    assert [pid for pid in children if not _gone(pid)] == []


def test_a_child_whose_server_died_exits(tmp_path: Path) -> None:
    text = tmp_path / "one.txt"
    text.write_text("Parsed by a child that is about to be orphaned.")
    output = tmp_path / "pids"
    # Into a file, not a pipe: the orphan inherits it and a pipe would stay open with it.
    with output.open("w") as stdout:
        server = subprocess.run(
            [sys.executable, "-c", ORPHANING_SERVER, str(text)],
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            timeout=120,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
    assert server.returncode == -signal.SIGKILL
    pids = [int(pid) for pid in output.read_text().split()]
    assert pids
    assert _wait_gone(pids) == []


def _guarded_pool(max_memory_bytes: int = 0) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=parse_child.start,
        initargs=(0, os.getpid(), max_memory_bytes),
    )


def test_a_parse_past_its_deadline_stops_the_child_itself() -> None:
    with _guarded_pool() as pool:
        # The server would kill the child at 0.1 s; here nobody does: the child must stop.
        future = pool.submit(parse_child.run, 0.1, time.sleep, 600)
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=GONE_WITHIN_S)


def test_a_parse_holding_the_gil_is_stopped_by_its_cpu_limit() -> None:
    with _guarded_pool() as pool:
        # sum() over a range runs in C without releasing the GIL: the watchdog thread cannot
        # run, RLIMIT_CPU still stops it.
        future = pool.submit(parse_child.run, 0.1, sum, range(10**13))
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=GONE_WITHIN_S)


def test_the_child_memory_is_capped_and_it_keeps_serving() -> None:
    with _guarded_pool(max_memory_bytes=512 * 1024 * 1024) as pool:
        with pytest.raises(MemoryError):
            pool.submit(parse_child.run, 5.0, bytearray, 1024 * 1024 * 1024).result()
        assert pool.submit(parse_child.run, 5.0, len, "still here").result() == 10


def test_a_parse_out_of_memory_fails_the_document_naming_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import docx

    def exhausted(path: str) -> None:
        raise MemoryError

    path = tmp_path / "big.docx"
    path.write_bytes(docx_bytes([("Heading", ["Text."])]))
    monkeypatch.setattr(docx, "Document", exhausted)  # what the child's RLIMIT_AS causes
    limits = ParseLimits(
        max_text_chars=1000, chunk_chars=800, chunk_overlap=120, max_memory_bytes=7
    )
    with pytest.raises(
        ParseError, match=r"more than 7 bytes of memory \(PANTHEON_KNOWLEDGE__PARSE"
    ):
        parse_document(path, Format.DOCX, limits)
