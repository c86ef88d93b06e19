"""Reading a ``RunAgentInput``: what the run asks Pantheon to do, or a 422 naming what is
wrong with it (docs/ag-ui.md, "The request").

A run is one of two things: a new turn whose message is the text of the input's last
message (a user message; the thread's earlier messages are Pantheon's own, so the
client's copy of them is not read), or, with ``resume``, the decisions on the gated tool
calls the thread's paused turn holds. ``threadId`` is the session's id (a UUID), and
``forwardedProps.pantheon`` may carry the turn's ``mode`` (overriding the room's) and a
pipeline's ``rerun_from``; ``context`` entries become the user's instructions to every
agent.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ag_ui.core import ResumeEntry, RunAgentInput, UserMessage
from pydantic import ValidationError

from pantheon.errors import Unprocessable
from pantheon.turns.schemas import ApprovalCreate, ApprovalDecision, TurnCreate

CANCELLED = "cancelled in the AG-UI client"
TURN_OPTIONS = ("mode", "rerun_from")  # of TurnCreate, what forwardedProps.pantheon may set
_PROBLEMS = 5


@dataclass(frozen=True, slots=True)
class RunRequest:
    """A validated run: its thread (session) and run ids, and the turn or the decisions."""

    thread_id: uuid.UUID
    thread: str  # as the client spelled it, echoed in the run's events
    run_id: str
    turn: TurnCreate | None
    decisions: ApprovalCreate | None
    instructions: str | None = None  # the input's context entries, for every agent


def _problems(exc: ValidationError) -> str:
    found = [
        f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"
        for err in exc.errors()[:_PROBLEMS]
    ]
    return "; ".join(found)


def _input(body: bytes) -> RunAgentInput:
    try:
        return RunAgentInput.model_validate_json(body)
    except ValidationError as exc:
        if any(err["type"] == "json_invalid" for err in exc.errors()):
            raise Unprocessable(f"the request body is not JSON: {_problems(exc)}") from exc
        raise Unprocessable(f"the request body is no RunAgentInput: {_problems(exc)}") from exc


def _text(run: RunAgentInput) -> str:
    """The text of the input's last message, which must be the user's."""
    if not run.messages:
        raise Unprocessable("messages is empty: send the user's message last")
    last = run.messages[-1]
    if not isinstance(last, UserMessage):
        raise Unprocessable(
            f"the last message is a '{last.role}' message: a run needs the user's message "
            "last (or resume entries answering the thread's interrupts)"
        )
    if isinstance(last.content, str):
        return last.content
    kinds = sorted({part.type for part in last.content if part.type != "text"})
    if kinds:
        raise Unprocessable(f"only text is supported, not {', '.join(kinds)} parts")
    return "\n".join(getattr(part, "text", "") for part in last.content)


def _options(run: RunAgentInput) -> dict[str, Any]:
    """``forwardedProps.pantheon``'s turn options (``TURN_OPTIONS``); other keys of
    ``forwardedProps`` are other parties' and not read."""
    props = run.forwarded_props
    if not isinstance(props, dict) or props.get("pantheon") is None:
        return {}
    ours = props["pantheon"]
    if not isinstance(ours, dict):
        raise Unprocessable(
            f"forwardedProps.pantheon must be an object of turn options ({', '.join(TURN_OPTIONS)})"
        )
    unknown = sorted(str(name) for name in ours if name not in TURN_OPTIONS)
    if unknown:
        raise Unprocessable(
            f"forwardedProps.pantheon: unknown turn option(s) {', '.join(unknown)[:200]}; "
            f"the options are {', '.join(TURN_OPTIONS)}"
        )
    return dict(ours)


def _context(run: RunAgentInput) -> str | None:
    """The app's ``context`` entries as the user's instructions to every agent (as a chat
    client's system message is); ``None`` when it sent none with a value."""
    lines = [
        f"- {entry.description.strip()}: {entry.value.strip()}"
        if entry.description.strip()
        else f"- {entry.value.strip()}"
        for entry in run.context or ()
        if entry.value.strip()
    ]
    return "Context from the user's app:\n" + "\n".join(lines) if lines else None


def _decision(entry: ResumeEntry) -> ApprovalDecision:
    if entry.status == "cancelled":
        return ApprovalDecision(call_id=entry.interrupt_id, approve=False, reason=CANCELLED)
    payload = entry.payload
    if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
        raise Unprocessable(
            f"resume entry {entry.interrupt_id[:64]}: payload must be an object with a "
            'boolean "approved" (and an optional "reason")'
        )
    reason = payload.get("reason", "")
    return ApprovalDecision(
        call_id=entry.interrupt_id,
        approve=payload["approved"],
        reason=reason if isinstance(reason, str) and not payload["approved"] else "",
    )


def parse_run(body: bytes) -> RunRequest:
    """The run ``body`` asks for; 422 naming the problem when it is not one."""
    run = _input(body)
    try:
        thread = uuid.UUID(run.thread_id)
    except ValueError:
        raise Unprocessable(
            f"threadId {run.thread_id[:64]!r} is not a UUID: a thread is a Pantheon session"
        ) from None
    if not run.run_id.strip() or len(run.run_id) > 200 or not run.run_id.isprintable():
        raise Unprocessable("runId must be 1 to 200 printable characters (it names the turn)")
    try:
        if run.resume:
            decisions = ApprovalCreate(decisions=[_decision(entry) for entry in run.resume])
            return RunRequest(thread, run.thread_id, run.run_id, None, decisions)
        turn = TurnCreate(message=_text(run), **_options(run))
    except ValidationError as exc:
        raise Unprocessable(f"the run cannot start a turn: {_problems(exc)}") from exc
    return RunRequest(thread, run.thread_id, run.run_id, turn, None, _context(run))
