"""The AG-UI ids Pantheon gives out, one rule each, so a run's stream and a thread's
``MESSAGES_SNAPSHOT`` name the same message the same way.

A message is ``<turn id>:<seq>``, ``seq`` being the message's place in its turn as the
record keeps it (0 the user's, then each speaker in record order); the subagent run of
the agent that wrote it is that id plus ``:agent``; a tool result message is
``<turn id>:tool:<call id>``; an approval interrupt is the gated call's id.
"""

from __future__ import annotations


def message_id(turn_id: str, seq: int) -> str:
    """The AG-UI id of message ``seq`` of turn ``turn_id``."""
    return f"{turn_id}:{seq}"


def subagent_run_id(turn_id: str, seq: int) -> str:
    """The subagent invocation that wrote message ``seq`` of turn ``turn_id``."""
    return f"{message_id(turn_id, seq)}:agent"


def tool_message_id(turn_id: str, call_id: str) -> str:
    """The AG-UI id of the tool message holding call ``call_id``'s result."""
    return f"{turn_id}:tool:{call_id}"
