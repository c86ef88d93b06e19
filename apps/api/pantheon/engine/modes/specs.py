"""Every turn mode, described once: its name (``Mode``) and its ``ModeSpec``.

``GET /v1/modes`` serves the specs; preflight, the record, history folding, rerun, the
facade and the web page read them instead of branching on a mode's name. The
implementations are in ``engine/modes/registry.py``; a test checks that names, specs
and implementations agree. A new mode is its module, its entry here and in the registry,
and its tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Mode = Literal["standalone", "manual", "roundtable", "orchestrator", "pipeline", "review"]
# A room's mode: every mode whose spec runs in a room session (checked by a test).
RoomMode = Literal["manual", "roundtable", "orchestrator", "pipeline", "review"]

# Where a turn of the mode runs: a session opened on a room, or on one agent.
SessionKind = Literal["room", "agent"]
# How the turn's ``output`` text is laid out (engine/output_text.py): one block per
# speaker, blocks under ``[Round n]`` headers, or one block per pipeline stage.
OutputShape = Literal["speakers", "rounds", "stages"]
# Which text a person reads as the answer: the one agent's reply, each agent's reply
# under its name, the manager's synthesis, the last stage's output, the chosen draft.
AnswerSource = Literal["the_agent", "each_agent", "synthesis", "last_stage", "chosen_draft"]


@dataclass(frozen=True, slots=True)
class ModeSpec:
    """One mode, as data: its copy for people and the constraints the service enforces."""

    name: Mode
    label: str
    description: str
    # How to use the mode, shown where a message is written (``None``: nothing to add).
    hint: str | None
    session: SessionKind
    min_agents: int
    needs_mentions: bool
    uses_manager: bool
    can_pause: bool  # an approval-gated tool call pauses the turn (else it is refused)
    can_rerun: bool  # a turn may take over this mode's earlier stages (``rerun_from``)
    output: OutputShape
    answer: AnswerSource

    @property
    def narrates_speakers(self) -> bool:
        """The speakers' texts are steps towards the answer, not the answer itself."""
        return self.answer not in ("the_agent", "each_agent")


MODE_SPECS: tuple[ModeSpec, ...] = (
    ModeSpec(
        name="orchestrator",
        label="orchestrator (manager routes)",
        description="a manager routes specialists, round by round",
        hint="In orchestrator mode the manager routes it to specialists round by round.",
        session="room",
        min_agents=1,
        needs_mentions=False,
        uses_manager=True,
        can_pause=True,
        can_rerun=False,
        output="rounds",
        answer="synthesis",
    ),
    ModeSpec(
        name="roundtable",
        label="roundtable (everyone)",
        description="every agent answers, in roster order",
        hint=None,
        session="room",
        min_agents=1,
        needs_mentions=False,
        uses_manager=False,
        can_pause=True,
        can_rerun=False,
        output="speakers",
        answer="each_agent",
    ),
    ModeSpec(
        name="manual",
        label="manual (only @mentioned)",
        description="only the agents you @mention answer",
        hint="In manual mode, mention agents by key: type @ to pick one.",
        session="room",
        min_agents=1,
        needs_mentions=True,
        uses_manager=False,
        can_pause=True,
        can_rerun=False,
        output="speakers",
        answer="each_agent",
    ),
    ModeSpec(
        name="pipeline",
        label="pipeline (stages in roster order)",
        description="each agent refines the previous one's output, in roster order",
        hint=(
            "In pipeline mode each agent is a stage that builds on the previous stage's "
            "output; re-run a later stage from a finished turn."
        ),
        session="room",
        min_agents=1,
        needs_mentions=False,
        uses_manager=False,
        can_pause=False,
        can_rerun=True,
        output="stages",
        answer="last_stage",
    ),
    ModeSpec(
        name="review",
        label="review (draft, reviews, revisions)",
        description="the first agent drafts, the others review until they approve",
        hint=(
            "In review mode the first agent drafts and the others score it; the drafter "
            "revises until they approve."
        ),
        session="room",
        min_agents=2,
        needs_mentions=False,
        uses_manager=False,
        can_pause=False,
        can_rerun=False,
        output="rounds",
        answer="chosen_draft",
    ),
    ModeSpec(
        name="standalone",
        label="standalone (one agent)",
        description="the one agent the session was opened on answers",
        hint=None,
        session="agent",
        min_agents=1,
        needs_mentions=False,
        uses_manager=False,
        can_pause=True,
        can_rerun=False,
        output="speakers",
        answer="the_agent",
    ),
)

MODES: tuple[Mode, ...] = get_args(Mode)
ROOM_MODES: tuple[RoomMode, ...] = get_args(RoomMode)
_BY_NAME: dict[str, ModeSpec] = {spec.name: spec for spec in MODE_SPECS}


def mode_spec(name: str) -> ModeSpec:
    """The spec of mode ``name``; ``KeyError`` for a name no spec declares."""
    return _BY_NAME[name]
