"""A turn's event log as one compact value: the streamed JSON texts, one per line, zlib.

JSON text never holds a raw newline, so lines split back into exactly the texts that were
streamed (a replay sends the same bytes). Most of a log is deltas that repeat the same
keys and ids, which compress about tenfold; large logs are (de)compressed in a worker
thread so a long answer never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Sequence

ENCODING = "zlib-jsonl"
_LEVEL = 3  # B8: most of level 6's ratio at well under half its time
_INLINE_BYTES = 64 * 1024  # below this, a thread hop costs more than the work


def encode(texts: Sequence[str]) -> bytes:
    """The log of these event JSON texts, in order."""
    assert not any("\n" in t for t in texts), "event JSON is single-line"
    return zlib.compress("\n".join(texts).encode("utf-8"), _LEVEL)


def decode(data: bytes) -> list[str]:
    """The event JSON texts of a log, in order."""
    raw = zlib.decompress(data).decode("utf-8")
    return raw.split("\n") if raw else []


async def encode_async(texts: Sequence[str]) -> bytes:
    if sum(len(t) for t in texts) < _INLINE_BYTES:
        return encode(texts)
    return await asyncio.to_thread(encode, texts)


async def decode_async(data: bytes) -> list[str]:
    if len(data) < _INLINE_BYTES // 8:
        return decode(data)
    return await asyncio.to_thread(decode, data)
