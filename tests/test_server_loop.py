"""``pantheon serve`` runs on uvloop (a measured throughput gain, docs/benchmarks.md)."""

from __future__ import annotations

import asyncio

import uvloop

from pantheon.server.serving import run_event_loop


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_run_event_loop_uses_uvloop() -> None:
    assert run_event_loop(_loop_type()) is uvloop.Loop
