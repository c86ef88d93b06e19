"""A response's status never goes backwards: once a POST, a stream or a cancel said how it
ended, every GET and cancel says so too, however slowly the record is read.

The snapshot of a running response stops reading once its events pause for a moment
(``CAUGHT_UP_S``). It used to apply that pause to a recorded turn too, so a machine that
took longer than the pause to read the event log answered ``in_progress`` for a response
already ``completed`` or ``cancelled`` (1 run in 15-20 under load). A pause of 0 is that
slow machine, every time."""

from __future__ import annotations

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent


@pytest.fixture
def slow_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """No read of the next event is ever faster than the snapshot's pause."""
    monkeypatch.setattr("pantheon.protocols.openai.responses.service.CAUGHT_UP_S", 0.0)


@pytest.mark.usefixtures("slow_reads")
async def test_a_get_after_the_post_said_completed_says_completed(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    await create_agent(client, "solo")
    answer = await oai.responses.create(model="agent-solo", input="hello")
    assert answer.status == "completed"
    again = await oai.responses.retrieve(answer.id)
    assert again.status == "completed"
    assert again.output_text == answer.output_text == "solo: hello"


@pytest.mark.usefixtures("slow_reads")
async def test_a_cancel_and_the_get_after_it_say_cancelled(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("slow " * 400, agent="solo", chunk_delay_s=0.01)
    await create_agent(client, "solo")
    queued = await oai.responses.create(model="agent-solo", input="go", background=True)
    running = await oai.responses.retrieve(queued.id)
    assert running.status == "in_progress"  # still running: the truth, not a step back
    cancelled = await oai.responses.cancel(queued.id)
    assert cancelled.status == "cancelled"
    assert cancelled.incomplete_details is not None
    final = await oai.responses.retrieve(queued.id)
    assert final.status == "cancelled"
    assert final.output_text == cancelled.output_text
