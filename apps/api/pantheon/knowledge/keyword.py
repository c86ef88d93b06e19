"""Keyword search on each database, with the user's words escaped into plain terms.

SQLite: the FTS5 table ``chunks_fts`` (migration 0004), ranked by bm25. PostgreSQL: the
stored ``text_tsv`` column (``to_tsvector('simple', text)``) with its GIN index, ranked by
``ts_rank``. Both are language-neutral (no stemming): the vector ranker covers paraphrase.
Query text never reaches either query language as syntax: it is split into word tokens,
each token is quoted (FTS5) or passed through ``plainto_tsquery`` (PostgreSQL), and the
terms are ORed, so quotes, ``*``, ``NEAR``, ``-`` or ``:`` in a question are just
characters. The most
common function words of English, German, French and Spanish are dropped from queries
(unless nothing else is left): ORed, they would match nearly every chunk. These rankings
only gather a pool that ``term_weights`` re-ranks with the searched places' own word
weights.
"""

from __future__ import annotations

import re
import uuid
from functools import reduce
from typing import Any

from sqlalchemy import ColumnElement, Select, func, literal_column, select, text

from pantheon.db.models import Chunk

# Objects created by raw DDL in 0004_knowledge (the FTS5 table and its shadow tables, the
# stored text_tsv column and its GIN index) and by 0006_pgvector / pgvector.detect (the
# embedding_vec column and its HNSW indexes): not mapped, so autogenerate and the drift
# test skip them.
UNMAPPED_PREFIXES = (
    "chunks_fts", "ix_chunks_text_fts", "text_tsv", "embedding_vec", "ix_chunks_embedding_hnsw"
)  # fmt: skip
MAX_TERMS = 32
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORD_TEXT = """
    a an and are as at be but by can could did do does for from had has have how i if in
    into is it its me my no not of on or our she so that the their them then there these they
    this to was we were what when where which who whom why will with would you your
    der die das und ist ein eine einen dem den des zu im mit von auf für wie was wer warum
    le la les un une des du de et est en que qui pour dans au aux ce comment
    el los las y es por con para qué cómo del al se"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def include_name(name: str | None, _type: str, _parents: object) -> bool:
    """Alembic ``include_name`` hook: False for the unmapped keyword-search objects."""
    return not (name or "").startswith(UNMAPPED_PREFIXES)


def terms(query: str) -> list[str]:
    """The word tokens of ``query``, lower-cased, deduplicated, at most ``MAX_TERMS``."""
    seen: dict[str, None] = {}
    for token in _WORD.findall(query.lower()):
        seen.setdefault(token, None)
    words = [word for word in seen if word not in STOPWORDS] or list(seen)
    return words[:MAX_TERMS]


def fts5_match(words: list[str]) -> str:
    """An FTS5 MATCH expression ORing each word as a quoted string (no operators survive)."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


def sqlite_ranked(words: list[str]) -> Select[uuid.UUID, str]:
    """Chunks (id, text) matching any word, best first (bm25: lower is better)."""
    fts = (
        text(
            "SELECT rowid AS rid, bm25(chunks_fts) AS rank FROM chunks_fts "
            "WHERE chunks_fts MATCH :match"
        )
        .bindparams(match=fts5_match(words))
        .columns(literal_column("rid"), literal_column("rank"))
    )
    hits = fts.subquery("hits")
    rowid: ColumnElement[Any] = literal_column("chunks.rowid")
    return select(Chunk.id, Chunk.text).join(hits, hits.c.rid == rowid).order_by(hits.c.rank)


def postgres_ranked(words: list[str]) -> Select[uuid.UUID, str]:
    """Chunks (id, text) matching any word, best ``ts_rank`` first."""
    vector: ColumnElement[Any] = literal_column("chunks.text_tsv")
    queries = [func.plainto_tsquery(literal_column("'simple'"), word) for word in words]
    tsquery: ColumnElement[Any] = reduce(lambda a, b: a.op("||")(b), queries)
    return (
        select(Chunk.id, Chunk.text)
        .where(vector.op("@@")(tsquery))
        .order_by(func.ts_rank(vector, tsquery).desc(), Chunk.id)
    )
