"""Evals against the demo room and the scripted model: it answers the example dataset's
questions from a table, the analyst calls the calculator, and the judge grades by
whether the answer names Paris. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[2] / "apps/api/pantheon/evals/examples/demo.jsonl"
ANSWERS = {
    "capital of France": "The capital of France is Paris.",
    "Red Planet": "Mars is the Red Planet.",
    "leap year": "A leap year has 366 days.",
    "water boil": "Water boils at 100 degrees Celsius at sea level.",
    "largest ocean": "The Pacific Ocean is the largest.",
    "hexagon": "A hexagon has six sides.",
    "photosynthesis": "Plants take in carbon dioxide (CO2).",
    "Romeo and Juliet": "William Shakespeare wrote it.",
    "blue and yellow": "Blue and yellow make green.",
    "Eiffel Tower": '{"city": "Paris", "country": "France"}',
}


def answer(request: LLMRequest) -> str | ScriptedReply:
    """The scripted model's reply to any agent, specialist or synthesis call."""
    text = " ".join(m.content for m in request.messages)
    if "17 * 23" in text:
        if request.agent_key == "analyst" and not any(m.role == "tool" for m in request.messages):
            return ScriptedReply(tool_calls=(tool_call("calculator", {"expression": "17 * 23"}),))
        worked_out = "391" in text  # a calculator result, or a specialist's answer with it
        return "17 * 23 = 391." if worked_out else "About 400."
    if "What is my name?" in text:
        return "Your name is Ada." if "my name is Ada" in text else "I do not know your name."
    for key, reply in ANSWERS.items():
        if key in text:
            return reply
    return "I do not know."


def verdict(request: LLMRequest) -> str:
    graded = request.messages[-1].content.split("Answer:", 1)[-1]
    return (
        '{"score": 9, "reason": "names Paris"}'
        if "Paris" in graded
        else '{"score": 2, "reason": "no"}'
    )


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"seed_demo": True})


@pytest.fixture
def scripted(scripted: ScriptedProvider) -> ScriptedProvider:
    for purpose in ("chat", "specialist", "synthesis"):
        scripted.script(answer, purpose=purpose)
    scripted.script('{"agents": ["analyst", "writer"]}', purpose="route")
    scripted.script(verdict, agent="judge")
    return scripted


async def demo_room(client: httpx.AsyncClient) -> str:
    rooms = (await client.get("/v1/rooms")).json()["items"]
    room_id: str = next(room["id"] for room in rooms if room["name"] == "Demo room")
    return room_id


async def example_dataset(client: httpx.AsyncClient) -> str:
    body = {"name": "demo", "jsonl": EXAMPLE.read_text()}
    response = await client.post("/v1/evals/datasets", json=body)
    assert response.status_code == 201, response.text
    dataset_id: str = response.json()["id"]
    return dataset_id


async def start_run(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/evals", json=body)
    assert response.status_code == 202, response.text
    run: dict[str, Any] = response.json()
    return run


async def finished(
    client: httpx.AsyncClient, run_id: str, attempts: int = 3000, every_s: float = 0.01
) -> dict[str, Any]:
    """The run once it ended (polled; fails after ``attempts`` polls)."""
    for _ in range(attempts):
        run: dict[str, Any] = (await client.get(f"/v1/evals/{run_id}")).json()
        if run["status"] != "running":
            return run
        await asyncio.sleep(every_s)
    raise AssertionError(f"eval run {run_id} still running")
