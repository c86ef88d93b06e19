"""Vectors as stored (float32 bytes) and exact cosine top-k in numpy.

Both databases keep embeddings as little-endian float32 blobs; stored vectors are already
unit length, so cosine similarity is one matrix-vector product. ``top_k`` is CPU work: the
search service runs it in a worker thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import numpy as np

from pantheon.knowledge.embedders.base import Vectors


def to_blob(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes], dim: int) -> Vectors:
    """Stack blobs into an ``(n, dim)`` matrix; a blob of the wrong size becomes zeros."""
    if all(len(blob) == 4 * dim for blob in blobs):
        joined = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim)
        return joined.astype(np.float32)
    matrix = np.zeros((len(blobs), dim), dtype=np.float32)
    for row, blob in enumerate(blobs):
        if len(blob) == 4 * dim:
            matrix[row] = np.frombuffer(blob, dtype="<f4")
    return matrix


def top_k(
    ids: Sequence[uuid.UUID], matrix: Vectors, query: Vectors, k: int
) -> list[tuple[uuid.UUID, float]]:
    """The ``k`` ids whose rows of ``matrix`` are most similar to ``query``, best first,
    with their cosine (rows and query are unit length)."""
    if not ids or k <= 0:
        return []
    scores = matrix @ query.astype(np.float32)
    k = min(k, len(ids))
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(ids[i], float(scores[i])) for i in best]
