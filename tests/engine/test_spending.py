"""The engine asks its spend guard before each call and settles every hold it got."""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass, field

import pytest

from pantheon.engine.events import AgentFailedEvent
from pantheon.engine.no_tools import NoTools
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.spending import SpendHold, max_cost_usd
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.tokens import estimate_messages
from pantheon.llm.types import ChatMessage, LLMRequest
from tests.engine.conftest import PRICED, agent, collect, snapshot

A, B, C = (agent(k, i, model="priced") for i, k in enumerate(["alpha", "beta", "gamma"]))


@dataclass
class Hold:
    guard: CountingGuard
    amount: float

    @property
    def granted_usd(self) -> float:
        return self.amount

    async def settle(self, cost_usd: float) -> None:
        self.guard.settled.append((self.amount, cost_usd))


@dataclass
class CountingGuard:
    """Grants ``grants`` holds, then refuses; remembers what was asked and settled."""

    grants: int
    asked: list[float] = field(default_factory=list)
    settled: list[tuple[float, float]] = field(default_factory=list)

    left_usd: float | None = None  # grants at most this much (a limit nearly spent)
    floors: list[float] = field(default_factory=list)

    async def reserve(
        self, max_cost_usd: float, min_cost_usd: float | None = None
    ) -> SpendHold | None:
        self.asked.append(max_cost_usd)
        self.floors.append(max_cost_usd if min_cost_usd is None else min_cost_usd)
        granted = max_cost_usd if self.left_usd is None else min(max_cost_usd, self.left_usd)
        if len(self.asked) > self.grants or granted < self.floors[-1]:
            return None
        return Hold(self, granted)


def test_the_maximum_cost_counts_the_prompt_and_the_reply_bound() -> None:
    messages = (ChatMessage("user", "x" * 400),)
    prompt = estimate_messages(messages)
    capped = LLMRequest("priced", messages, max_tokens=10)
    assert max_cost_usd(capped, PRICED) == pytest.approx(prompt * 1.0 + 10 * 2.0)
    open_ended = LLMRequest("priced", messages)
    rest = PRICED.context_window - prompt
    assert max_cost_usd(open_ended, PRICED) == pytest.approx(prompt * 1.0 + rest * 2.0)


async def test_a_nearly_spent_limit_cuts_the_answer_instead_of_refusing_the_call(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    """A limit with less left than one call's maximum (the context window's worth of
    answer) still lets the call run, with ``max_tokens`` cut to what is left."""
    guard = CountingGuard(grants=5, left_usd=2_000.0)  # the maximum is about 16,000
    record = TurnRecord()
    events = [
        e
        async for e in run_turn(
            snapshot("roundtable", roster=[A]), gateway, NoTools(), record, guard
        )
    ]
    assert not [e for e in events if isinstance(e, AgentFailedEvent)]
    request = provider.calls()[0].request
    prompt_usd = estimate_messages(request.messages) * 1.0
    assert guard.asked[0] > 2_000.0
    assert request.max_tokens == int((2_000.0 - prompt_usd) / 2.0)
    assert guard.settled == [(2_000.0, record.llm_calls[0].cost_usd)]
    assert record.llm_calls[0].cost_usd <= 2_000.0


async def test_a_limit_below_the_prompt_and_a_short_answer_refuses_the_call(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    guard = CountingGuard(grants=5, left_usd=100.0)  # the floor: prompt + 256 tokens > 512
    record = TurnRecord()
    events = [
        e
        async for e in run_turn(
            snapshot("roundtable", roster=[A]), gateway, NoTools(), record, guard
        )
    ]
    assert [e.code for e in events if isinstance(e, AgentFailedEvent)] == ["budget_exceeded"]
    assert guard.floors[0] > 100.0
    assert provider.calls() == []


async def test_a_refused_call_is_skipped_and_so_are_the_rest(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    guard = CountingGuard(grants=1)
    record = TurnRecord()
    snap = snapshot("roundtable", roster=[A, B, C])
    events = [e async for e in run_turn(snap, gateway, NoTools(), record, guard)]
    failed = [(e.agent_key, e.code) for e in events if isinstance(e, AgentFailedEvent)]
    assert failed == [("beta", "budget_exceeded"), ("gamma", "budget_exceeded")]
    assert len(guard.asked) == 2  # gamma's call was not even asked for: the turn is out
    assert [c.agent_key for c in record.llm_calls] == ["alpha"]
    assert [c.request.agent_key for c in provider.calls()] == ["alpha"]
    assert record.status == "partial"
    assert guard.settled == [(guard.asked[0], record.llm_calls[0].cost_usd)]
    assert 0 < record.llm_calls[0].cost_usd <= guard.asked[0]


async def test_without_a_guard_nothing_is_limited(gateway: LLMGateway) -> None:
    events, record = await collect(snapshot("roundtable", roster=[A, B]), gateway)
    assert record.status == "completed"
    assert [e.type for e in events].count("agent_completed") == 2


async def test_a_cancelled_call_settles_its_hold(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("one two three four five six", agent="alpha", chunk_delay_s=0.05)
    guard = CountingGuard(grants=5)
    record = TurnRecord()
    snap = snapshot("roundtable", roster=[A])
    async with aclosing(run_turn(snap, gateway, NoTools(), record, guard)) as events:
        async for event in events:
            if event.type == "delta":
                break
    assert record.llm_calls[0].status == "cancelled"
    assert guard.settled == [(guard.asked[0], record.llm_calls[0].cost_usd)]


async def test_a_failing_guard_fails_the_call_closed(gateway: LLMGateway) -> None:
    class Broken:
        async def reserve(
            self, max_cost_usd: float, min_cost_usd: float | None = None
        ) -> SpendHold | None:
            raise RuntimeError("ledger down")

    record = TurnRecord()
    snap = snapshot("roundtable", roster=[A])
    events = [e async for e in run_turn(snap, gateway, NoTools(), record, Broken())]
    failed = [e.code for e in events if isinstance(e, AgentFailedEvent)]
    assert failed == ["internal_error"]
    assert record.llm_calls == []
