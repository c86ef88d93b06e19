"""The reader base: one hook per type of the catalogue, and the bookkeeping every door
used to keep for itself (who speaks, with what text, which calls are pending)."""

from __future__ import annotations

from collections.abc import Iterable

from pantheon.engine.events import (
    EVENT_MODELS,
    AgentCompletedEvent,
    AgentStartedEvent,
    DeltaEvent,
    StageCompletedEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnStartedEvent,
    TurnUsage,
    type_name,
)
from pantheon.engine.reader import TurnReader

T = "t1"


def test_every_type_of_the_catalogue_has_its_hook() -> None:
    hooks = {name[3:] for name in vars(TurnReader) if name.startswith("on_")}
    assert hooks == {type_name(model) for model in EVENT_MODELS}


class _Seen(TurnReader[str]):
    """Names what each hook saw of the open speakers."""

    def on_delta(self, event: DeltaEvent) -> Iterable[str]:
        return [f"{event.agent_key}:{self.open[event.agent_key].text}"]

    def on_agent_completed(self, event: AgentCompletedEvent) -> Iterable[str]:
        speaker = self.open[event.agent_key]  # still open for its own hook
        return [f"done {speaker.key} slot {speaker.slot}"]

    def on_synthesis_completed(self, event: SynthesisCompletedEvent) -> Iterable[str]:
        return [f"synthesis slot {self.open['manager'].slot}"]


def test_speakers_open_before_their_hooks_and_close_after() -> None:
    reader = _Seen()
    zero = {"input_tokens": 0, "output_tokens": 0}
    out = reader.feed_all(
        [
            TurnStartedEvent(turn_id=T, session_id="s", mode="orchestrator", agents=["a", "b"]),
            AgentStartedEvent(turn_id=T, agent_key="a", agent_name="A", round=1),
            StageCompletedEvent(turn_id=T, stage=1, agent_key="x", agent_name="X", reused=True),
            AgentStartedEvent(turn_id=T, agent_key="b", agent_name="B", round=1),
            DeltaEvent(turn_id=T, agent_key="a", text="he"),
            DeltaEvent(turn_id=T, agent_key="a", text="llo"),
            AgentCompletedEvent(turn_id=T, agent_key="a", text="hello", usage=zero),
            SynthesisStartedEvent(turn_id=T),
            SynthesisCompletedEvent(turn_id=T, text="sum"),
        ]
    )
    assert out == ["a:he", "a:hello", "done a slot 0", "synthesis slot 3"]
    assert (reader.mode, reader.agents) == ("orchestrator", ["a", "b"])
    assert list(reader.open) == ["b"]
    speaker = reader.open["b"]
    assert (speaker.name, speaker.role, speaker.round, speaker.slot) == ("B", "assistant", 1, 2)
    assert not reader.finished


def test_a_tool_call_is_pending_until_its_result() -> None:
    reader: TurnReader[str] = TurnReader()
    call = ToolCallEvent(turn_id=T, agent_key="a", round=1, call_id="c1", name="calc", arguments={})
    reader.feed(call)
    assert reader.pending_calls == {"c1": call}
    reader.feed(
        ToolResultEvent(
            turn_id=T,
            agent_key="a",
            round=1,
            call_id="c1",
            name="calc",
            ok=True,
            content="2",
            duration_ms=1,
        )
    )
    assert reader.pending_calls == {}
    usage = TurnUsage(input_tokens=0, output_tokens=0, cost_usd=0.0)
    done = TurnCompletedEvent(turn_id=T, status="completed", usage=usage, message_ids=[])
    reader.feed(done)
    assert reader.final == done
    assert reader.finished
