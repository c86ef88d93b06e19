"""The embedder contract: passages and queries in, L2-normalised float32 vectors out.

``ident`` is recorded on every chunk (with ``dim``): vectors are only ever compared with
vectors of the same ident, and ``pantheon knowledge reindex`` re-embeds the others.
Implementations never block the event loop: CPU work goes to a worker thread, HTTP is async.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class EmbedderError(Exception):
    """Embedding failed (upstream down, bad answer, missing package); the message says why."""


class Embedder(Protocol):
    ident: str
    dim: int

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """One row per text, shape ``(len(texts), dim)``, each row of norm 1 (or 0)."""
        ...

    async def embed_query(self, text: str) -> Vectors:
        """One vector of shape ``(dim,)`` for a search query."""
        ...


def normalise(matrix: Vectors) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    result: Vectors = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return result


def first_row(matrix: Vectors) -> Vectors:
    """Row 0 of a matrix (a single query's vector), typed as vectors."""
    row: Vectors = matrix[0]
    return row
