"""Knowledge routes: documents of a room or an agent, and search over them."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import (
    APIRouter,
    BackgroundTasks,
    Depends,
    Query,
    Response,
    UploadFile,
    status,
)

from pantheon.deps import ServicesDep, UoWDep, UserIdDep
from pantheon.errors import ErrorBody, error_responses
from pantheon.knowledge.formats import ACCEPTED
from pantheon.knowledge.ingest import IngestWorker
from pantheon.knowledge.ingest_queue import Job
from pantheon.knowledge.repository import ChunkRepository, DocumentRepository
from pantheon.knowledge.schemas import DocumentRead, SearchResults
from pantheon.knowledge.search import KnowledgeSearch
from pantheon.knowledge.service import DocumentService, PlaceKind
from pantheon.schemas import Page, PageDep, PageParams

router = APIRouter(tags=["knowledge"])
UPLOAD_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": DocumentRead, "description": "the same bytes are already in this place"},
    413: {"model": ErrorBody, "description": "file over PANTHEON_KNOWLEDGE__MAX_BYTES"},
    415: {"model": ErrorBody, "description": f"not an accepted type: {ACCEPTED}"},
}


def _worker(services: ServicesDep) -> IngestWorker:
    return services.knowledge.ingest


def _service(uow: UoWDep, services: ServicesDep) -> DocumentService:
    store = services.knowledge.ingest.store
    return DocumentService(DocumentRepository(uow), store, services.settings.knowledge.max_bytes)


def _search(uow: UoWDep, services: ServicesDep) -> KnowledgeSearch:
    known, dialect = services.knowledge, services.db.dialect
    repository = ChunkRepository(uow)
    return KnowledgeSearch(repository, known.embedder, dialect, known.vector_cache, known.pgvector)


ServiceDep = Annotated[DocumentService, Depends(_service)]
SearchDep = Annotated[KnowledgeSearch, Depends(_search)]
WorkerDep = Annotated[IngestWorker, Depends(_worker)]


async def _upload(
    kind: PlaceKind, ident: str, file: UploadFile, service: DocumentService, user: uuid.UUID,
    response: Response, tasks: BackgroundTasks, worker: IngestWorker,
) -> DocumentRead:  # fmt: skip
    place = await service.place(user, kind, ident, "edit")
    row, created = await service.upload(user, place, file.filename, file.file)
    if created:
        # A background task runs after the response, so after the unit of work committed.
        tasks.add_task(worker.submit, Job.of(row))
    else:
        response.status_code = status.HTTP_200_OK
    return DocumentRead.of(row)


@router.post(
    "/v1/rooms/{room_id}/documents",
    status_code=status.HTTP_202_ACCEPTED,
    responses=UPLOAD_RESPONSES,
)
async def upload_room_document(
    room_id: str, file: UploadFile, service: ServiceDep, user: UserIdDep,
    response: Response, tasks: BackgroundTasks, worker: WorkerDep,
) -> DocumentRead:  # fmt: skip
    """Upload a file (multipart ``file``) shared by the room's agents; ingest runs in the
    background (202); the same bytes again answer 200 with the existing document."""
    return await _upload("room", room_id, file, service, user, response, tasks, worker)


@router.post(
    "/v1/agents/{agent_id}/documents",
    status_code=status.HTTP_202_ACCEPTED,
    responses=UPLOAD_RESPONSES,
)
async def upload_agent_document(
    agent_id: str, file: UploadFile, service: ServiceDep, user: UserIdDep,
    response: Response, tasks: BackgroundTasks, worker: WorkerDep,
) -> DocumentRead:  # fmt: skip
    """Upload a file (multipart ``file``) that travels with the agent; ingest runs in the
    background (202); the same bytes again answer 200 with the existing document."""
    return await _upload("agent", agent_id, file, service, user, response, tasks, worker)


async def _list(
    kind: PlaceKind, ident: str, service: DocumentService, user: uuid.UUID, page: PageParams
) -> Page[DocumentRead]:
    place = await service.place(user, kind, ident)
    rows, total = await service.repo.list_page(place.key, limit=page.limit, offset=page.offset)
    items = [DocumentRead.of(row) for row in rows]
    return Page[DocumentRead](items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/v1/rooms/{room_id}/documents")
async def list_room_documents(
    room_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[DocumentRead]:
    """List the room's documents, oldest first."""
    return await _list("room", room_id, service, user, page)


@router.get("/v1/agents/{agent_id}/documents")
async def list_agent_documents(
    agent_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[DocumentRead]:
    """List the agent's documents, oldest first."""
    return await _list("agent", agent_id, service, user, page)


@router.get("/v1/documents/{document_id}")
async def get_document(document_id: str, service: ServiceDep, user: UserIdDep) -> DocumentRead:
    """Read one document: its status, chunk count and, when failed, the reason."""
    return DocumentRead.of(await service.get(user, document_id))


@router.delete("/v1/documents/{document_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_document(
    document_id: str, service: ServiceDep, user: UserIdDep, tasks: BackgroundTasks,
    worker: WorkerDep,
) -> Response:  # fmt: skip
    """Delete a document, its chunks and its stored file; a running ingest of it stops."""
    deleted = await service.delete(user, document_id)
    # After the response, so after the commit: the ingest sees the row gone either way.
    tasks.add_task(worker.cancel, deleted)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


QueryText = Annotated[str, Query(min_length=1, max_length=1000, description="What to look for")]
Limit = Annotated[int, Query(ge=1, le=50, description="Passages to return")]


@router.get("/v1/rooms/{room_id}/knowledge/search")
async def search_room(
    room_id: str, q: QueryText, service: ServiceDep, search: SearchDep, user: UserIdDep,
    limit: Limit = 5,
) -> SearchResults:  # fmt: skip
    """Hybrid (keyword + vector) search over the room's ready documents."""
    place = await service.place(user, "room", room_id)
    return SearchResults(items=await search.search([place.key], q, limit))


@router.get("/v1/agents/{agent_id}/knowledge/search")
async def search_agent(
    agent_id: str, q: QueryText, service: ServiceDep, search: SearchDep, user: UserIdDep,
    limit: Limit = 5,
) -> SearchResults:  # fmt: skip
    """Hybrid (keyword + vector) search over the agent's ready documents."""
    place = await service.place(user, "agent", agent_id)
    return SearchResults(items=await search.search([place.key], q, limit))


KNOWLEDGE_ERRORS = error_responses(401, 404, 413, 422)
