"""B8: what a long answer costs to store: bytes per turn and the time its one write holds
the database, against the earlier layout (one row per SSE event) measured in the same run.

In this process, on SQLite: a standalone turn whose scripted answer is ``size`` characters
of prose, a word per delta, runs through the API; the recorder's one transaction
(``recorder._write``: turn row, messages, LLM calls, compressed event log) is timed. The
baseline writes the same turn's streamed events (read back by replay) as one row each into
a scratch table of the earlier shape, in one transaction on the same engine. Bytes are the
stored text and blob lengths (messages and the turn's output count for both), before the
database's own pages.
"""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import httpx
from sqlalchemy import text

from pantheon.db.migrations import upgrade
from pantheon.db.uow import unit_of_work
from pantheon.live import recorder
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings
from pantheon_bench.b6_recording import _timed
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt

OLD_LAYOUT = (
    "CREATE TABLE IF NOT EXISTS old_turn_events (turn_id TEXT, seq INTEGER, type TEXT, "
    "data TEXT, PRIMARY KEY (turn_id, seq))"
)


# Prose-like text: seeded random words, so it compresses like writing does (about 3x),
# not like a repeated string.
_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "her",
    "she",
    "there",
    "been",
    "one",
    "all",
    "we",
    "their",
    "has",
    "would",
    "when",
    "model",
    "agent",
    "answer",
    "round",
    "tool",
    "search",
    "result",
    "manager",
    "synthesis",
    "council",
    "document",
    "page",
]


def _answer(size: int) -> str:
    rng = random.Random(size)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS) + rng.choice(" " * 12 + ",.\n")
        words.append(word)
        length += len(word)
    return "".join(words)[:size]


async def _one_turn(http: httpx.AsyncClient, scripted: ScriptedProvider, size: int) -> str:
    agent = await http.post(
        "/v1/agents", json={"key": f"a{uuid.uuid4().hex[:8]}", "name": "A", "role_prompt": "r"}
    )
    session = await http.post(f"/v1/agents/{agent.json()['id']}/sessions", json={"title": "b8"})
    scripted.script(_answer(size), agent=agent.json()["key"], times=1)
    turn = await http.post(f"/v1/sessions/{session.json()['id']}/turns", json={"message": "go"})
    if turn.status_code != 201 or turn.json()["status"] != "completed":
        raise RuntimeError(f"turn failed: {turn.status_code} {turn.text[:200]}")
    turn_id: str = turn.json()["id"]
    return turn_id


async def _stored_bytes(app: Any, turn_id: str) -> int:
    ident = uuid.UUID(turn_id).hex
    async with unit_of_work(app.state.services.db, write=False) as s:
        log = await s.scalar(
            text("SELECT length(data) FROM turn_event_logs WHERE turn_id = :t"), {"t": ident}
        )
    return int(log or 0) + await _text_bytes(app, turn_id)


async def _text_bytes(app: Any, turn_id: str) -> int:
    """The turn's messages and formatted output: stored alike in both layouts."""
    ident = uuid.UUID(turn_id).hex
    async with unit_of_work(app.state.services.db, write=False) as s:
        content = await s.scalar(
            text("SELECT sum(length(content)) FROM messages WHERE turn_id = :t"), {"t": ident}
        )
        output = await s.scalar(
            text("SELECT length(output) FROM turns WHERE id = :t"), {"t": ident}
        )
    return int(content or 0) + int(output or 0)


async def _old_layout(app: Any, http: httpx.AsyncClient, turn_id: str) -> tuple[float, int]:
    replay = (await http.get(f"/v1/turns/{turn_id}/events")).text
    datas = [line[6:] for line in replay.splitlines() if line.startswith("data: ")]
    rows = [{"t": turn_id, "s": i, "k": "event", "d": d} for i, d in enumerate(datas, 1)]
    start = time.perf_counter()
    async with unit_of_work(app.state.services.db, write=True) as s:
        await s.execute(text(OLD_LAYOUT))
        await s.execute(text("INSERT INTO old_turn_events VALUES (:t, :s, :k, :d)"), rows)
    elapsed = time.perf_counter() - start
    return elapsed, sum(len(d) for d in datas) + await _text_bytes(app, turn_id)


async def _measure(url: str, sizes: tuple[int, ...]) -> dict[int, dict[str, float]]:
    await upgrade(url)
    scripted = ScriptedProvider(chunk_words=1)
    settings = Settings(database_url=url, default_model="scripted", log_level="WARNING")
    settings.turns.max_message_chars = 10
    app = create_app(settings, scripted=scripted)
    namespace = vars(recorder)
    original = namespace["_write"]
    out: dict[int, dict[str, float]] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            for size in sizes:
                times: list[float] = []
                namespace["_write"] = _timed(times, original)
                try:
                    turn_id = await _one_turn(http, scripted, size)
                finally:
                    namespace["_write"] = original
                old_s, old_bytes = await _old_layout(app, http, turn_id)
                out[size] = {
                    "bytes": await _stored_bytes(app, turn_id), "write_ms": times[0] * 1e3,
                    "old_bytes": old_bytes, "old_write_ms": old_s * 1e3,
                }  # fmt: skip
    return out


async def run(ctx: Context) -> BenchResult:
    result = BenchResult("B8", "Storing a long answer", "one row per SSE event (earlier layout)")
    sizes = (10_000, 100_000) if ctx.sizes.quick else (10_000, 100_000, 1_000_000)
    data = await _measure(f"sqlite+aiosqlite:///{ctx.workdir / 'b8.db'}", sizes)
    for size, d in data.items():
        case = f"sqlite, {size // 1000} KB answer"
        result.rows += [
            Row(case, "bytes stored per turn", f"{d['bytes']:,.0f}", f"{d['old_bytes']:,.0f}",
                f"x{fmt(d['bytes'] / d['old_bytes'])}", "", None),
            Row(case, "ms in the write transaction", fmt(d["write_ms"]),
                fmt(d["old_write_ms"]), f"x{fmt(d['write_ms'] / d['old_write_ms'])}", "", None),
        ]  # fmt: skip
    result.raw.update({str(k): v for k, v in data.items()})
    result.notes.append(
        "Seeded random prose streamed a word per delta, as models stream tokens. Pantheon's "
        "transaction writes the turn row, messages, LLM calls and the log (compressed "
        "before it, in a worker thread for large logs); the baseline transaction writes only "
        "the per-event rows. SQLite holds its one write lock for the whole transaction."
    )
    return result
