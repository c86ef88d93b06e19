"""The agent card is cacheable by its caller and revalidated by its ETag: 304 while the
room is unchanged, a new ETag (and the new card) once it changes."""

from __future__ import annotations

import httpx

from tests.factories import create_room


async def test_the_card_is_cached_privately_and_revalidated(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha"])
    url = f"/a2a/rooms/{room['id']}/.well-known/agent-card.json"
    first = await client.get(url)
    assert first.status_code == 200, first.text
    cache = {part.strip() for part in first.headers["Cache-Control"].split(",")}
    assert "private" in cache
    assert any(part.startswith("max-age=") and int(part[8:]) > 0 for part in cache), cache
    tag = first.headers["ETag"]
    assert tag.startswith('"')
    assert tag.endswith('"')
    assert (await client.get(url)).headers["ETag"] == tag  # the same card, the same tag

    for given in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        unchanged = await client.get(url, headers={"If-None-Match": given})
        assert unchanged.status_code == 304, given
        assert unchanged.content == b""
        assert unchanged.headers["ETag"] == tag
        assert "private" in unchanged.headers["Cache-Control"]
    stale = await client.get(url, headers={"If-None-Match": '"something-else"'})
    assert (stale.status_code, stale.json()["name"]) == (200, "Room")

    renamed = await client.patch(f"/v1/rooms/{room['id']}", json={"name": "Renamed"})
    assert renamed.status_code == 200, renamed.text
    changed = await client.get(url, headers={"If-None-Match": tag})
    assert changed.status_code == 200
    assert changed.json()["name"] == "Renamed"
    assert changed.headers["ETag"] != tag
