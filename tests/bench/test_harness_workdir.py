"""Two bench runs started in the same second keep their servers' databases apart (two
runs side by side once met each other's agents: 409 "already exists")."""

from __future__ import annotations

import shutil
import time

import pytest

from pantheon_bench import harness


def test_runs_started_in_the_same_second_get_their_own_directories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.0)
    first, second = harness.new_workdir(), harness.new_workdir()
    try:
        assert first != second
        assert first.is_dir()
        assert second.is_dir()
        assert first.name.startswith("run-1800000000-")
    finally:
        shutil.rmtree(first)
        shutil.rmtree(second)
