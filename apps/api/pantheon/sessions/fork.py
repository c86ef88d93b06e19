"""Fork a session at one of its finished turns: a new session in the same room or on the
same agent whose history is the parent's up to that turn, by reference (docs/adr/0024)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable

from sqlalchemy import and_, func, or_, select

from pantheon.db.base import utcnow
from pantheon.db.models import ChatSession, Turn
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.sessions.lineage import Lineage, segments
from pantheon.sessions.repository import SessionRepository, SessionRow
from pantheon.sessions.schemas import SessionRead
from pantheon.sessions.service import session_read

TITLE_LENGTH = 200  # the column's width
# The session a running turn belongs to, if ``turn_id`` is running for the caller.
RunningIn = Callable[[str], Awaitable[str | None]]
# Statuses a turn can be forked at: every ended one except a turn still waiting for a
# person, whose continuation would belong to the parent (fork at that continuation).
_PAUSED = "awaiting_approval"


# A title fork_title made: a fork of a fork is named after the first one's source.
_FORK_TITLE = re.compile(r"Fork of (.+) at turn \d+", re.DOTALL)


def fork_title(title: str, position: int) -> str:
    """The title that says a session is a fork of one titled ``title`` at its turn number
    ``position`` (counted from the first turn of its history, inherited ones included)."""
    made = _FORK_TITLE.fullmatch(title)
    source = (made.group(1) if made else title) or "a session"
    suffix = f" at turn {position}"
    room = TITLE_LENGTH - len("Fork of ") - len(suffix)
    source = source if len(source) <= room else source[: room - 1] + "…"
    return f"Fork of {source}{suffix}"


async def fork_session(
    repo: SessionRepository,
    owner_id: uuid.UUID,
    session_id: str,
    turn_id: uuid.UUID,
    running_in: RunningIn,
) -> SessionRead:
    """The new fork of ``session_id`` at ``turn_id``; no turn runs and nothing is copied.

    404 unknown session or turn (another user's included), 422 a turn of another
    session, 409 a turn still running or waiting for approval."""
    parent = await repo.get(owner_id, session_id)
    if parent is None:
        raise not_found("session", session_id)
    turn = await repo.session.get(Turn, turn_id)
    if turn is None:
        await _refuse_running(parent, turn_id, running_in)
        raise not_found("turn", turn_id)
    segment = next(
        (s for s in await segments(repo.session, Lineage.of(parent)) if s.holds(turn)), None
    )
    if segment is None:
        if await repo.get(owner_id, turn.session_id) is None:
            raise not_found("turn", turn_id)
        raise Unprocessable(f"turn {turn_id} is not in the history of session {parent.id}")
    if turn.status == _PAUSED:
        raise Conflict(f"turn {turn_id} is awaiting approval; fork at the turn that continues it")
    title = session_read(await repo.figures(parent)).title
    row = ChatSession(
        owner_id=owner_id,
        room_id=parent.room_id,
        agent_id=parent.agent_id,
        title=fork_title(title, await _position(repo, parent, turn)),
        created_at=utcnow(),
        parent_id=segment.session_id,
        fork_turn_id=turn.id,
    )
    await _inherit_summary(repo, row, segment.session_id, turn)
    repo.add(row)
    await repo.session.flush()
    return session_read(SessionRow(row, row.created_at, None, 0))


async def _position(repo: SessionRepository, chat: ChatSession, turn: Turn) -> int:
    """``turn``'s number in ``chat``'s history (1 for its first turn, inherited included)."""
    up_to = or_(
        Turn.created_at < turn.created_at,
        and_(Turn.created_at == turn.created_at, Turn.id <= turn.id),
    )
    query = select(func.count()).select_from(Turn).where(Lineage.of(chat).turns(), up_to)
    return int(await repo.session.scalar(query) or 0)


async def _refuse_running(parent: ChatSession, turn_id: uuid.UUID, running_in: RunningIn) -> None:
    session = await running_in(str(turn_id))
    if session is None:
        return
    if session != str(parent.id):
        raise Unprocessable(f"turn {turn_id} is not in the history of session {parent.id}")
    raise Conflict(f"turn {turn_id} is still running; fork once it has finished")


async def _inherit_summary(
    repo: SessionRepository, row: ChatSession, source_id: uuid.UUID, fork_turn: Turn
) -> None:
    """Give the fork its source's summary when that covers nothing after the fork turn
    (turn time orders a lineage, so an earlier summarised turn is in the fork's history)."""
    source = await repo.session.get(ChatSession, source_id)
    if source is None or source.summary is None or source.summary_through_turn_id is None:
        return
    through = await repo.session.get(Turn, source.summary_through_turn_id)
    if through is None or (through.created_at, through.id) > (fork_turn.created_at, fork_turn.id):
        return
    row.summary = source.summary
    row.summary_through_turn_id = source.summary_through_turn_id
    row.summary_through_at = source.summary_through_at
    row.summary_messages = source.summary_messages
    row.summary_updated_at = source.summary_updated_at
