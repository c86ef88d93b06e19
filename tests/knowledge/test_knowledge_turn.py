"""The knowledge issue's promise end to end: a room's PDF and DOCX become ready, and an
agent with ``search_knowledge`` answers from them in a streamed turn, citing file and page."""

from __future__ import annotations

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.factories import create_agent
from tests.knowledge.files import docx_bytes, pdf_bytes
from tests.knowledge.helpers import ingested
from tests.sse_client import stream_turn


def librarian(request: LLMRequest) -> ScriptedReply:
    """Searches once, then answers with the first passage's citation."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"From the documents: {last.content[:300]}")
    query = {"query": "When does the lighthouse lamp get lit?", "limit": 3}
    return ScriptedReply("Searching.", (tool_call("search_knowledge", query),))


async def test_an_agent_answers_from_room_documents_citing_file_and_page(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = (await client.post("/v1/rooms", json={"name": "Library"})).json()
    place = f"rooms/{room['id']}"
    pdf = pdf_bytes(["Harbour rules and tides.", "The lighthouse lamp is lit at dusk daily."])
    await ingested(client, place, "keeper.pdf", pdf)
    await ingested(client, place, "notes.docx", docx_bytes([("Ferries", ["They leave at noon."])]))
    scripted.script(librarian, agent="lib")
    agent = await create_agent(client, "lib", tools=["search_knowledge"])
    added = await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent["id"]})
    assert added.status_code == 201, added.text
    session = await client.post(f"/v1/rooms/{room['id']}/sessions", json={"title": "t"})
    events = await stream_turn(client, session.json()["id"], {"message": "When is it lit?"})
    call = next(d for _, d in events if d["type"] == "tool_call")
    assert call["name"] == "search_knowledge"
    result = next(d for _, d in events if d["type"] == "tool_result")
    assert result["ok"] is True, result
    assert "keeper.pdf" in result["content"]
    assert "page 2" in result["content"].lower() or '"page": 2' in result["content"]
    answer = next(d for _, d in events if d["type"] == "agent_completed")["text"]
    assert "keeper.pdf" in answer
    assert events[-1][1]["status"] == "completed"
