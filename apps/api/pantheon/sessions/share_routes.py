"""Share link routes (docs/adr/0042): the owner's (authenticated like every session route)
and the public snapshot, which needs no key and no cookie."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from pantheon.deps import UoWDep, UserIdDep
from pantheon.schemas import PageDep
from pantheon.sessions.shared import SharedSession, shared_session
from pantheon.sessions.shares import ShareLinkRead, ShareLinks

router = APIRouter(tags=["sessions"])
public_router = APIRouter(tags=["share links"])

TokenPath = Annotated[str, Path(description="The token of a share link (``/share/<token>``)")]
# A revoked link must not live on in a cache, and a snapshot is nobody's search result.
PUBLIC_HEADERS = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow"}


@router.post("/v1/sessions/{session_id}/share", status_code=status.HTTP_201_CREATED)
async def share_session(session_id: str, uow: UoWDep, user: UserIdDep) -> ShareLinkRead:
    """A read-only link to the session as it is now, for anyone who has it; it replaces the
    session's previous link. The URL is in this answer only."""
    return await ShareLinks(uow).share(user, session_id)


@router.get("/v1/sessions/{session_id}/share")
async def get_share(session_id: str, uow: UoWDep, user: UserIdDep) -> ShareLinkRead:
    """Whether the session has a live link, and since when (``url`` is null: only the
    token's hash is stored); 404 when it has none."""
    return await ShareLinks(uow).current(user, session_id)


@router.delete("/v1/sessions/{session_id}/share", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_share(session_id: str, uow: UoWDep, user: UserIdDep) -> Response:
    """Revoke the session's link: it answers 404 from now on."""
    await ShareLinks(uow).revoke(user, session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@public_router.get("/v1/shared/{token}")
async def read_shared(
    token: TokenPath, uow: UoWDep, page: PageDep, response: Response
) -> SharedSession:
    """The snapshot a share link shows, a page of turns at a time: no sign-in needed.
    404 when the link is unknown, revoked, replaced, or its session or owner is gone."""
    response.headers.update(PUBLIC_HEADERS)
    return await shared_session(uow, token, page)
