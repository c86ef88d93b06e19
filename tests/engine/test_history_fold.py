"""The engine's side of context: windows, the fold plan, and who sees the summary."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pantheon.engine.history_fold import Budget, plan_fold
from pantheon.engine.history_prompt import exchange_tokens, group_exchanges
from pantheon.engine.prompting import assemble
from pantheon.engine.snapshot import HistoryEntry, SessionSummary
from pantheon.engine.window import Window, reply_reserve
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.tokenizers import ESTIMATOR, counter_for
from pantheon.llm.types import ModelAlias
from pantheon.settings import ContextSettings, LLMSettings
from tests.engine.conftest import ALICE, BOB, collect, snapshot, types
from tests.llm.test_tokenizers import smollm2_gguf

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SUMMARY = SessionSummary("The user likes tea. SUMMARY-TEXT", "turn-0", T0, 10, T0)


def stored(count: int, words: int = 40) -> list[HistoryEntry]:
    """``count`` stored exchanges (user + alice), oldest first."""
    entries = []
    for n in range(count):
        at = T0 + timedelta(minutes=n + 1)
        entries.append(HistoryEntry("user", f"q{n} " + "w " * words, turn_id=f"t{n}", at=at))
        entries.append(HistoryEntry("assistant", f"a{n}", "alice", "Alice", turn_id=f"t{n}", at=at))
    return entries


def test_the_reply_reserve_is_the_aliases_max_tokens_else_a_capped_default() -> None:
    assert reply_reserve(ModelAlias(name="m", context_window=8192, max_tokens=300)) == 300
    assert reply_reserve(ModelAlias(name="m", context_window=8192)) == 1024
    assert reply_reserve(ModelAlias(name="m", context_window=1000)) == 250
    assert reply_reserve(ModelAlias(name="m", context_window=8192), 512) == 512
    assert Window.estimated(1000).prompt_tokens == 750


def test_the_fold_plan_keeps_the_newest_exchanges_within_the_keep_share() -> None:
    exchanges = group_exchanges(stored(10))
    assert {exchange_tokens(x, ESTIMATOR) for x in exchanges} == {34}  # 340 in all
    assert plan_fold(exchanges, Budget(340, ESTIMATOR, 100), 0.5, truncated=False) is None
    plan = plan_fold(exchanges, Budget(220, ESTIMATOR, 100), 0.5, truncated=False)
    assert plan is not None
    kept, folded = plan
    assert [x[0].content[:2] for x in kept] == ["q7", "q8", "q9"]
    assert len(folded) == 7
    assert folded[0][0].content.startswith("q0")


def test_unread_history_folds_at_least_half_even_when_it_fits() -> None:
    exchanges = group_exchanges(stored(10))
    plan = plan_fold(exchanges, Budget(10_000, ESTIMATOR, 100), 0.5, truncated=True)
    assert plan is not None
    assert [len(part) for part in plan] == [5, 5]


def test_the_summary_closes_the_system_message_and_is_cut_when_it_cannot_fit() -> None:
    history = stored(30)
    messages = assemble("system", "task", history, Window.estimated(1000), summary="S " * 20)
    assert messages[0].content.startswith("system\n\nSummary of the earlier conversation")
    assert ESTIMATOR.messages(messages) <= 750
    huge = assemble("system", "task", history, Window.estimated(1000), summary="S " * 5000)
    assert huge[0].content.endswith("[...]")
    assert ESTIMATOR.messages(huge) <= 750
    assert len(huge) == 2  # no room for history: system and task only


async def test_every_call_with_history_carries_the_summary_evaluate_does_not(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script('{"agents": ["alice"]}', purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")
    snap = replace(
        snapshot("orchestrator", roster=(ALICE, BOB)), summary=SUMMARY, stored_history=True
    )
    events, record = await collect(snap, gateway)
    assert "summary" not in types(events)  # nothing to fold: no history yet
    assert record.summary is None
    by_purpose = {r.request.purpose: r.request.messages[0].content for r in provider.requests}
    for purpose in ("route", "specialist", "synthesis"):
        assert "SUMMARY-TEXT" in by_purpose[purpose], purpose
    assert "SUMMARY-TEXT" not in by_purpose["evaluate"]


async def test_a_clients_own_history_is_never_folded(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    snap = snapshot("standalone", roster=(ALICE,), history=stored(300))
    events, record = await collect(snap, gateway)
    assert "summary" not in types(events)
    assert provider.calls(purpose="summary") == []
    assert record.status == "completed"
    prompt = provider.calls(agent="alice")[0].request.messages
    assert ESTIMATOR.messages(prompt) <= Window.estimated(8192).prompt_tokens
    assert "q299" in prompt[-3].content  # the newest exchange, in full


async def test_summaries_can_be_switched_off(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    snap = replace(
        snapshot("standalone", roster=(ALICE,), history=stored(300)),
        stored_history=True,
        context=ContextSettings(summaries=False),
    )
    events, _ = await collect(snap, gateway)
    assert "summary" not in types(events)
    assert provider.calls(purpose="summary") == []


async def test_an_aliases_tokenizer_decides_what_fits(provider: ScriptedProvider) -> None:
    path = smollm2_gguf()
    counted = ModelAlias(
        name="counted", provider="scripted", context_window=2048, tokenizer=f"gguf:{path}"
    )
    gateway = LLMGateway(ModelRegistry([counted]), {"scripted": provider}, LLMSettings())
    digits = "3.14159265358979323846264338327950288419716939937510 " * 4
    history = [HistoryEntry("user", f"{n} {digits}") for n in range(60)]
    alice = replace(ALICE, model="counted")
    await collect(snapshot("standalone", roster=(alice,), history=history), gateway)
    real = await counter_for(f"gguf:{path}")
    prompt = provider.calls(agent="alice")[0].request.messages
    assert real.messages(prompt) <= 2048 - 512
    assert "59 3.14" in prompt[-2].content  # the newest exchange is kept
    by_estimate = assemble("s", "task", history, Window.estimated(2048))
    assert real.messages(by_estimate) > 2048 - 512  # counting by estimate would overflow
