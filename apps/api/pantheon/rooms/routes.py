"""Room and roster routes: thin translation between HTTP and ``RoomService``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Response, status

from pantheon.deps import RegistryDep, ServicesDep, SettingsDep, UoWDep, UserIdDep
from pantheon.rooms.repository import RoomRepository
from pantheon.rooms.schemas import RoomCreate, RoomRead, RoomUpdate, RosterAdd
from pantheon.rooms.service import RoomService
from pantheon.schemas import Page, PageDep

router = APIRouter(prefix="/v1/rooms", tags=["rooms"])


def _service(uow: UoWDep, registry: RegistryDep, settings: SettingsDep) -> RoomService:
    return RoomService(RoomRepository(uow), registry, settings.limits.max_roster)


ServiceDep = Annotated[RoomService, Depends(_service)]


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_room(data: RoomCreate, service: ServiceDep, user: UserIdDep) -> RoomRead:
    """Create a room; add agents with the roster route."""
    return await service.create(user, data)


@router.get("")
async def list_rooms(service: ServiceDep, user: UserIdDep, page: PageDep) -> Page[RoomRead]:
    """List the rooms you own and the rooms shared with you, with rosters, oldest first."""
    items, total = await service.list_page(user, limit=page.limit, offset=page.offset)
    return Page[RoomRead](items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{room_id}")
async def get_room(room_id: str, service: ServiceDep, user: UserIdDep) -> RoomRead:
    """Read one room and its roster by position."""
    return await service.read_one(user, room_id)


@router.patch("/{room_id}")
async def update_room(
    room_id: str, data: RoomUpdate, service: ServiceDep, user: UserIdDep
) -> RoomRead:
    """Rename a room or change its mode or manager model; running turns are unaffected."""
    return await service.update(user, room_id, data)


@router.delete("/{room_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_room(
    room_id: str, service: ServiceDep, user: UserIdDep, services: ServicesDep,
    tasks: BackgroundTasks,
) -> Response:  # fmt: skip
    """Delete a room; its sessions answer 404 from now on and its pending documents
    are no longer ingested (they end failed)."""
    deleted = await service.delete(user, room_id)
    await services.knowledge.place_deleted(service.repo.session, tasks, "room", deleted)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{room_id}/agents", status_code=status.HTTP_201_CREATED)
async def add_room_agent(
    room_id: str, data: RosterAdd, service: ServiceDep, user: UserIdDep
) -> RoomRead:
    """Put an agent in the roster, at the end or at a position (later members move down)."""
    return await service.add_member(user, room_id, data)


@router.delete("/{room_id}/agents/{agent_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_room_agent(
    room_id: str, agent_id: str, service: ServiceDep, user: UserIdDep
) -> Response:
    """Take an agent out of the roster."""
    await service.remove_member(user, room_id, agent_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
