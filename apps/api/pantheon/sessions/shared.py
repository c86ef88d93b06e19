"""What a share link shows, to anyone holding it, signed in or not (docs/adr/0042).

Only the conversation as the page shows it: the title, when it was shared, and per turn
the person's message and each visible answer (its speaker's name, its text, its status).
No ids of any object, no keys, no usage or cost, no tool calls, no model names: a link is
meant to be pasted anywhere. Continuation turns show the person's approval decisions as
the page does (tool name and reason, no call ids).

A link works while its session, the session's room or agent, and its owner's account are
live: deleting any of them, or disabling the owner, answers 404, as does a revoked or
replaced link. The lookup is by the token's SHA-256 (an indexed equality on a hash, so its
timing tells nothing about the token).
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field
from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, Message, Turn, User
from pantheon.db.repository import Repository
from pantheon.db.share_models import SessionShare
from pantheon.engine.values import MessageStatus, SpeakerRole
from pantheon.errors import NotFound
from pantheon.schemas import PageParams
from pantheon.secret_tokens import token_digest
from pantheon.sessions.lineage import Lineage
from pantheon.sessions.repository import SessionRepository

SPEAKER_ROLES: tuple[SpeakerRole, ...] = get_args(SpeakerRole)
# A continuation's message (engine/approvals.py decisions_note): "Approved tool (call_id)".
_DECISION = re.compile(r"^(Approved|Rejected) (\S+) \([^()\s]+\)(:.*)?$")


class SharedAnswer(BaseModel):
    speaker: str = Field(description="The agent's name, or Manager")
    role: SpeakerRole
    content: str = Field(description="The answer's text (Markdown, as the page renders it)")
    status: MessageStatus = Field(description="ok, or how the answer ended early")


class SharedTurn(BaseModel):
    kind: Literal["message", "decisions"] = Field(
        description="message: what the person wrote; decisions: the approval decisions a "
        "paused turn continued with"
    )
    message: str
    answers: list[SharedAnswer]


class SharedSession(BaseModel):
    title: str
    shared_at: datetime
    turns: list[SharedTurn] = Field(description="This page of the snapshot's turns, oldest first")
    total: int = Field(description="How many turns the snapshot holds")
    limit: int
    offset: int


class LinkNotFound(NotFound):
    def __init__(self) -> None:
        super().__init__("share link not found (it may have been revoked or replaced)")


async def shared_session(db: AsyncSession, token: str, page: PageParams) -> SharedSession:
    """A page of the snapshot behind ``token``; 404 for anything but a live link."""
    share, chat = await live_share(db, token)
    turns, total = await _turns(db, chat, share, page)
    answers = await _answers(db, [t.id for t in turns])
    return SharedSession(
        title=share.title,
        shared_at=share.created_at,
        turns=[_turn(t, answers.get(t.id, [])) for t in turns],
        total=total,
        limit=page.limit,
        offset=page.offset,
    )


async def live_share(db: AsyncSession, token: str) -> tuple[SessionShare, ChatSession]:
    """The link behind ``token`` and its session, while the link, the session (and its
    room or agent) and its owner's account are live; else 404."""
    share = await db.get(SessionShare, token_digest(token))
    if share is None:
        raise LinkNotFound
    status = await db.scalar(select(User.status).where(User.id == share.owner_id))
    chat = await SessionRepository(db).get(share.owner_id, share.session_id)
    if status != "active" or chat is None:
        raise LinkNotFound
    return share, chat


async def _turns(
    db: AsyncSession, chat: ChatSession, share: SessionShare, page: PageParams
) -> tuple[list[Turn], int]:
    if share.through_at is None or share.through_turn_id is None:
        return [], 0
    through = or_(
        Turn.created_at < share.through_at,
        and_(Turn.created_at == share.through_at, Turn.id <= share.through_turn_id),
    )
    query = select(Turn).where(Lineage.of(chat).turns(), through).order_by(Turn.created_at, Turn.id)
    return await Repository(db).page(query, limit=page.limit, offset=page.offset)


async def _answers(
    db: AsyncSession, turn_ids: list[uuid.UUID]
) -> dict[uuid.UUID, list[SharedAnswer]]:
    if not turn_ids:
        return {}
    query = (
        select(Message)
        .where(
            Message.turn_id.in_(turn_ids),
            Message.visible.is_(True),
            Message.role.in_(SPEAKER_ROLES),
        )
        .order_by(Message.seq)
    )
    grouped: dict[uuid.UUID, list[SharedAnswer]] = {}
    for row in (await db.scalars(query)).all():
        answer = SharedAnswer.model_validate(
            {
                "speaker": row.agent_name or row.agent_key or "",
                "role": row.role,
                "content": row.content,
                "status": row.status,
            }
        )
        grouped.setdefault(row.turn_id, []).append(answer)
    return grouped


def _turn(turn: Turn, answers: list[SharedAnswer]) -> SharedTurn:
    if turn.continues_id is None:
        return SharedTurn(kind="message", message=turn.message, answers=answers)
    return SharedTurn(kind="decisions", message=readable_decisions(turn.message), answers=answers)


def readable_decisions(note: str) -> str:
    """A continuation's message without its call ids: "Approved refund: a reason" (the
    page's js/text/decisions.js reads it the same way); other lines unchanged."""
    return "\n".join(_DECISION.sub(r"\1 \2\3", line) for line in note.split("\n"))
