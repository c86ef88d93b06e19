"""Every mode is declared once: its name, its spec and its implementation agree."""

from __future__ import annotations

from typing import get_args

from pantheon.engine.modes.registry import IMPLEMENTATIONS
from pantheon.engine.modes.specs import MODE_SPECS, MODES, ROOM_MODES, Mode, mode_spec


def test_names_specs_and_implementations_agree() -> None:
    names = [spec.name for spec in MODE_SPECS]
    assert len(names) == len(set(names)), "a mode is declared twice"
    assert set(names) == set(get_args(Mode)) == set(MODES)
    assert set(IMPLEMENTATIONS) == set(MODES)


def test_room_modes_are_the_specs_that_run_in_a_room() -> None:
    in_rooms = {spec.name for spec in MODE_SPECS if spec.session == "room"}
    assert set(ROOM_MODES) == in_rooms
    assert [spec.name for spec in MODE_SPECS if spec.session == "agent"] == ["standalone"]


def test_the_specs_say_what_each_mode_needs() -> None:
    assert mode_spec("review").min_agents == 2
    assert mode_spec("manual").needs_mentions
    assert [s.name for s in MODE_SPECS if s.uses_manager] == ["orchestrator"]
    assert [s.name for s in MODE_SPECS if s.can_rerun] == ["pipeline"]
    assert {s.name for s in MODE_SPECS if not s.can_pause} == {"pipeline", "review"}
    assert {s.name for s in MODE_SPECS if s.narrates_speakers} == {
        "orchestrator",
        "pipeline",
        "review",
    }


def test_every_spec_has_copy_for_people() -> None:
    for spec in MODE_SPECS:
        assert spec.label.startswith(spec.name)
        assert spec.description
