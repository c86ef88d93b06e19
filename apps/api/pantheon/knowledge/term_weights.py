"""Keyword re-ranking with term weights of the searched place(s): BM25 over the pool.

Neither database weighs a query's words by how common they are *where the user searches*:
PostgreSQL's ``ts_rank`` has no inverse document frequency at all, and SQLite's FTS5
``bm25`` takes it from the whole table (every user's documents). So in a manual whose
name is on most pages, the title page and the blurbs, short and dense in that name, won
every question that named it. The database's ranking now only gathers a pool (up to
``POOL`` matching chunks of the places), and the pool is re-ranked here by BM25 (k1 1.2,
b 0.75) with each word's IDF from the places' own chunks: a word in most of them weighs
``ln(1 + (N - n + 0.5) / (n + 0.5))``, about 0.7 at half the chunks against 4-5 for a
word on a few pages. ``n`` is counted in the pool, which holds every matching chunk up to
``POOL``; past that a common word's ``n`` is undercounted (so it keeps a little more
weight), never the other way round. Tokens are the databases' own: letters and digits,
underscores split, lower case, diacritics folded (as FTS5's ``remove_diacritics``).
"""

from __future__ import annotations

import math
import re
import unicodedata
import uuid
from collections.abc import Sequence

POOL = 400
K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Word tokens as the keyword indexes see them (letters and digits, folded)."""
    lowered = text.lower()
    if lowered.isascii():  # nothing to fold: most chunks, at a fraction of the cost
        return _TOKEN.findall(lowered)
    folded = unicodedata.normalize("NFKD", lowered)
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _TOKEN.findall(plain)


def rerank(
    words: Sequence[str], pool: Sequence[tuple[uuid.UUID, str]], total: int
) -> list[uuid.UUID]:
    """The pool's ids by BM25 of ``words`` with IDF over ``total`` chunks, best first
    (ties keep the database's order). CPU work: call it in a worker thread."""
    query = list(dict.fromkeys(token for word in words for token in tokens(word)))
    if not pool:
        return []
    chunk_tokens = [tokens(text) for _, text in pool]
    lengths = [len(found) for found in chunk_tokens]
    # Only the query's tokens are counted (list.count runs in C): the rest never scores.
    frequencies = [[found.count(token) for token in query] for found in chunk_tokens]
    average = max(sum(lengths) / len(lengths), 1.0)
    total = max(total, len(pool))
    weights = []
    for column in range(len(query)):
        n = sum(1 for row in frequencies if row[column])
        weights.append(math.log(1 + (total - n + 0.5) / (n + 0.5)))
    scores = []
    for row, length in zip(frequencies, lengths, strict=True):
        norm = K1 * (1 - B + B * length / average)
        scores.append(
            sum(w * tf * (K1 + 1) / (tf + norm) for w, tf in zip(weights, row, strict=True) if tf)
        )
    order = sorted(range(len(pool)), key=lambda i: -scores[i])
    return [pool[i][0] for i in order]
