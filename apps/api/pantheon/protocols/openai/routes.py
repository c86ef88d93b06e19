"""OpenAI-compatible routes under ``/openai/v1``: models, chat completions, and a 404 in
OpenAI's shape for every other path there. Errors come out in OpenAI's shape
(``OpenAIRoute``); authentication, rate and size limits are the native API's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request, Response
from fastapi.responses import JSONResponse

from pantheon.deps import ServicesDep, UserIdDep, limit_turn_rate
from pantheon.errors import allowed_methods
from pantheon.event_stream import SSE_HEADERS, Event, EventStream
from pantheon.observability.metrics import sse_listener
from pantheon.protocols.openai.answers import complete, stream
from pantheon.protocols.openai.errors import (
    FACADE_PREFIX,
    OpenAIRoute,
    error_response,
    openai_responses,
)
from pantheon.protocols.openai.schemas import (
    ChatCompletion,
    ChatCompletionCreate,
    ModelCard,
    ModelList,
)
from pantheon.protocols.openai.service import FacadeService

router = APIRouter(prefix=FACADE_PREFIX, tags=["openai"], route_class=OpenAIRoute)


def _service(services: ServicesDep) -> FacadeService:
    return FacadeService(services.turns)


ServiceDep = Annotated[FacadeService, Depends(_service)]


@router.get("/models", responses=openai_responses(401))
async def list_models(service: ServiceDep, user: UserIdDep) -> ModelList:
    """Your rooms (room-<id>) and agents (agent-<key>) as OpenAI models."""
    return await service.models(user)


@router.get("/models/{model_id}", responses=openai_responses(400, 401, 404))
async def get_model(model_id: str, service: ServiceDep, user: UserIdDep) -> ModelCard:
    """One of your rooms or agents as an OpenAI model."""
    return await service.model(user, model_id)


@router.post(
    "/chat/completions",
    response_model=None,
    dependencies=[Depends(limit_turn_rate)],  # before the turn: JSON and stream alike
    responses={
        200: {
            "model": ChatCompletion,
            "content": {"text/event-stream": {}},
            "description": "The answer, or with stream=true its chat.completion.chunk stream",
        },
        **openai_responses(400, 401, 402, 404, 409, 413, 429, 500, 502, 503),
    },
)
async def create_chat_completion(
    body: ChatCompletionCreate,
    service: ServiceDep,
    user: UserIdDep,
    x_pantheon_session: Annotated[str | None, Header(max_length=64)] = None,
) -> Response:
    """Run one turn of a room (room-<id>) or agent (agent-<key>), OpenAI-style."""
    completion = await service.start(user, body, x_pantheon_session)
    headers = {
        "X-Pantheon-Session": completion.session_id,
        "X-Pantheon-Turn": completion.turn.turn_id,
    }
    if completion.request.stream:

        async def messages() -> AsyncIterator[Event]:
            with sse_listener("openai"):
                async for data in stream(service, user, completion):
                    yield Event(data=data)

        keepalive = service.turns.settings.sse.keepalive_s
        return EventStream(messages(), ping=keepalive, headers={**SSE_HEADERS, **headers})
    answer = await complete(service, user, completion)
    return JSONResponse(answer.model_dump(mode="json"), headers=headers)


@router.api_route(
    "/{path:path}",
    methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def unknown_endpoint(path: str, request: Request) -> Response:
    """OpenAI clients probe endpoints Pantheon lacks; tell them in their shape: 404, or 405
    naming the methods served when the path exists (``PUT .../chat/completions``)."""
    message = (
        f"{request.method} {FACADE_PREFIX}/{path} is not supported; Pantheon offers "
        f"GET {FACADE_PREFIX}/models, POST {FACADE_PREFIX}/chat/completions and "
        f"{FACADE_PREFIX}/responses"
    )
    allowed = allowed_methods(request)
    if allowed != ["OPTIONS"]:
        allow = {"Allow": ", ".join(allowed)}
        return error_response(405, message, "method_not_allowed", headers=allow)
    return error_response(404, message, "unknown_endpoint")
