"""Replay tests run with two more scripted aliases: ``other`` (a model to switch an agent
to) and ``priced`` (one that costs money, for budgets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.settings import Settings

MODELS = """
[models.other]
provider = "scripted"
base_url = "http://unused"

[models.priced]
provider = "scripted"
base_url = "http://unused"
input_price_per_mtok = 1000.0
output_price_per_mtok = 1000.0
"""


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    models = tmp_path / "replay-models.toml"
    models.write_text(MODELS)
    return settings.model_copy(update={"models_file": models})
