"""Review mode: the first roster agent drafts, the others review, the drafter revises.

Promise (SPEC "Workflows"), per round ``n`` (1-based, at most ``review.max_rounds``):
``round_start`` -> the drafter's events (purpose ``draft``, then ``revision`` with the
latest draft and the reviewers' feedback) -> the reviewers' events, concurrently
(``sequential_specialists`` runs them in order) -> one ``review`` event per reviewer in
roster order -> ``round_end``. The loop stops when every reviewer approved, when the best
mean score has not improved for two rounds (``no_gain``), at the round cap
(``max_rounds``) or when a draft failed (``draft_failed``). Then ``review_completed``
names the answer: the approved draft, else the best-scored one, else the latest (no
review was readable); the record's ``closing`` says the same in the turn's ``output``.
Messages are recorded round by round: the draft, then the reviews in roster order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.engine.context import TurnContext
from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import (
    ReviewCompletedEvent,
    ReviewEvent,
    RoundEndEvent,
    RoundStartEvent,
    TurnEvent,
)
from pantheon.engine.modes.review_calls import (
    Review,
    Tally,
    closing_text,
    prepare_draft,
    prepare_review,
    read_review,
)
from pantheon.engine.prompting import Contribution
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.engine.values import ReviewStop
from pantheon.llm.gateway import closing_stream


class ReviewMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        roster = snapshot.ordered_roster()
        if len(roster) < 2:
            raise BrokenPrecondition(
                f"review turn {snapshot.turn_id} needs a drafter and at least one reviewer"
            )
        return roster

    async def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        turn_id = ctx.snapshot.turn_id
        drafter, *reviewers = self.participants(ctx.snapshot)
        tally = Tally(ctx.snapshot.review.max_rounds)
        draft: Contribution | None = None
        reviews: list[Review] = []
        reason: ReviewStop = "max_rounds"
        for round_no in range(1, tally.max_rounds + 1):
            ctx.record.rounds = round_no
            yield RoundStartEvent(turn_id=turn_id, round=round_no)
            run = prepare_draft(ctx, drafter, round_no, draft, reviews)
            async with closing_stream(ctx.speak(run)) as events:
                async for event in events:
                    yield event
            draft = run.contribution()
            if draft is None:
                reason = "draft_failed"
                yield RoundEndEvent(turn_id=turn_id, round=round_no)
                break
            runs = [prepare_review(ctx, reviewer, round_no, draft) for reviewer in reviewers]
            async with closing_stream(ctx.fan_in(runs)) as events:
                async for event in events:
                    yield event
            reviews = [read_review(r) for r in runs]
            for r in reviews:
                yield ReviewEvent(
                    turn_id=turn_id, round=round_no, agent_key=r.agent_key,
                    approved=r.approved, score=r.score, feedback=r.feedback,
                    fallback=r.fallback,
                )  # fmt: skip
            yield RoundEndEvent(turn_id=turn_id, round=round_no)
            stop = tally.add(round_no, draft.text, reviews)
            if stop is not None:
                reason = stop
                break
        answer = tally.answer()
        ctx.record.closing = closing_text(answer, reason)
        yield ReviewCompletedEvent(
            turn_id=turn_id,
            round=None if answer is None else answer.round,
            score=None if answer is None else answer.score,
            reason=reason,
            text="" if answer is None else answer.text,
        )
