"""``pantheon budgets set | show | clear``: a user's spend limits from the command line.

The same service as the admin routes (``/v1/admin/users/{id}/budgets``), one unit of work
per command against the configured (migrated) database; users are named as in
``pantheon users``.
"""

from __future__ import annotations

import argparse
import uuid
from typing import TextIO

from pydantic import ValidationError

from pantheon.budgets.schemas import BudgetRead, BudgetSet
from pantheon.budgets.service import BudgetService
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.errors import Unprocessable
from pantheon.settings import Settings
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``budgets`` with its subcommands."""
    budgets = commands.add_parser("budgets", help="manage spend limits").add_subparsers(
        dest="action", required=True
    )
    set_ = budgets.add_parser("set", help="set a user's daily and/or monthly USD limit")
    set_.add_argument("user")
    set_.add_argument("--daily", type=float, help="USD per UTC day")
    set_.add_argument("--monthly", type=float, help="USD per UTC month")
    set_.add_argument("--room", type=uuid.UUID, help="only the user's turns in this room")
    budgets.add_parser("show", help="a user's budgets and spend").add_argument("user")
    clear = budgets.add_parser("clear", help="lift a user's budget")
    clear.add_argument("user")
    clear.add_argument("--room", type=uuid.UUID, help="the room's budget")


async def run_budget_command(settings: Settings, args: argparse.Namespace, out: TextIO) -> None:
    """Run one ``budgets`` command; ``AppError`` on bad input (unknown user, no limit)."""
    db = Database.from_url(settings.resolved_database_url)
    try:
        async with unit_of_work(db, write=args.action != "show") as session:
            user = await UserService(UserRepository(session)).by_name(args.user)
            service = BudgetService(session)
            if args.action == "set":
                print(_line(await service.set(user, _body(args))), file=out)
            elif args.action == "show":
                budgets = await service.of_user(user)
                print("\n".join(map(_line, budgets)) or f"'{user.login}' has no budget", file=out)
            else:
                await service.clear(user, args.room)
                print(f"lifted the budget of '{user.login}'", file=out)
    finally:
        await db.dispose()


def _body(args: argparse.Namespace) -> BudgetSet:
    try:
        return BudgetSet(room_id=args.room, daily_usd=args.daily, monthly_usd=args.monthly)
    except ValidationError as exc:
        problems = "; ".join(str(e["msg"]) for e in exc.errors())
        raise Unprocessable(problems) from None


def _line(budget: BudgetRead) -> str:
    """``all rooms: day $1.20 of $5.00 (resets 2026-11-24 00:00 UTC), month ...``."""
    where = "all rooms" if budget.room_id is None else f"room {budget.room_id}"
    parts = [
        f"{s.period} ${s.spent_usd:.2f} of ${s.limit_usd:.2f}"
        + (f" (+${s.reserved_usd:.2f} held)" if s.reserved_usd else "")
        + f" (resets {s.resets_at:%Y-%m-%d %H:%M} UTC)"
        for s in budget.spend
    ]
    return f"{where}: " + ", ".join(parts)
