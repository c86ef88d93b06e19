"""The review mode's calls and bookkeeping: the draft, the reviews, the revision, and the
tally that decides when to stop and which draft is the answer.

Promises: the drafter's first call has purpose ``draft``, later ones ``revision``; each
reviewer's call has purpose ``review`` and asks for ``REVIEW_FORMAT`` (the alias'
``structured_output`` decides how); ``parse_review`` stays the judge: a review it cannot
read, or a failed review call, is "not approved, no score" with ``fallback=True``.
Other agents' text is always quoted as data (``engine.prompting.quote_outputs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pantheon.engine.context import SpeakerRun, TurnContext
from pantheon.engine.json_extract import REVIEW_FORMAT, Verdict, parse_review
from pantheon.engine.prompting import (
    Contribution,
    agent_system_prompt,
    assemble,
    data_budget,
    quote_outputs,
)
from pantheon.engine.snapshot import AgentSnapshot
from pantheon.engine.values import Purpose, ReviewStop

NO_GAIN_ROUNDS = 2  # SPEC: stop when the best score has not improved for two rounds
REVIEW_RULES = (
    "You review a draft another agent wrote for the user's message. Judge how well it "
    "answers the message and say concretely what to change. Answer with JSON only, in "
    'this shape: {"approved": true or false, "score": 0-10, "feedback": "..."}. '
    "Approve only a draft that needs no further change."
)
REVISE_RULES = (
    "Revise your draft to address the reviewers' feedback. Answer with the complete "
    "revised draft only."
)


@dataclass(frozen=True, slots=True)
class Review:
    """One reviewer's verdict in a round (``fallback``: the answer was unusable)."""

    agent_key: str
    agent_name: str
    approved: bool
    score: float | None
    feedback: str
    fallback: bool


def prepare_draft(
    ctx: TurnContext,
    drafter: AgentSnapshot,
    round_no: int,
    draft: Contribution | None,
    reviews: Sequence[Review],
) -> SpeakerRun:
    """The first draft (``draft`` is None) or a revision of ``draft`` with the feedback."""
    snapshot = ctx.snapshot
    window = ctx.context_window(drafter.model)
    parts = [snapshot.message]
    if draft is not None:
        notes = [Contribution(r.agent_key, r.agent_name, _feedback_text(r)) for r in reviews]
        budget = data_budget(window, snapshot.message)
        parts.append(f"Your latest draft:\n{quote_outputs([draft], budget // 2)}")
        parts.append(f"The reviewers' feedback on it:\n{quote_outputs(notes, budget // 2)}")
        parts.append(REVISE_RULES)
    system = agent_system_prompt(drafter, snapshot.ordered_roster(), snapshot.room_description)
    messages = assemble(system, "\n\n".join(parts), snapshot.history, window, own_key=drafter.key)
    purpose: Purpose = "draft" if draft is None else "revision"
    return ctx.prepare_agent(drafter, round_no, messages, purpose=purpose)


def prepare_review(
    ctx: TurnContext, reviewer: AgentSnapshot, round_no: int, draft: Contribution
) -> SpeakerRun:
    """A reviewer's call over the round's draft, asking for the verdict's JSON schema."""
    snapshot = ctx.snapshot
    window = ctx.context_window(reviewer.model)
    roster = snapshot.ordered_roster()
    system = agent_system_prompt(reviewer, roster, snapshot.room_description)
    quoted = quote_outputs([draft], data_budget(window, snapshot.message))
    task = f"User message:\n{snapshot.message}\n\nThe draft to review:\n{quoted}"
    messages = assemble(f"{system}\n\n{REVIEW_RULES}", task, snapshot.history, window)
    return ctx.prepare_agent(
        reviewer, round_no, messages, purpose="review", response_format=REVIEW_FORMAT
    )


def read_review(run: SpeakerRun) -> Review:
    """The reviewer's verdict; a failed call or an unreadable answer is the fallback."""
    speaker = run.speaker
    message = run.message
    verdict: Verdict | None = None
    if message is not None and message.status == "ok":
        verdict = parse_review(message.content)
    if verdict is None:
        return Review(speaker.key, speaker.name, False, None, "", fallback=True)
    return Review(
        speaker.key, speaker.name, verdict.approved, verdict.score, verdict.feedback, False
    )


def _feedback_text(review: Review) -> str:
    if review.fallback:
        return "(no usable review)"
    verdict = "approved" if review.approved else "not approved"
    score = "no score" if review.score is None else f"score {review.score:g}/10"
    return f"{verdict}, {score}. {review.feedback}".strip()


@dataclass(frozen=True, slots=True)
class Candidate:
    """A draft that could be the answer: its round and the mean of its readable scores."""

    round: int
    text: str
    score: float | None


@dataclass
class Tally:
    """What the rounds so far decided: the best draft, the latest one, when to stop."""

    max_rounds: int
    best: Candidate | None = None
    latest: Candidate | None = None
    approved: Candidate | None = None
    stale: int = 0  # rounds since the best score last improved

    def add(self, round_no: int, draft: str, reviews: Sequence[Review]) -> ReviewStop | None:
        """Count a reviewed draft; the reason to stop now, or ``None`` to revise."""
        scores = [r.score for r in reviews if r.score is not None]
        score = sum(scores) / len(scores) if scores else None
        self.latest = Candidate(round_no, draft, score)
        best = None if self.best is None else self.best.score
        if score is not None and (best is None or score > best):
            self.best, self.stale = self.latest, 0
        else:
            self.stale += 1
        if reviews and all(r.approved and not r.fallback for r in reviews):
            self.approved = self.latest
            return "approved"
        if self.stale >= NO_GAIN_ROUNDS:
            return "no_gain"
        if round_no >= self.max_rounds:
            return "max_rounds"
        return None

    def answer(self) -> Candidate | None:
        """The approved draft, else the best-scored one, else the latest (none scored)."""
        return self.approved or self.best or self.latest


def closing_text(answer: Candidate | None, reason: ReviewStop) -> str:
    """The closing block of the turn's ``output``: the answer and why the loop stopped."""
    if answer is None:
        return f"Answer: none (stopped: {reason})"
    score = "no score" if answer.score is None else f"score {answer.score:g}"
    return f"Answer (round {answer.round} draft, {score}, stopped: {reason}):\n{answer.text}"
