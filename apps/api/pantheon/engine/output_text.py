"""A turn's ``output`` text, from its messages in turn order (formats in ``engine.record``).

Pipeline (its spec's ``output`` is ``stages``): one block per stage, ``(reused)`` on stages
taken over by ``rerun_from``; when the pipeline stopped early (its last stage failed or was
cancelled) a last block names the answer, the last good stage's output::

    [Stage 1] Researcher (reused): <text>

    [Stage 2] Writer: [failed: timeout]

    Answer (stage 1, Researcher):
    <text>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pantheon.error_codes import ErrorCode

if TYPE_CHECKING:  # record imports this module: no import cycle at run time
    from pantheon.engine.record import ProducedMessage


def message_body(message: ProducedMessage) -> str:
    """The text, or ``[failed: <code>]``, or the text so far and ``[cancelled]`` (or
    ``[interrupted]``: the process running the turn died, live/interrupted.py)."""
    if message.status == "failed":
        return f"[failed: {message.error_code or 'error'}]"
    if message.status == "cancelled":
        cut = "interrupted" if message.error_code == ErrorCode.INTERRUPTED else "cancelled"
        return f"{message.content} [{cut}]".lstrip()
    if message.status == "awaiting_approval":  # docs/approvals.md
        return f"{message.content.rstrip()} [awaiting approval]".lstrip()
    return message.content


def message_line(message: ProducedMessage) -> str:
    return f"{message.agent_name}: {message_body(message)}"


def rounds_output(messages: Sequence[ProducedMessage]) -> list[str]:
    """Blocks grouped under ``[Round n]`` headers, the manager's synthesis last."""
    blocks: list[str] = []
    current_round: int | None = None
    for message in messages:
        if message.role == "manager":
            blocks.append(f"Manager synthesis:\n{message_body(message)}")
        elif message.round != current_round:
            current_round = message.round
            blocks.append(f"[Round {current_round}]\n{message_line(message)}")
        else:
            blocks.append(message_line(message))
    return blocks


def pipeline_output(stages: Sequence[ProducedMessage]) -> str:
    """One block per stage, then the answer's block when the last stage did not succeed."""
    blocks = []
    for number, stage in enumerate(stages, start=1):
        reused = " (reused)" if stage.reused else ""
        blocks.append(f"[Stage {number}] {stage.agent_name}{reused}: {message_body(stage)}")
    good = [(n, s) for n, s in enumerate(stages, start=1) if s.status == "ok"]
    if stages and stages[-1].status != "ok" and good:
        number, stage = good[-1]
        blocks.append(f"Answer (stage {number}, {stage.agent_name}):\n{stage.content}")
    return "\n\n".join(blocks)
