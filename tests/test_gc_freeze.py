"""A serving app keeps its startup objects out of full collections, and lets them go at
shutdown (an app started and stopped inside a longer process pins nothing)."""

from __future__ import annotations

import gc

from pantheon.settings import Settings
from tests.app_factory import running_app


async def test_startup_objects_are_frozen_while_serving_and_released_after(
    settings: Settings,
) -> None:
    gc.unfreeze()
    async with running_app(settings):
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the app's routes, schemas, metadata ... not just a few
        assert len(gc.get_objects(generation=2)) < frozen  # out of the full passes' walk
    assert gc.get_freeze_count() == 0
