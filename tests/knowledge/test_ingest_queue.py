"""The fair ingest queue: one document per place at a time, an owner never holds every
worker, and owners and places take turns."""

from __future__ import annotations

import uuid

from pantheon.knowledge.ingest_queue import FairQueue, Job

ALICE, BOB = uuid.uuid4(), uuid.uuid4()


def _job(owner: uuid.UUID, place: str) -> Job:
    return Job(uuid.uuid4(), owner, place)


def test_one_document_per_place_in_upload_order() -> None:
    queue = FairQueue(owner_cap=5)
    first, second = _job(ALICE, "room:a"), _job(ALICE, "room:a")
    queue.put(first)
    queue.put(second)
    queue.put(first)  # submitted twice: queued once
    assert len(queue) == 2
    assert queue.take() == first
    assert queue.take() is None  # the place is busy
    queue.done(first)
    assert queue.take() == second


def test_an_owner_keeps_a_worker_free_for_others() -> None:
    queue = FairQueue(owner_cap=2)
    alice = [_job(ALICE, f"room:{n}") for n in range(3)]
    for job in alice:
        queue.put(job)
    assert queue.take() == alice[0]
    assert queue.take() == alice[1]
    assert queue.take() is None  # alice is at her cap, her third room waits
    bob = _job(BOB, "room:bob")
    queue.put(bob)
    assert queue.take() == bob
    queue.done(alice[0])
    assert queue.take() == alice[2]


def test_owners_and_places_take_turns() -> None:
    queue = FairQueue(owner_cap=1)
    alice = [_job(ALICE, "room:a1"), _job(ALICE, "room:a1"), _job(ALICE, "room:a2")]
    bob = [_job(BOB, "room:b"), _job(BOB, "room:b")]
    for job in [*alice, *bob]:
        queue.put(job)
    order: list[Job] = []
    while (taken := queue.take()) is not None:
        order.append(taken)
        queue.done(taken)
    # alice and bob alternate; alice's two rooms alternate too
    assert order == [alice[0], bob[0], alice[2], bob[1], alice[1]]


def test_discard_drops_a_waiting_document() -> None:
    queue = FairQueue(owner_cap=1)
    job = _job(ALICE, "room:a")
    queue.put(job)
    assert queue.discard(job.document_id)
    assert not queue.discard(job.document_id)
    assert queue.take() is None
    assert len(queue) == 0
