"""The golden-stream tests run on SQLite only: the bytes a client reads come from the
doors, not from the database, and one backend keeps them fast."""

from __future__ import annotations

import pytest


@pytest.fixture
def backend() -> str:
    """Overrides the root ``backend`` (sqlite and postgres) with SQLite alone."""
    return "sqlite"
