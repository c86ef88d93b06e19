"""The upstream SSE decoder reads event streams as the WHATWG rules do, however the bytes
are cut into chunks, and refuses to hold an unbounded event."""

from __future__ import annotations

import json

import pytest

from pantheon.llm.errors import BadRequest
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.sse import EventTooLarge, ServerSentEvent, SSEDecoder
from tests.llm.mock_openai import REQUEST, MockOpenAI, Reply
from tests.llm.streams import collect, texts

STREAM = (
    b"\xef\xbb\xbf: a comment\r\n"
    b"event: first\r\ndata: one\r\ndata:  two\r\n\r\n"
    b"data:three\n\n"
    b"id: 7\rretry: 10\rdata: four\r\r"
    b"data\n\n"
    b"data: \xff\xfe bad bytes\n\n"
    b"event: unsent\n\n"
    b"data: no blank line after me\n"
)
EVENTS = [
    ServerSentEvent("one\n two", "first"),
    ServerSentEvent("three"),
    ServerSentEvent("four"),
    ServerSentEvent(""),
    ServerSentEvent("\ufffd\ufffd bad bytes"),
]


def _decode(chunks: list[bytes], max_bytes: int = 1024) -> list[ServerSentEvent]:
    decoder = SSEDecoder(max_bytes)
    return [event for chunk in chunks for event in decoder.feed(chunk)]


def test_whole_stream_gives_every_dispatched_event() -> None:
    assert _decode([STREAM]) == EVENTS


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 11])
def test_any_cut_into_chunks_gives_the_same_events(size: int) -> None:
    chunks = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    assert _decode(chunks) == EVENTS


def test_a_crlf_split_across_chunks_is_one_line_end() -> None:
    assert _decode([b"data: a\r", b"\n", b"\r", b"\ndata: b\r\n\r\n"]) == [
        ServerSentEvent("a"),
        ServerSentEvent("b"),
    ]


def test_a_line_that_never_ends_is_refused_once_past_the_bound() -> None:
    decoder = SSEDecoder(100)
    decoder.feed(b"data: " + b"x" * 90)
    with pytest.raises(EventTooLarge, match="longer than 100 bytes"):
        decoder.feed(b"x" * 20)


def test_an_event_of_many_short_lines_is_refused_past_the_bound() -> None:
    decoder = SSEDecoder(100)
    with pytest.raises(EventTooLarge, match="larger than 100 bytes"):
        decoder.feed(b"data: 0123456789\n" * 20)


async def test_a_hostile_upstream_line_fails_the_call_as_a_bad_answer(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    frames = [b"data: " + b"x" * (1 << 20)] * 17  # 17 MiB without a line end
    mock_openai.queue(Reply(raw=frames))
    with pytest.raises(BadRequest, match="longer than"):
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))


async def test_cr_line_ends_and_byte_sized_writes_stream_the_same_answer(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    chunk = {"choices": [{"delta": {"content": "Hi"}, "finish_reason": None}]}
    last = {"choices": [{"delta": {"content": " there"}, "finish_reason": "stop"}]}
    body = f"data: {json.dumps(chunk)}\r\rdata: {json.dumps(last)}\r\rdata: [DONE]\r\r"
    raw = body.encode()
    mock_openai.queue(Reply(raw=[raw[i : i + 1] for i in range(len(raw))], chunks=()))
    items = await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert texts(items) == ["Hi", " there"]
