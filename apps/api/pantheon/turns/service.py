"""Turn use cases: start (or join) a turn, read it, follow its events, cancel it.

Holds no database connection while a turn runs: preflight uses one read-only unit, the
recorder one writing unit, and readers open their own short units.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.budgets.guard import LedgerGuard, hold_ttl_s
from pantheon.budgets.ledger import Limit
from pantheon.budgets.service import BudgetService
from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import Turn
from pantheon.db.uow import unit_of_work
from pantheon.engine.snapshot import ClientContext, TurnSnapshot
from pantheon.engine.spending import spends_money
from pantheon.engine.tooling import ToolRunner
from pantheon.errors import Conflict, NotFound, ServiceUnavailable, not_found
from pantheon.live.backend import LiveBackend, LiveView
from pantheon.live.meta import TurnMeta
from pantheon.live.records import replay_events
from pantheon.live.registry import LiveTurn
from pantheon.live.runner import TurnJob, execute_turn
from pantheon.live.streamed import StreamedEvent
from pantheon.llm.gateway import LLMGateway
from pantheon.observability.tracing import turn_trace
from pantheon.sessions.repository import SessionRepository
from pantheon.settings import Settings
from pantheon.turns.approvals import claim_decision, prepare_continuation, release_decision
from pantheon.turns.idempotency import ensure_same_request, request_hash
from pantheon.turns.preflight import prepare_turn
from pantheon.turns.replay.plan import prepare_replay, replay_session
from pantheon.turns.repository import TurnRepository
from pantheon.turns.retry import prepare_retry
from pantheon.turns.schemas import (
    ApprovalCreate,
    ReplayCreate,
    RetryCreate,
    TurnCreate,
    TurnDetail,
    TurnRead,
)
from pantheon.turns.views import turn_detail, turn_read

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StartedTurn:
    """A turn this request started or joined (``live``), or a finished one it refers to."""

    turn_id: str
    live: LiveView | None


@dataclass
class TurnService:
    db: Database
    gateway: LLMGateway
    settings: Settings
    registry: LiveBackend
    tools: ToolRunner

    async def start(
        self,
        owner_id: uuid.UUID,
        session_id: str,
        data: TurnCreate,
        key: str | None,
        context: ClientContext | None = None,
    ) -> StartedTurn:
        """Validate, then start a turn, or join the one this Idempotency-Key refers to.

        ``context``: history and instructions a client supplies itself (the facade)."""
        self.registry.ensure_accepting()  # fail fast, before any database read
        key = key or None  # an empty header is no key
        if key is None:
            return await self._start(owner_id, session_id, data, None, context)
        # Requests with one key take turns from the registry check to the start, so a retry
        # sees the first turn either running here or, once it left, committed.
        async with self.registry.key_lock(owner_id, _canonical(session_id), key):
            return await self._start(owner_id, session_id, data, key, context)

    async def _start(
        self,
        owner_id: uuid.UUID,
        session_id: str,
        data: TurnCreate,
        key: str | None,
        context: ClientContext | None,
    ) -> StartedTurn:
        body_hash = request_hash(data) if key is not None else None
        canonical = _canonical(session_id)
        if key is not None and (
            running := await self.registry.find_with_key(owner_id, canonical, key)
        ):
            ensure_same_request(running.request_hash, body_hash)
            return StartedTurn(running.turn_id, running)
        async with unit_of_work(self.db, write=False) as session:
            prepared = await prepare_turn(
                session, self.settings, owner_id, session_id, data, key, context
            )
            if prepared.existing is not None:
                return StartedTurn(str(prepared.existing), None)
            assert prepared.snapshot is not None
            limits: list[Limit] = []
            if prepared.budgeted:  # else no budget applies: nothing more to read
                limits = await _spend_limits(session, owner_id, prepared.snapshot, self.gateway)
        started = await self._launch(prepared.snapshot, owner_id, key, body_hash, limits)
        if prepared.title is not None and started.turn_id == prepared.snapshot.turn_id:
            # The turn is recorded only when it ends; name the session now, so lists show
            # what it is about while its first turn runs.
            async with unit_of_work(self.db, write=True) as session:
                await SessionRepository(session).name_if_untitled(
                    uuid.UUID(prepared.snapshot.session_id), prepared.title
                )
        return started

    async def decide(self, owner_id: uuid.UUID, turn_id: str, data: ApprovalCreate) -> StartedTurn:
        """Start the continuation of a turn awaiting approval, with the person's decisions.

        The decision is committed before the continuation starts (``claim_decision``), so
        of racing requests exactly one runs it; it is given back only if its continuation
        never started."""
        self.registry.ensure_accepting()
        if await self.live_turn(owner_id, turn_id) is not None:
            raise Conflict(f"turn {turn_id} is still running; decide after its turn_completed")
        async with unit_of_work(self.db, write=False) as session:
            snapshot = await prepare_continuation(session, self.settings, owner_id, turn_id, data)
            limits = await _spend_limits(session, owner_id, snapshot, self.gateway)
        return await self._continue(snapshot, owner_id, limits)

    async def _continue(
        self, snapshot: TurnSnapshot, owner_id: uuid.UUID, limits: list[Limit]
    ) -> StartedTurn:
        """Claim the decision ``snapshot`` carries out, then start its continuation."""
        live, job = self._prepare(snapshot, owner_id, None, None, limits)
        await claim_decision(self.db, snapshot)
        try:
            return await self._claim(live, job)
        except BaseException:
            if live.task is None:  # never started: nothing ran
                await asyncio.shield(release_decision(self.db, snapshot))
            raise

    async def replay(self, owner_id: uuid.UUID, turn_id: str, changes: ReplayCreate) -> StartedTurn:
        """Re-run a finished turn on its recorded call outputs, in a new session marked as
        its replay; only calls whose inputs changed are paid (docs/replay.md)."""
        self.registry.ensure_accepting()
        if await self.live_turn(owner_id, turn_id) is not None:
            raise Conflict(f"turn {turn_id} is still running; replay it after its turn_completed")
        async with unit_of_work(self.db, write=False) as session:
            plan = await prepare_replay(
                session, owner_id, turn_id, changes, self.gateway, self.tools
            )
            # An exact replay pays nothing, so a spent budget does not refuse it.
            priced = plan.changed and spends_money(plan.snapshot, self.gateway.registry)
            room = uuid.UUID(plan.snapshot.room_id) if plan.snapshot.room_id else None
            limits = await BudgetService(session).turn_limits(owner_id, room, priced)
        async with unit_of_work(self.db, write=True) as session:
            session.add(replay_session(plan, owner_id))
        job = TurnJob(
            plan.snapshot, plan.gateway, self.db, self.settings.turns.timeout_s, plan.tools,
            self._guard(limits),
        )  # fmt: skip
        return await self._claim(self._live(plan.snapshot, owner_id, None, None), job)

    async def retry(self, owner_id: uuid.UUID, turn_id: str, data: RetryCreate) -> StartedTurn:
        """Run an orchestrator turn's failed agents again, then its synthesis over their
        outputs and the recorded ones, as a new turn of its session (ADR 0034)."""
        self.registry.ensure_accepting()
        if await self.live_turn(owner_id, turn_id) is not None:
            raise Conflict(f"turn {turn_id} is still running; retry it after its turn_completed")
        async with unit_of_work(self.db, write=False) as session:
            snapshot = await prepare_retry(session, self.settings, owner_id, turn_id, data)
            limits = await _spend_limits(session, owner_id, snapshot, self.gateway)
        return await self._launch(snapshot, owner_id, None, None, limits)

    async def _launch(
        self,
        snapshot: TurnSnapshot,
        owner_id: uuid.UUID,
        key: str | None,
        body_hash: str | None,
        limits: list[Limit],
    ) -> StartedTurn:
        return await self._claim(*self._prepare(snapshot, owner_id, key, body_hash, limits))

    def _prepare(
        self,
        snapshot: TurnSnapshot,
        owner_id: uuid.UUID,
        key: str | None,
        body_hash: str | None,
        limits: list[Limit],
    ) -> tuple[LiveTurn, TurnJob]:
        """The live turn and the job that will run ``snapshot`` (nothing started yet)."""
        timeout_s = self.settings.turns.timeout_s
        job = TurnJob(snapshot, self.gateway, self.db, timeout_s, self.tools, self._guard(limits))
        return self._live(snapshot, owner_id, key, body_hash), job

    def _guard(self, limits: list[Limit]) -> LedgerGuard | None:
        if not limits:
            return None
        return LedgerGuard(self.db, limits, hold_ttl_s(self.settings.turns.timeout_s))

    def _live(
        self, snapshot: TurnSnapshot, owner_id: uuid.UUID, key: str | None, body_hash: str | None
    ) -> LiveTurn:
        trace = turn_trace(snapshot.room_id)
        meta = TurnMeta.of(snapshot, str(owner_id), utcnow(), key, body_hash, trace)
        return LiveTurn(
            turn_id=snapshot.turn_id,
            session_id=snapshot.session_id,
            owner_id=owner_id,
            idempotency_key=key,
            request_hash=body_hash,
            meta=meta,
        )

    async def _claim(self, live: LiveTurn, job: TurnJob) -> StartedTurn:
        joined = await self.registry.claim(live, lambda t: execute_turn(job, t))
        return StartedTurn(joined.turn_id, joined)

    async def live_turn(self, owner_id: uuid.UUID, turn_id: str) -> LiveView | None:
        live = await self.registry.find(_canonical(turn_id))
        return live if live is not None and live.owner_id == owner_id else None

    async def _finished(self, owner_id: uuid.UUID, turn_id: str) -> Turn | None:
        async with unit_of_work(self.db, write=False) as session:
            return await TurnRepository(session).get(owner_id, turn_id)

    async def detail(self, owner_id: uuid.UUID, turn_id: str, *, ended: bool = False) -> TurnDetail:
        """The recorded turn; 409 while it runs, 404 unknown (``ended``: known to be over,
        so not in the database means not recorded, whatever Redis still shows)."""
        async with unit_of_work(self.db, write=False) as session:
            repo = TurnRepository(session)
            turn = await repo.get(owner_id, turn_id)
            if turn is None:
                if not ended and await self.live_turn(owner_id, turn_id) is not None:
                    raise Conflict(f"turn {turn_id} is still running; follow its events")
                raise not_found("turn", turn_id)
            messages, calls = await repo.messages(turn.id), await repo.llm_calls(turn.id)
            return turn_detail(turn, messages, calls, await repo.tool_calls(turn.id))

    async def wait_for_detail(self, owner_id: uuid.UUID, started: StartedTurn) -> TurnDetail:
        """The finished turn; a client that goes away while waiting does not stop it."""
        if started.live is not None:
            await started.live.wait_finished()
        try:
            return await self.detail(owner_id, started.turn_id, ended=True)
        except NotFound as exc:  # finished but not in the database
            keyed = await self._recorded_for_key(owner_id, started.live)
            if keyed is None:  # its write failed
                raise ServiceUnavailable(f"turn {started.turn_id} could not be saved") from exc
            log.warning(
                "turn %s ended unrecorded; its Idempotency-Key names turn %s", started.turn_id,
                keyed.id,
            )  # fmt: skip
            return keyed

    async def _recorded_for_key(
        self, owner_id: uuid.UUID, live: LiveView | None
    ) -> TurnDetail | None:
        """The recorded turn of the key a followed turn carried: a retry that followed a
        claim which never ran (another replica's same-key turn committed first) is answered
        with that turn, as the key promises, not with a 503."""
        if live is None or live.idempotency_key is None:
            return None
        async with unit_of_work(self.db, write=False) as session:
            turn = await TurnRepository(session).by_idempotency_key(
                uuid.UUID(live.session_id), live.idempotency_key
            )
        if turn is None:
            return None
        return await self.detail(owner_id, str(turn.id), ended=True)

    async def events(
        self, owner_id: uuid.UUID, turn_id: str, after: int
    ) -> AsyncIterator[StreamedEvent]:
        """The turn's events after ``after``: live when running, else from the event log.

        Raises 404 before the first event, so the route can answer with a plain error."""
        live, down = await self._running(owner_id, turn_id)
        if live is not None:
            return live.stream(after)
        turn = await self._finished(owner_id, turn_id)
        if turn is None:
            raise down or not_found("turn", turn_id)
        return self._replay(turn.id, after)

    async def _running(
        self, owner_id: uuid.UUID, turn_id: str
    ) -> tuple[LiveView | None, ServiceUnavailable | None]:
        """The running turn, or why it could not be looked up (a shared backend that is
        down): a finished turn is still served from the database meanwhile."""
        try:
            return await self.live_turn(owner_id, turn_id), None
        except ServiceUnavailable as exc:
            return None, exc

    def _replay(self, turn_id: uuid.UUID, after: int) -> AsyncIterator[StreamedEvent]:
        return replay_events(self.db, turn_id, after)

    async def cancel(self, owner_id: uuid.UUID, turn_id: str) -> TurnRead:
        """Stop a running turn; what it produced so far is kept (status ``cancelled``). A
        turn awaiting approval is cancelled by its continuation, which is answered."""
        live, down = await self._running(owner_id, turn_id)
        if live is None:
            turn = await self._finished(owner_id, turn_id)
            if turn is None:
                raise down or not_found("turn", turn_id)
            if turn.status != "awaiting_approval":
                raise Conflict(f"turn {turn_id} already finished with status '{turn.status}'")
            live = (await self._cancel_paused(owner_id, turn_id)).live
            assert live is not None  # a continuation is always started here
            turn_id = live.turn_id
        else:
            live.cancel()
        await live.wait_finished()
        turn = await self._finished(owner_id, turn_id)
        if turn is None:
            raise ServiceUnavailable(f"turn {turn_id} could not be saved")
        return turn_read(turn)

    async def _cancel_paused(self, owner_id: uuid.UUID, turn_id: str) -> StartedTurn:
        """Cancel a turn awaiting approval: a continuation that rejects every pending call
        and runs nothing (no budget to check, nothing is paid), recorded ``cancelled``;
        claimed like any decision, so a racing decision or cancel gets the 409 (ADR 0030)."""
        self.registry.ensure_accepting()
        async with unit_of_work(self.db, write=False) as session:
            snapshot = await prepare_continuation(session, self.settings, owner_id, turn_id, None)
        return await self._continue(snapshot, owner_id, [])


def _canonical(ident: str) -> str:
    """The registry's spelling of an id (lower-case, hyphenated); other text unchanged."""
    try:
        return str(uuid.UUID(ident))
    except ValueError:
        return ident


async def _spend_limits(
    session: AsyncSession, owner_id: uuid.UUID, snapshot: TurnSnapshot, gateway: LLMGateway
) -> list[Limit]:
    """The spend limits a turn runs under (none: no budget); 402 when one is spent and
    the turn may call a priced model."""
    room = uuid.UUID(snapshot.room_id) if snapshot.room_id is not None else None
    priced = spends_money(snapshot, gateway.registry)
    return await BudgetService(session).turn_limits(owner_id, room, priced)
