"""The parts of an AG-UI run that ``RunFold``'s hooks (fold.py) put together: steps,
messages and subagents, and the run's end.

Who speaks, with what text, in which message slot, is the reader base's (``TurnReader``):
a speaker's message is ``<turn id>:<slot + 1>`` (0 is the user's), and an agent's subagent
run is that id plus ``:agent`` (ids.py). The one message no speaker opens, a failed
synthesis's fallback answer, takes the next slot here (``_extra``).
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedSuspendedOutcome,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from pydantic import BaseModel

from pantheon.engine.events import TurnCompletedEvent, TurnEvent
from pantheon.engine.modes.specs import MODES, mode_spec
from pantheon.engine.reader import OpenSpeaker, TurnReader
from pantheon.error_codes import ErrorCode
from pantheon.protocols.agui.ids import message_id, subagent_run_id
from pantheon.protocols.agui.outcome import finished

USAGE_EVENT = "pantheon.usage"
Out = list[BaseEvent]


def dumped(event: BaseModel) -> dict[str, Any]:
    """An engine event's wire fields without ``type`` and ``turn_id`` (for metadata)."""
    data = event.model_dump(mode="json", by_alias=True)
    return {k: v for k, v in data.items() if k not in ("type", "turn_id")}


def custom(name: str, event: BaseModel) -> Out:
    return [CustomEvent(name=name, value=dumped(event))]


def _meta(meta: dict[str, Any]) -> dict[str, Any] | None:
    return {"pantheon": meta} if meta else None


class RunParts(TurnReader[BaseEvent]):
    """An AG-UI run's own state beside the base's: its ids, open steps, interrupts.

    ``resumed_calls``: in a run that resumes an interrupt, the gated calls the client
    saw announced in the interrupted run (AG-UI: only their results follow)."""

    def __init__(
        self, thread_id: str, run_id: str, resumed_calls: frozenset[str] = frozenset()
    ) -> None:
        super().__init__()
        self.thread_id, self.run_id, self.resumed_calls = thread_id, run_id, resumed_calls
        self.steps: list[str] = []
        self.interrupts: list[Interrupt] = []
        self.suspended: dict[str, list[str]] = {}  # agent key -> the interrupts it raised
        self.failures: list[str] = []
        self.done = False
        self._extra = 0  # messages no speaker opened (a fallback answer)
        self._seqs: dict[str, int] = {}  # agent key -> the message seq it speaks in

    def started(self, **metadata: Any) -> RunStartedEvent:
        """The run's first event."""
        return RunStartedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            protocol_version=PROTOCOL_VERSION,
            metadata={"pantheon": metadata} if metadata else None,
        )

    def feed(self, event: TurnEvent) -> Out:
        """Nothing once the run has ended (``RUN_FINISHED`` or ``RUN_ERROR`` sent)."""
        return [] if self.done else super().feed(event)

    @property
    def uses_manager(self) -> bool:
        return self.mode in MODES and mode_spec(self.mode).uses_manager

    def usage(self, scope: str, **value: Any) -> CustomEvent:
        return CustomEvent(name=USAGE_EVENT, value={"scope": scope, **value})

    # Steps -----------------------------------------------------------------------------
    def open_step(self, name: str, **meta: Any) -> Out:
        if name in self.steps:
            return []
        self.steps.append(name)
        return [StepStartedEvent(step_name=name, metadata=_meta(meta))]

    def close_step(self, name: str, **meta: Any) -> Out:
        """Finish ``name``, starting it first when this run never saw it start (a
        continuation resumes inside a round)."""
        out = self.open_step(name)
        self.steps.remove(name)
        return [*out, StepFinishedEvent(step_name=name, metadata=_meta(meta))]

    # Messages --------------------------------------------------------------------------
    def next_message(self) -> str:
        """The id of a message no speaker opened, in the next slot."""
        self._extra += 1
        return message_id(self.turn_id, self.slots + self._extra)

    def reused_message(self) -> str:
        """The id of the message a reused stage just took (the base counted its slot)."""
        return message_id(self.turn_id, self.slots + self._extra)

    def _seq(self, speaker: OpenSpeaker) -> int:
        return self._seqs.get(speaker.key, speaker.slot + 1 + self._extra)

    def message_of(self, speaker: OpenSpeaker) -> str:
        return message_id(self.turn_id, self._seq(speaker))

    def subagent_of(self, speaker: OpenSpeaker) -> str | None:
        """The subagent run an agent writes under (``None``: the room's own message)."""
        if speaker.role != "assistant":
            return None
        return subagent_run_id(self.turn_id, self._seq(speaker))

    def attributed(self, speaker: OpenSpeaker) -> dict[str, Any]:
        run = self.subagent_of(speaker)
        return {} if run is None else {"subagent_run_id": run}

    def speak(self, speaker: OpenSpeaker, **meta: Any) -> Out:
        """The speaker's message (and, for an agent, its subagent run) begins."""
        self.suspended.pop(speaker.key, None)
        self._seqs[speaker.key] = speaker.slot + 1 + self._extra
        out: Out = []
        run = self.subagent_of(speaker)
        if run is not None:
            out.append(
                SubagentStartedEvent(
                    subagent_run_id=run,
                    name=speaker.name,
                    description=f"@{speaker.key}",
                    metadata=_meta(meta),
                )
            )
        out.append(
            TextMessageStartEvent(
                message_id=self.message_of(speaker),
                role="assistant",
                name=speaker.name,
                **self.attributed(speaker),
            )
        )
        return out

    def write(self, speaker: OpenSpeaker, text: str) -> Out:
        if not text:
            return []
        ident = self.message_of(speaker)
        return [TextMessageContentEvent(message_id=ident, delta=text, **self.attributed(speaker))]

    def end_message(self, speaker: OpenSpeaker, final: str | None = None) -> Out:
        """Close the speaker's message; text the final answer holds beyond what was
        streamed is sent first."""
        out: Out = []
        streamed = speaker.text
        if final is not None and final.startswith(streamed) and final != streamed:
            out += self.write(speaker, final[len(streamed) :])
        ident = self.message_of(speaker)
        out.append(TextMessageEndEvent(message_id=ident, **self.attributed(speaker)))
        return out

    def finish_speaker(self, key: str, final: str | None = None, result: Any = None) -> Out:
        speaker = self.open.get(key)
        if speaker is None:
            return []
        out = self.end_message(speaker, final)
        run = self.subagent_of(speaker)
        if run is not None:
            out.append(SubagentFinishedEvent(subagent_run_id=run, result=result))
        return out

    def fail_speaker(self, key: str, message: str, code: str) -> Out:
        speaker = self.open.get(key)
        if speaker is None:
            return []
        out = self.end_message(speaker)
        run = self.subagent_of(speaker)
        if run is not None:
            out.append(SubagentErrorEvent(subagent_run_id=run, message=message, code=code))
        return out

    # The end ---------------------------------------------------------------------------
    def close_all(self, cancelled: bool) -> Out:
        """Close every speaker and step still open: a speaker that stopped at a gated
        call is suspended on its interrupts, any other was cut short."""
        out: Out = []
        for key, speaker in list(self.open.items()):
            run, interrupts = self.subagent_of(speaker), self.suspended.get(key)
            if interrupts and run is not None:
                out += self.end_message(speaker)
                outcome = SubagentFinishedSuspendedOutcome(interrupt_ids=interrupts)
                out.append(SubagentFinishedEvent(subagent_run_id=run, outcome=outcome))
            elif cancelled:  # "cancelled" is a turn status, not an error code
                out += self.fail_speaker(
                    key, f"{speaker.name}: the turn was cancelled", "cancelled"
                )
            else:
                stopped = f"{speaker.name}: the turn stopped"
                out += self.fail_speaker(key, stopped, ErrorCode.INTERRUPTED)
        self.open.clear()  # the run is over: nothing speaks in it any more
        for name in reversed(self.steps):
            out.append(StepFinishedEvent(step_name=name))
        self.steps.clear()
        return out

    def end(self, last: BaseEvent) -> Out:
        self.done = True
        return [last]

    def error(self, message: str, code: str) -> Out:
        """Close what is open, then ``RUN_ERROR``."""
        return [
            *self.close_all(cancelled=False),
            *self.end(RunErrorEvent(message=message, code=code)),
        ]

    def completed(self, event: TurnCompletedEvent) -> Out:
        out = self.close_all(cancelled=event.status == "cancelled")
        out.append(self.usage("turn", **event.usage.model_dump()))
        last = finished(self.thread_id, self.run_id, event, self.interrupts, self.failures)
        return out + self.end(last)
