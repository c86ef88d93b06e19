"""The ``search_knowledge`` tool: an agent searches its own documents and its room's.

``make_search_knowledge(db, embedder)`` returns the plain typed async function the tool
registry turns into a tool (schema from the signature, description from the docstring;
the ``ToolScope`` parameter is injected, never shown to the model). The result is text the
model can quote and cite: numbered passages with file name and page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.agents.repository import AgentRepository
from pantheon.db.engine import Database
from pantheon.db.repository import as_uuid
from pantheon.db.uow import unit_of_work
from pantheon.engine.tooling import ToolError, ToolScope
from pantheon.knowledge.embedders.base import Embedder
from pantheon.knowledge.pgvector import PgVector
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.schemas import SearchHit
from pantheon.knowledge.search import KnowledgeSearch
from pantheon.knowledge.vector_cache import VectorCache
from pantheon.rooms.access import room_access
from pantheon.rooms.repository import RoomRepository

MAX_LIMIT = 10
MAX_QUERY_CHARS = 1000


async def scope_places(session: AsyncSession, scope: ToolScope) -> list[str]:
    """The places a speaking agent may search: its turn's room, if the turn's caller may
    see it (owned or shared), and the agent itself, if it is the caller's or in that room's
    roster (a shared room's viewer searches the owner's agents' documents through them).
    The snapshot already says so; this checks again, so a scope alone reaches nothing."""
    owner = as_uuid(scope.owner_id)
    if owner is None:
        raise ToolError("search_knowledge: the turn has no valid owner")
    found = None if not scope.room_id else await room_access(session, owner, scope.room_id)
    places = [] if found is None else [f"room:{found.room.id}"]
    agent = as_uuid(scope.agent_id)
    if agent is None:
        return places
    rooms = RoomRepository(session)
    if await AgentRepository(session).get(owner, agent) is not None or (
        found is not None and await rooms.member(found.room.id, agent) is not None
    ):
        places.append(f"agent:{agent}")
    return places


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """Numbered passages with their source, or a sentence saying nothing was found."""
    if not hits:
        return f"No passages found for {query!r} in this agent's or this room's documents."
    blocks = []
    for number, hit in enumerate(hits, start=1):
        where = hit.filename if hit.page is None else f"{hit.filename}, page {hit.page}"
        blocks.append(f"[{number}] {where}\n{hit.text}")
    return "\n\n".join(blocks)


def make_search_knowledge(
    db: Database,
    embedder: Embedder,
    cache: VectorCache | None = None,
    pgvector: PgVector | None = None,
) -> Callable[..., Awaitable[str]]:
    """The tool function, closed over the app's database, embedder, vector cache and
    pgvector index (the app's ``Services``)."""

    async def search_knowledge(query: str, limit: int = 5, *, scope: ToolScope) -> str:
        """Search the documents of this agent and of this room for passages about `query`.

        Returns up to `limit` (1-10) passages, each with its file name and page, to quote
        and cite in the answer.
        """
        query = query.strip()
        if not query:
            raise ToolError("search_knowledge: query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"search_knowledge: query is longer than {MAX_QUERY_CHARS} chars")
        limit = max(1, min(int(limit), MAX_LIMIT))
        async with unit_of_work(db, write=False) as session:
            places = await scope_places(session, scope)
            if not places:
                return format_hits(query, [])
            search = KnowledgeSearch(
                ChunkRepository(session), embedder, db.dialect, cache, pgvector
            )
            hits = await search.search(places, query, limit)
        return format_hits(query, hits)

    return search_knowledge
