"""A 200-turn session keeps answering within a small model's window, with a summary that
later turns use. The 200 turns are written straight into the database (running them
through HTTP would only make the test slow); the turns after them run for real."""

from __future__ import annotations

import itertools

from fastapi import FastAPI

from pantheon.db.engine import Database
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.tokens import estimate_messages
from pantheon.llm.types import LLMRequest
from tests.context.conftest import MAX_TOKENS, WINDOW, Tiny, seed_turns
from tests.sse_client import stream_turn

SEEDED = 200


async def test_a_200_turn_session_keeps_answering_within_a_small_window(
    tiny: Tiny, scripted: ScriptedProvider
) -> None:
    numbers = itertools.count(1)

    def summary(_request: LLMRequest) -> str:
        return f"Facts: {SEEDED} seeded questions were answered. SUMMARY-{next(numbers)}"

    scripted.script(summary, purpose="summary")
    session = await tiny.session(["alpha"])
    app: FastAPI = tiny.app
    db: Database = app.state.services.db
    await seed_turns(db, session, SEEDED, "alpha")
    covered: list[int] = []
    for n in range(3):
        events = [d for _, d in await stream_turn(tiny.http, session, {"message": f"now {n}?"})]
        assert events[-1]["type"] == "turn_completed"
        assert events[-1]["status"] == "completed"
        (fold,) = [e for e in events if e["type"] == "summary"]
        assert fold["ok"]
        assert fold["folded_messages"] > 0
        covered.append(fold["summary_messages"])
        prompt = scripted.calls(agent="alpha")[-1].request.messages
        assert estimate_messages(prompt) + MAX_TOKENS <= WINDOW
        assert fold["text"] in prompt[0].content  # the summary this turn wrote
        assert prompt[-1].content == f"now {n}?"
        text = "\n".join(m.content for m in prompt)
        assert f"seeded question {SEEDED - 1}" in text  # the newest history, in full
        assert "seeded question 0\n" not in text
    assert covered == sorted(covered)
    assert len(set(covered)) == 3  # every turn folded further
    # Only the newest turns.history_messages (200) unsummarised messages are read: the
    # first fold starts at the oldest of them, seeded turn 100.
    first = scripted.calls(purpose="summary")[0].request.messages[-1].content
    assert "seeded question 100\n" in first
    assert "seeded question 99\n" not in first
    shown = (await tiny.http.get(f"/v1/sessions/{session}")).json()
    assert shown["summary"]["messages"] == covered[-1]
    assert shown["summary"]["text"].endswith(f"SUMMARY-{len(scripted.calls(purpose='summary'))}")
    assert shown["turn_count"] == SEEDED + 3
