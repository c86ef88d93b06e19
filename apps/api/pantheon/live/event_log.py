"""A turn's event log as one compact value: the streamed JSON texts, one per line, zlib.

JSON text never holds a raw newline, so lines split back into exactly the texts that were
streamed (a replay sends the same bytes). The turn's internal events (never streamed:
``engine/events.py``) follow the public ones after one empty line (JSON text is never
empty), so ``decode`` (what replay reads) returns exactly the streamed texts. Most of a
log is deltas that repeat the same keys and ids, which compress about tenfold; large
logs are (de)compressed in a worker thread so a long answer never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Sequence

ENCODING = "zlib-jsonl"
_LEVEL = 3  # B8: most of level 6's ratio at well under half its time
_INLINE_BYTES = 64 * 1024  # below this, a thread hop costs more than the work


def encode(texts: Sequence[str], internal: Sequence[str] = ()) -> bytes:
    """The log of these event JSON texts, in order, then the internal ones (if any)."""
    lines = [*texts, "", *internal] if internal else list(texts)
    assert not any("\n" in t for t in lines), "event JSON is single-line"
    return zlib.compress("\n".join(lines).encode("utf-8"), _LEVEL)


def decode_all(data: bytes) -> tuple[list[str], list[str]]:
    """The public and the internal event JSON texts of a log, each in order."""
    raw = zlib.decompress(data).decode("utf-8")
    lines = raw.split("\n") if raw else []
    if "" not in lines:
        return lines, []
    cut = lines.index("")
    return lines[:cut], lines[cut + 1 :]


def decode(data: bytes) -> list[str]:
    """The public event JSON texts of a log, in order: what was streamed."""
    return decode_all(data)[0]


async def encode_async(texts: Sequence[str], internal: Sequence[str] = ()) -> bytes:
    if sum(len(t) for t in texts) + sum(len(t) for t in internal) < _INLINE_BYTES:
        return encode(texts, internal)
    return await asyncio.to_thread(encode, texts, internal)


async def decode_async(data: bytes) -> list[str]:
    if len(data) < _INLINE_BYTES // 8:
        return decode(data)
    return await asyncio.to_thread(decode, data)


async def decode_all_async(data: bytes) -> tuple[list[str], list[str]]:
    """``decode_all``, off the event loop when the log is large."""
    if len(data) < _INLINE_BYTES // 8:
        return decode_all(data)
    return await asyncio.to_thread(decode_all, data)
