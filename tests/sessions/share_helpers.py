"""Share link tests' pieces: a standalone session with agent Alpha, turns in it, links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent


@dataclass
class Chat:
    session_id: str
    agent_id: str


async def open_chat(client: httpx.AsyncClient, title: str = "Trip plans") -> Chat:
    """A standalone session with a new agent ``alpha`` (shown as Alpha)."""
    agent = await create_agent(client, "alpha")
    response = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": title})
    assert response.status_code == 201, response.text
    return Chat(response.json()["id"], agent["id"])


async def say(
    client: httpx.AsyncClient, scripted: ScriptedProvider, chat: Chat, message: str, answer: str
) -> dict[str, Any]:
    """One finished turn: ``message``, and Alpha answers ``answer``."""
    scripted.script(answer, agent="alpha", times=1)
    response = await client.post(f"/v1/sessions/{chat.session_id}/turns", json={"message": message})
    assert response.status_code == 201, response.text
    turn: dict[str, Any] = response.json()
    return turn


async def share(client: httpx.AsyncClient, chat: Chat | str) -> str:
    """A new link to the session (a ``Chat`` or a session id); its token."""
    session_id = chat if isinstance(chat, str) else chat.session_id
    response = await client.post(f"/v1/sessions/{session_id}/share")
    assert response.status_code == 201, response.text
    url: str = response.json()["url"]
    assert url.startswith("/share/")
    return url.removeprefix("/share/")


async def snapshot(anon: httpx.AsyncClient, token: str, **params: int) -> dict[str, Any]:
    """What the link shows to someone signed out."""
    response = await anon.get(f"/v1/shared/{token}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def conversation(body: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """A snapshot's turns as (message, [(speaker, content)])."""
    return [
        (turn["message"], [(a["speaker"], a["content"]) for a in turn["answers"]])
        for turn in body["turns"]
    ]


async def assert_dead(anon: httpx.AsyncClient, token: str) -> None:
    """The link answers 404 on both of its routes: JSON for the API, a page for people."""
    api = await anon.get(f"/v1/shared/{token}")
    assert api.status_code == 404, api.text
    assert api.json()["code"] == "not_found"
    assert "share link not found" in api.json()["detail"]
    assert token not in api.text
    page = await anon.get(f"/share/{token}")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "Link not found" in page.text
    assert "<script" not in page.text
