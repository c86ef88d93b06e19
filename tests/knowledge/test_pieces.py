"""The pure pieces: chunking, query escaping, rank fusion, vectors, the hashing embedder."""

from __future__ import annotations

import itertools
import uuid

import numpy as np

from pantheon.knowledge.chunking import chunk_sections
from pantheon.knowledge.embedders.hashing import HashingEmbedder
from pantheon.knowledge.keyword import MAX_TERMS, fts5_match, terms
from pantheon.knowledge.search import fuse
from pantheon.knowledge.sections import Section
from pantheon.knowledge.vectors import from_blobs, to_blob, top_k

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank. "


def test_chunks_follow_sections_and_keep_pages_and_positions() -> None:
    sections = [
        Section("Short first page.", page=1),
        Section("\n\n".join([SENTENCE * 3] * 6), page=2, heading="Rivers"),
    ]
    chunks = chunk_sections(sections, size=800, overlap=120)
    assert chunks[0].text == "Short first page."
    assert chunks[0].page == 1
    assert [c.position for c in chunks] == list(range(len(chunks)))
    later = chunks[1:]
    assert len(later) >= 2
    assert all(c.page == 2 for c in later)
    assert all(c.text.startswith("Rivers\n") for c in later)
    assert all(len(c.text) <= 800 for c in chunks)


def test_consecutive_chunks_overlap() -> None:
    words = " ".join(f"w{i}" for i in range(2000))
    chunks = chunk_sections([Section(words)], size=400, overlap=80)
    for before, after in itertools.pairwise(chunks):
        assert after.text.split()[0] in before.text.split()[-20:]
        assert len(after.text) <= 400


def test_one_huge_word_is_cut_not_lost() -> None:
    chunks = chunk_sections([Section("x" * 2500)], size=500, overlap=0)
    assert "".join(c.text for c in chunks) == "x" * 2500


def test_query_terms_cannot_carry_fts5_syntax() -> None:
    assert terms('NEAR("x" b*) -c: ^d') == ["near", "x", "b", "c", "d"]
    assert terms("What is the tide?") == ["tide"]
    assert terms("the of and") == ["the", "of", "and"]
    assert fts5_match(['say"hi']) == '"say""hi"'
    assert terms("!!! ???") == []
    assert len(terms(" ".join(f"t{i}" for i in range(100)))) == MAX_TERMS


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    a, b, c = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    fused = fuse([[a, b, c], [b, c]])
    assert [ident for ident, _ in fused] == [b, c, a]
    assert fused[0][1] == 1 / 62 + 1 / 61


def test_top_k_is_exact_cosine_over_blobs() -> None:
    vectors = np.eye(4, dtype=np.float32)
    ids = [uuid.uuid4() for _ in range(4)]
    query = np.array([0.1, 0.9, 0.3, 0.0], dtype=np.float32)
    matrix = from_blobs([to_blob(v) for v in vectors], 4)
    assert np.array_equal(matrix, vectors)
    best = top_k(ids, matrix, query, 2)
    assert [ident for ident, _ in best] == [ids[1], ids[2]]
    assert from_blobs([b"short", to_blob(vectors[0])], 4).tolist()[0] == [0.0, 0.0, 0.0, 0.0]
    assert top_k([], matrix[:0], query, 5) == []


async def test_hashing_embedder_is_deterministic_and_similarity_aware() -> None:
    embedder = HashingEmbedder(dim=384)
    first = await embedder.embed_passages(["volcanic eruptions", "baking bread"])
    again = HashingEmbedder(dim=384).embed_sync(["volcanic eruptions", "baking bread"])
    assert np.array_equal(first, again)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0)
    query = await embedder.embed_query("volcano eruption")
    assert float(first[0] @ query) > float(first[1] @ query)
    assert embedder.ident == "hashing:char34-v1/384"


def test_text_that_cannot_be_stored_is_replaced_in_chunks() -> None:
    # PDF extraction can yield NUL; PostgreSQL text columns refuse it (pantheon.text).
    (draft,) = chunk_sections([Section("page \x00 text \ud800 end", page=3)], 800, 100)
    assert draft.text == "page \ufffd text \ufffd end"
    assert draft.page == 3
