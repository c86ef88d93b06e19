"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp ...).

Inputs are sent in batches of ``batch_size``; each request has bounded timeouts and is
retried like the LLM gateway does it: exponential backoff with full jitter on connect
errors, timeouts and 408/409/429/5xx, at least the upstream's ``Retry-After``. Other
statuses and malformed answers fail at once with an ``EmbedderError`` naming the endpoint.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np

from pantheon.knowledge.embedders.base import EmbedderError, Vectors, first_row, normalise

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 4
    backoff_base_s: float = 0.25
    backoff_max_s: float = 8.0

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Full jitter over ``base * 2**attempt`` (capped), at least ``Retry-After``."""
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2**attempt)
        delay = random.uniform(0, ceiling)
        if retry_after_s is not None and retry_after_s > 0:
            delay = max(delay, min(retry_after_s, 4 * self.backoff_max_s))
        return delay


class OpenAIEmbedder:
    """``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str,
        model: str,
        dim: int,
        client: httpx.AsyncClient,
        api_key_env: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.ident = f"{name}:{model}"
        self.dim = dim
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.client = client
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self.timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0))
        self.retry = retry or RetryPolicy()

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        rows = [
            await self._request(list(texts[start : start + self.batch_size]))
            for start in range(0, len(texts), self.batch_size)
        ]
        return normalise(np.concatenate(rows)) if rows else np.zeros((0, self.dim), np.float32)

    async def embed_query(self, text: str) -> Vectors:
        return first_row(normalise(await self._request([text])))

    async def _request(self, batch: list[str]) -> Vectors:
        reason = "no attempt made"
        for attempt in range(self.retry.max_attempts):
            retry_after: float | None = None
            try:
                response = await self.client.post(
                    self.url, json={"model": self.model, "input": batch},
                    headers=self._headers(), timeout=self.timeout,
                )  # fmt: skip
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                reason = f"{type(exc).__name__} calling {self.url}"
            else:
                if response.status_code == 200:
                    return self._parse(response, len(batch))
                reason = f"{self.url} answered {response.status_code}"
                if response.status_code not in RETRY_STATUSES:
                    raise EmbedderError(reason)
                retry_after = _retry_after(response)
            if attempt + 1 < self.retry.max_attempts:
                await asyncio.sleep(self.retry.delay(attempt, retry_after))
        raise EmbedderError(f"{reason} (after {self.retry.max_attempts} attempts)")

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _parse(self, response: httpx.Response, expected: int) -> Vectors:
        try:
            data: list[dict[str, Any]] = response.json()["data"]
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
            matrix = np.asarray([item["embedding"] for item in ordered], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbedderError(f"{self.url}: malformed embeddings answer ({exc})") from exc
        if matrix.shape != (expected, self.dim):
            raise EmbedderError(
                f"{self.url}: expected {expected} vectors of {self.dim} dims, got {matrix.shape}"
            )
        return matrix


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
