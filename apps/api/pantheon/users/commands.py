"""``pantheon users ...`` and ``pantheon keys ...``: user and key administration.

Each command is one unit of work against the configured database (already migrated). The
key printed by ``keys create`` is shown once: only its prefix and digest are stored. A
password is read from the first line of stdin (a terminal gets a prompt that does not echo),
never from the command line, where other users of the machine could read it. The first
admin is ``pantheon users create NAME --admin --password-stdin``.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TextIO

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.settings import Settings
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``users`` and ``keys`` with their subcommands."""
    users = commands.add_parser("users", help="manage users").add_subparsers(
        dest="action", required=True
    )
    create = users.add_parser("create", help="create a user")
    create.add_argument("name")
    create.add_argument("--admin", action="store_true", help="role admin: the /v1/admin routes")
    create.add_argument("--email", help="the user's email address")
    create.add_argument("--display-name", default="", help="shown on the page (default: name)")
    create.add_argument("--models", help="comma-separated allowed aliases (default: all)")
    create.add_argument(
        "--password-stdin",
        action="store_true",
        help="also set a sign-in password, read from the first line of stdin",
    )
    password = users.add_parser(
        "set-password", help="set a user's sign-in password, read from the first line of stdin"
    )
    password.add_argument("name")
    models = users.add_parser("set-models", help="replace a user's model allowlist")
    models.add_argument("name")
    models.add_argument("models", help="comma-separated aliases, or 'all'")
    keys = commands.add_parser("keys", help="manage API keys").add_subparsers(
        dest="action", required=True
    )
    keys.add_parser("create", help="create a key and print it once").add_argument("user")
    keys.add_parser("revoke", help="revoke a key by its prefix").add_argument("prefix")


def read_password() -> str:
    """The first line of stdin, or a prompt that does not echo on a terminal."""
    if sys.stdin.isatty():
        return getpass.getpass("password: ")
    return sys.stdin.readline().rstrip("\r\n")


def _models(value: str | None) -> list[str] | None:
    if value is None or value.strip().lower() == "all":
        return None
    return [alias.strip() for alias in value.split(",") if alias.strip()]


async def run_command(settings: Settings, args: argparse.Namespace, out: TextIO) -> None:
    """Run one ``users``/``keys`` command; ``AppError`` on bad input (unknown user ...)."""
    db = Database.from_url(settings.resolved_database_url)
    try:
        async with unit_of_work(db, write=True) as session:
            service = UserService(UserRepository(session))
            await _dispatch(service, args, out)
    finally:
        await db.dispose()


async def _dispatch(service: UserService, args: argparse.Namespace, out: TextIO) -> None:
    command = (args.command, args.action)
    if command == ("users", "create"):
        user = await service.create_user(
            args.name,
            is_admin=args.admin,
            allowed_models=_models(args.models),
            email=args.email,
            display_name=args.display_name,
        )
        if args.password_stdin:  # in the same unit: a refused password creates nobody
            await service.set_password(user.login, read_password())
        print(f"created {user.role} '{user.login}' ({user.id})", file=out)
    elif command == ("users", "set-password"):
        user = await service.set_password(args.name, read_password())
        print(f"password set for '{user.login}'", file=out)
    elif command == ("users", "set-models"):
        user = await service.set_allowed_models(args.name, _models(args.models))
        print(f"'{user.login}' may use: {', '.join(user.allowed_models or ['all'])}", file=out)
    elif command == ("keys", "create"):
        key, row = await service.create_key(args.user)
        print(key, file=out)
        print(f"(prefix {row.prefix}; shown once, store it now)", file=out)
    elif command == ("keys", "revoke"):
        row = await service.revoke_key(args.prefix)
        print(f"revoked {row.prefix} at {row.revoked_at:%Y-%m-%d %H:%M:%S} UTC", file=out)
