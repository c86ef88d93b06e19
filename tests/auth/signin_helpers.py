"""Signing people in for tests: a password set through the service layer, a sign-in
through ``POST /auth/login``, and a client that sends the cookies it got back."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from pantheon.db.engine import Database
from pantheon.db.models import LoginSession, User
from pantheon.db.uow import unit_of_work
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService

PASSWORD = "correct horse battery staple"


@dataclass
class SignedIn:
    http: httpx.AsyncClient  # sends the session and CSRF cookies, no CSRF header
    session_id: str
    csrf: str
    response: httpx.Response

    @property
    def csrf_header(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.csrf}


def database(app: FastAPI) -> Database:
    db: Database = app.state.services.db
    return db


async def set_password(app: FastAPI, login: str, password: str = PASSWORD) -> None:
    async with unit_of_work(database(app), write=True) as session:
        await UserService(UserRepository(session)).set_password(login, password)


async def set_status(app: FastAPI, login: str, status: str) -> None:
    async with unit_of_work(database(app), write=True) as session:
        await session.execute(update(User).where(User.login == login).values(status=status))


async def expire_sessions(app: FastAPI) -> None:
    async with unit_of_work(database(app), write=True) as session:
        await session.execute(update(LoginSession).values(expires_at=LoginSession.created_at))


def cookie_client(
    app: FastAPI, cookies: dict[str, str], base_url: str = "http://test"
) -> httpx.AsyncClient:
    header = "; ".join(f"{name}={value}" for name, value in cookies.items())
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url=base_url, headers={"Cookie": header})


async def sign_in(app: FastAPI, login: str, password: str = PASSWORD) -> SignedIn:
    """Sign in; the caller closes ``.http``."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as anon:
        response = await anon.post("/auth/login", json={"login": login, "password": password})
    assert response.status_code == 200, response.text
    session_id = response.cookies["pantheon_session"]
    csrf = response.cookies["pantheon_csrf"]
    http = cookie_client(app, {"pantheon_session": session_id, "pantheon_csrf": csrf})
    return SignedIn(http, session_id, csrf, response)
