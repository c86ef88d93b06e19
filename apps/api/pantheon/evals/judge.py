"""The LLM judge: a model alias grades an answer against a rubric with a 0-10 verdict.

The request asks for ``{"score", "reason"}`` as structured output (aliases that cannot
honour it still usually answer JSON); the verdict is read tolerantly, and an answer with
no readable score in 0-10 fails the check with that reason instead of guessing one.
The judge's own cost is reported apart from the target's (``judge_cost_usd``) and is
held against the owner's budgets like a turn's call (``judge_spend``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pantheon.engine.json_extract import extract_json_object
from pantheon.evals.cases import Case, JudgeCheck
from pantheon.evals.judge_spend import JudgeSpend
from pantheon.evals.schemas import CheckOutcome
from pantheon.llm.errors import LLMError
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.types import ChatMessage, LLMRequest, ResponseFormat

JUDGE_KEY = "judge"  # the request's agent key: logs and scripted rules name the judge by it
MAX_ANSWER_CHARS = 12_000
VERDICT_FORMAT = ResponseFormat(
    "verdict",
    {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 10},
            "reason": {"type": "string"},
        },
        "required": ["score", "reason"],
        "additionalProperties": False,
    },
)
SYSTEM = (
    "You grade an assistant's answer. Read the rubric, the question, the expected facts and "
    'the answer, then reply with JSON only: {"score": <0-10>, "reason": "<one sentence>"}. '
    "10 means the answer fully meets the rubric; 0 means it does not at all."
)


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: CheckOutcome
    score: float | None
    cost_usd: float


def _prompt(check: JudgeCheck, case: Case, answer: str) -> str:
    facts = "\n".join(f"- {fact}" for fact in case.facts) or "(none given)"
    return (
        f"Rubric:\n{check.rubric}\n\nQuestion:\n{case.question}\n\n"
        f"Expected facts:\n{facts}\n\nAnswer:\n{answer[:MAX_ANSWER_CHARS]}"
    )


def read_score(text: str) -> tuple[float, str] | None:
    """The verdict's score (0-10) and reason, or ``None`` when it has no usable score."""
    data = extract_json_object(text)
    if data is None:
        return None
    raw = data.get("score")
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        return None
    try:
        score = float(raw)
    except ValueError:
        return None
    if not 0.0 <= score <= 10.0:
        return None
    reason = data.get("reason")
    return score, reason.strip() if isinstance(reason, str) else ""


async def judge(
    gateway: LLMGateway,
    check: JudgeCheck,
    case: Case,
    answer: str,
    default_model: str,
    spend: JudgeSpend,
) -> Verdict:
    """Ask ``check.model`` for a verdict, paid within the owner's budgets (``spend``); an
    upstream failure fails the check, with why."""
    model = check.model or default_model
    request = LLMRequest(
        model=model,
        messages=(
            ChatMessage("system", SYSTEM),
            ChatMessage("user", _prompt(check, case, answer)),
        ),
        agent_key=JUDGE_KEY,
        temperature=0.0,
        max_tokens=300,
        response_format=VERDICT_FORMAT,
    )
    try:
        hold = await spend.reserve(request)
    except LLMError as exc:  # an unknown model alias
        return Verdict(
            CheckOutcome(type="judge", passed=False, detail=f"judge failed: {exc}"), None, 0.0
        )
    try:
        completion = await gateway.complete(request)
    except LLMError as exc:
        await hold.settle(0.0)
        return Verdict(
            CheckOutcome(type="judge", passed=False, detail=f"judge failed: {exc}"), None, 0.0
        )
    cost = gateway.registry.get(model).cost_usd(completion.usage)
    await hold.settle(cost)
    verdict = read_score(completion.text)
    if verdict is None:
        detail = "the judge gave no readable 0-10 score"
        return Verdict(CheckOutcome(type="judge", passed=False, detail=detail), None, cost)
    score, reason = verdict
    passed = score >= check.min_score
    detail = f"{score:g}/10 (pass at {check.min_score:g}): {reason}"[:500]
    return Verdict(CheckOutcome(type="judge", passed=passed, detail=detail), score, cost)
