"""A turn's typed events -> the AG-UI 1.0 events of its run: a fold (docs/ag-ui.md).

The room is the AG-UI agent; every agent invocation of the turn is a subagent of it
(``SUBAGENT_STARTED`` .. ``SUBAGENT_FINISHED`` / ``SUBAGENT_ERROR``) that writes one
assistant text message under its name, so concurrent specialists are interleaved
messages, each attributed (``name`` and ``subagentRunId``) and closed on its own. The
manager's synthesis is the room's own message. Rounds, routing, evaluations, the
synthesis and pipeline stages are steps; tool calls are ``TOOL_CALL_*``; usage is a
``CUSTOM`` event per agent and the run's ``usage``; gated calls become the interrupts of
``RUN_FINISHED``. Whatever is still open when the turn ends is closed first, so a client
never sees a run end with a message, step or subagent open.

Every type of the catalogue is in ``HANDLERS``, read or ignored on purpose (checked by
tests/engine/test_catalogue.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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

from pantheon.engine.events import TurnCompletedEvent, TurnEvent
from pantheon.engine.modes.specs import MODES, mode_spec
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.error_codes import ErrorCode
from pantheon.protocols.agui import handlers
from pantheon.protocols.agui.ids import message_id, subagent_run_id
from pantheon.protocols.agui.outcome import finished

USAGE_EVENT = "pantheon.usage"


@dataclass
class Speaker:
    """An agent writing its message: the ids it writes under, what it streamed, and the
    interrupts it raised (it stopped at a gated call)."""

    key: str
    name: str
    message_id: str
    subagent: str | None  # None: the room itself (the manager's synthesis)
    text: str = ""
    interrupts: list[str] = field(default_factory=list)

    def attributed(self) -> dict[str, Any]:
        return {} if self.subagent is None else {"subagent_run_id": self.subagent}


@dataclass
class RunFold:
    """Feed it the turn's events in order; it returns the AG-UI events each one adds.

    ``resumed_calls``: in a run that resumes an interrupt, the gated calls the client
    saw announced in the interrupted run (AG-UI: only their results follow)."""

    thread_id: str
    run_id: str
    resumed_calls: frozenset[str] = frozenset()
    turn_id: str = ""
    mode: str = ""
    speaking: dict[str, Speaker] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)
    interrupts: list[Interrupt] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    slots: int = 0  # messages the turn has produced so far (the user's is 0)
    done: bool = False

    def started(self, **metadata: Any) -> RunStartedEvent:
        """The run's first event."""
        return RunStartedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            protocol_version=PROTOCOL_VERSION,
            metadata={"pantheon": metadata} if metadata else None,
        )

    def feed(self, event: TurnEvent) -> list[BaseEvent]:
        if self.done:
            return []
        self.turn_id = event.turn_id
        handler = HANDLERS.get(event.type)
        return handler(self, event) if handler is not None else []

    @property
    def uses_manager(self) -> bool:
        return self.mode in MODES and mode_spec(self.mode).uses_manager

    # Steps -----------------------------------------------------------------------------
    def open_step(self, name: str, **meta: Any) -> list[BaseEvent]:
        if name in self.steps:
            return []
        self.steps.append(name)
        return [StepStartedEvent(step_name=name, metadata=_meta(meta))]

    def close_step(self, name: str, **meta: Any) -> list[BaseEvent]:
        """Finish ``name``, starting it first when this run never saw it start (a
        continuation resumes inside a round)."""
        out = self.open_step(name)
        self.steps.remove(name)
        return [*out, StepFinishedEvent(step_name=name, metadata=_meta(meta))]

    # Messages --------------------------------------------------------------------------
    def speak(self, key: str, name: str, *, subagent: bool, **meta: Any) -> list[BaseEvent]:
        """A new message (and, for an agent, its subagent run) in the next slot."""
        self.slots += 1
        ident = message_id(self.turn_id, self.slots)
        run = subagent_run_id(self.turn_id, self.slots) if subagent else None
        speaker = Speaker(key, name, ident, run)
        self.speaking[key] = speaker
        out: list[BaseEvent] = []
        if run is not None:
            out.append(
                SubagentStartedEvent(
                    subagent_run_id=run, name=name, description=f"@{key}", metadata=_meta(meta)
                )
            )
        out.append(
            TextMessageStartEvent(
                message_id=ident, role="assistant", name=name, **speaker.attributed()
            )
        )
        return out

    def write(self, key: str, text: str) -> list[BaseEvent]:
        speaker = self.speaking.get(key)
        if speaker is None or not text:
            return []
        speaker.text += text
        return [
            TextMessageContentEvent(
                message_id=speaker.message_id, delta=text, **speaker.attributed()
            )
        ]

    def end_message(self, speaker: Speaker, final: str | None = None) -> list[BaseEvent]:
        """Close the speaker's message; text the final answer holds beyond what was
        streamed is sent first."""
        out: list[BaseEvent] = []
        if final is not None and final.startswith(speaker.text) and final != speaker.text:
            out += self.write(speaker.key, final[len(speaker.text) :])
        out.append(TextMessageEndEvent(message_id=speaker.message_id, **speaker.attributed()))
        return out

    def finish_speaker(
        self, key: str, final: str | None = None, result: Any = None
    ) -> list[BaseEvent]:
        speaker = self.speaking.pop(key, None)
        if speaker is None:
            return []
        out = self.end_message(speaker, final)
        if speaker.subagent is not None:
            out.append(SubagentFinishedEvent(subagent_run_id=speaker.subagent, result=result))
        return out

    def fail_speaker(self, key: str, message: str, code: str) -> list[BaseEvent]:
        speaker = self.speaking.pop(key, None)
        if speaker is None:
            return []
        out = self.end_message(speaker)
        if speaker.subagent is not None:
            out.append(
                SubagentErrorEvent(subagent_run_id=speaker.subagent, message=message, code=code)
            )
        return out

    def usage(self, scope: str, **value: Any) -> CustomEvent:
        return CustomEvent(name=USAGE_EVENT, value={"scope": scope, **value})

    # The end ---------------------------------------------------------------------------
    def close_all(self, cancelled: bool) -> list[BaseEvent]:
        """Close every speaker and step still open: a speaker that stopped at a gated
        call is suspended on its interrupts, any other was cut short."""
        out: list[BaseEvent] = []
        for key, speaker in list(self.speaking.items()):
            if speaker.interrupts and speaker.subagent is not None:
                self.speaking.pop(key)
                out += self.end_message(speaker)
                outcome = SubagentFinishedSuspendedOutcome(interrupt_ids=speaker.interrupts)
                out.append(SubagentFinishedEvent(subagent_run_id=speaker.subagent, outcome=outcome))
            elif cancelled:  # "cancelled" is a turn status, not an error code
                out += self.fail_speaker(
                    key, f"{speaker.name}: the turn was cancelled", "cancelled"
                )
            else:
                stopped = f"{speaker.name}: the turn stopped"
                out += self.fail_speaker(key, stopped, ErrorCode.INTERRUPTED)
        for name in reversed(self.steps):
            out.append(StepFinishedEvent(step_name=name))
        self.steps.clear()
        return out

    def end(self, last: BaseEvent) -> list[BaseEvent]:
        self.done = True
        return [last]

    def error(self, message: str, code: str) -> list[BaseEvent]:
        """Close what is open, then ``RUN_ERROR``."""
        return [
            *self.close_all(cancelled=False),
            *self.end(RunErrorEvent(message=message, code=code)),
        ]

    def completed(self, event: TurnCompletedEvent) -> list[BaseEvent]:
        out = self.close_all(cancelled=event.status == "cancelled")
        usage = event.usage.model_dump()
        out.append(self.usage("turn", **usage))
        last = finished(self.thread_id, self.run_id, event, self.interrupts, self.failures)
        return out + self.end(last)

    def manager_speaks(self) -> list[BaseEvent]:
        return [
            *self.open_step("synthesis"),
            *self.speak(MANAGER_KEY, MANAGER_NAME, subagent=False),
        ]


def _meta(meta: dict[str, Any]) -> dict[str, Any] | None:
    return {"pantheon": meta} if meta else None


Handler = Callable[[RunFold, Any], list[BaseEvent]]
HANDLERS: dict[str, Handler | None] = handlers.table()
