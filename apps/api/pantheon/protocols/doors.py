"""The protocol doors, declared once: what each serves, the error shape it answers in,
and what it runs while the app serves. The app mounts them in a loop (``api.py``), in
this order (the first registered error shape that matches a path wins).

A door's routers are included behind authentication; a door whose routes authenticate
themselves (A2A's agent cards and JSON-RPC, MCP's endpoint) mounts them itself. None of
them is switched off by a setting today.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from fastapi import APIRouter, FastAPI
from fastapi.params import Depends

from pantheon.errors import ErrorShaper, ErrorShapes
from pantheon.protocols.a2a.card import A2A_PREFIX
from pantheon.protocols.a2a.routes import RPC_PATH, a2a_rpc_shape, a2a_shape, mount_a2a
from pantheon.protocols.agui.routes import router as agui_router
from pantheon.protocols.mcp_server.server import MCP_PATH, build_mcp_server, jsonrpc_shape
from pantheon.protocols.openai.errors import FACADE_PREFIX, openai_shape
from pantheon.protocols.openai.responses.routes import router as responses_router
from pantheon.protocols.openai.routes import router as openai_router
from pantheon.settings import Settings


@dataclass(frozen=True, slots=True)
class Door:
    """One protocol: ``routers`` (behind authentication, in order), ``mount`` (routes
    that authenticate themselves), ``shapes`` (path prefix or pattern -> the shape its
    errors take outside a route), ``running`` (what serves it while the app does)."""

    name: str
    routers: tuple[APIRouter, ...] = ()
    mount: Callable[[FastAPI], None] | None = None
    shapes: tuple[tuple[str | re.Pattern[str], ErrorShaper], ...] = ()
    running: Callable[[], AbstractAsyncContextManager[None]] | None = None


def protocol_doors(settings: Settings) -> tuple[Door, ...]:
    """Every door this app serves, in mounting order."""
    mcp = build_mcp_server(settings)
    return (
        # OpenAI-compatible: chat completions and Responses (Responses first: the chat
        # router ends in a catch-all), same keys and limits, errors in OpenAI's shape.
        Door(
            "openai",
            routers=(responses_router, openai_router),
            shapes=((FACADE_PREFIX, openai_shape),),
        ),
        # A2A 1.0: every room an agent under /a2a/rooms/{room_id}.
        Door(
            "a2a",
            mount=mount_a2a,
            shapes=((RPC_PATH, a2a_rpc_shape), (A2A_PREFIX + "/", a2a_shape)),
        ),
        # AG-UI 1.0: every room an AG-UI agent; errors before the stream are native JSON.
        Door("agui", routers=(agui_router,)),
        # MCP (Streamable HTTP) at /mcp: its requests wait on turns, so its session
        # manager runs inside the lifespan and is drained before the turns are.
        Door("mcp", mount=mcp.mount, shapes=((MCP_PATH, jsonrpc_shape),), running=mcp.running),
    )


def mount_doors(
    app: FastAPI, shapes: ErrorShapes, doors: Sequence[Door], auth: Sequence[Depends]
) -> None:
    """Mount every door and register its error shapes."""
    for door in doors:
        for router in door.routers:
            app.include_router(router, dependencies=auth)
        if door.mount is not None:
            door.mount(app)
        for prefix, shaper in door.shapes:
            shapes.register(prefix, shaper)


@contextlib.asynccontextmanager
async def serving(doors: Sequence[Door]) -> AsyncIterator[None]:
    """Every door's ``running`` entered, in order; left in reverse."""
    async with contextlib.AsyncExitStack() as stack:
        for door in doors:
            if door.running is not None:
                await stack.enter_async_context(door.running())
        yield
