"""A deterministic, dependency-free embedder: hashed character n-grams (the "hashing trick").

Each word is padded (``_word_``) and cut into character 3- and 4-grams; every n-gram adds
+1 or -1 (from its hash) to one of ``dim`` buckets (blake2b, so the same text gives the same
vector in every process); rows are L2-normalised. Texts sharing words and word pieces get
similar vectors. It knows no meaning, so it is weaker than a trained model (see
docs/benchmarks.md), but it is real, fast, offline and stable: tests and CI use it.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Sequence

import numpy as np

from pantheon.knowledge.embedders.base import Vectors, first_row, normalise

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Hashed character n-grams into ``dim`` buckets; ``ident`` names the scheme."""

    def __init__(self, dim: int = 384, name: str = "hashing") -> None:
        self.dim = dim
        self.ident = f"{name}:char34-v1/{dim}"

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return await asyncio.to_thread(self.embed_sync, texts)

    async def embed_query(self, text: str) -> Vectors:
        return first_row(await asyncio.to_thread(self.embed_sync, [text]))

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for gram in _grams(text):
                digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                matrix[row, value % self.dim] += 1.0 if value >> 63 else -1.0
        return normalise(matrix)


def _grams(text: str) -> list[str]:
    grams: list[str] = []
    for word in _WORD.findall(text.lower()):
        padded = f"_{word}_"
        for n in (3, 4):
            grams.extend(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
    return grams
