"""``pantheon eval DATASET --room R --modes a,b,c``: run a dataset on a running server.

The command is a client of the HTTP API (``--url``, default ``PANTHEON_URL`` or
http://127.0.0.1:8000; ``--key``, default ``PANTHEON_API_KEY``), so the run uses the
server's models, budgets and live turns and shows in its page (docs/adr/0019). It checks
the file locally first (the same parser as the server), uploads it, starts the run,
draws a progress bar on stderr, and prints the report; Ctrl-C cancels the run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any, TextIO

import httpx

from pantheon.evals.datasets import DatasetError, parse_jsonl
from pantheon.evals.report_text import progress_line, report_text

POLL_S = 0.5
REQUEST_TIMEOUT_S = 30.0
GRACE_S = 60.0  # waited past the run's own deadline before the command gives up


class CommandError(Exception):
    """What the command prints before exiting with status 1."""


def add_commands(commands: Any) -> None:
    """The ``eval`` subcommand and its options."""
    command = commands.add_parser("eval", help="run an eval dataset over rooms and modes")
    command.add_argument("dataset", type=Path, help="a JSONL file, one case a line")
    command.add_argument("--room", required=True, help="a room's name or id")
    command.add_argument(
        "--modes", default="", help="comma-separated modes (default: the room's own mode)"
    )
    command.add_argument("--agent", default=None, help="the agent key for one-agent modes")
    command.add_argument("--concurrency", type=int, default=2)
    command.add_argument("--deadline", type=int, default=3600, help="seconds for the whole run")
    command.add_argument("--name", default="", help="the run's name (default: the file's)")
    command.add_argument("--compare", default=None, help="an earlier run id: list flipped cases")
    command.add_argument("--url", default=os.environ.get("PANTHEON_URL", "http://127.0.0.1:8000"))
    command.add_argument("--key", default=os.environ.get("PANTHEON_API_KEY"))


def _targets(room_id: str, modes: str, agent: str | None) -> list[dict[str, Any]]:
    names: list[str | None] = [m.strip() for m in modes.split(",") if m.strip()] or [None]
    targets = []
    for mode in names:
        target: dict[str, Any] = {"room_id": room_id, "mode": mode}
        if agent is not None:
            target["agent_key"] = agent
        targets.append(target)
    return targets


async def _call(client: httpx.AsyncClient, method: str, path: str, **kw: Any) -> Any:
    try:
        response = await client.request(method, path, **kw)
    except httpx.HTTPError as exc:
        raise CommandError(
            f"cannot reach Pantheon at {client.base_url}: {exc}; start it (make run) or pass --url"
        ) from exc
    if response.status_code >= 400:
        try:
            detail = response.json().get("detail", response.text)
        except ValueError:
            detail = response.text
        raise CommandError(f"{method} {path}: {response.status_code}: {detail}")
    return response.json()


async def _room_id(client: httpx.AsyncClient, room: str) -> str:
    offset, found = 0, []
    while True:
        page = await _call(client, "GET", "/v1/rooms", params={"limit": 200, "offset": offset})
        found += [r for r in page["items"] if room in (r["id"], r["name"])]
        offset += len(page["items"])
        if not page["items"] or offset >= page["total"]:
            break
    if len(found) != 1:
        why = "no room" if not found else f"{len(found)} rooms"
        raise CommandError(f"{why} named '{room}'; pass the room's id")
    room_id: str = found[0]["id"]
    return room_id


async def _follow(client: httpx.AsyncClient, run: dict[str, Any], err: TextIO) -> dict[str, Any]:
    """Poll the run until it ends, drawing the bar; Ctrl-C (cancellation) cancels it."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + run["deadline_s"] + GRACE_S
    try:
        while run["status"] == "running":
            err.write("\r" + progress_line(run))
            err.flush()
            if loop.time() > give_up:
                raise CommandError(f"run {run['id']} is still running past its deadline")
            await asyncio.sleep(POLL_S)
            run = await _call(client, "GET", f"/v1/evals/{run['id']}")
    except (asyncio.CancelledError, KeyboardInterrupt):
        await asyncio.shield(_call(client, "POST", f"/v1/evals/{run['id']}/cancel"))
        err.write(f"\nrun {run['id']} cancelled\n")
        raise
    err.write("\r" + progress_line(run) + "\n")
    return run


async def run_eval(
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    transport: httpx.AsyncBaseTransport | None = None,
) -> int:
    """The ``eval`` command; its exit status (0: the run completed)."""
    try:
        text = args.dataset.read_text(encoding="utf-8")
        parse_jsonl(text)
    except (OSError, UnicodeDecodeError, DatasetError) as exc:
        err.write(f"error: {args.dataset}: {exc}\n")
        return 2
    headers = {"Authorization": f"Bearer {args.key}"} if args.key else {}
    async with httpx.AsyncClient(
        base_url=args.url, headers=headers, timeout=REQUEST_TIMEOUT_S, transport=transport
    ) as client:
        try:
            room_id = await _room_id(client, args.room)
            body = {"name": args.dataset.stem, "jsonl": text}
            dataset = await _call(client, "POST", "/v1/evals/datasets", json=body)
            run = await _call(client, "POST", "/v1/evals", json={
                "dataset_id": dataset["id"], "targets": _targets(room_id, args.modes, args.agent),
                "concurrency": args.concurrency, "deadline_s": args.deadline,
                "name": args.name or args.dataset.stem,
            })  # fmt: skip
            run = await _follow(client, run, err)
            params = {"compare": args.compare} if args.compare else {}
            report = await _call(client, "GET", f"/v1/evals/{run['id']}/report", params=params)
        except CommandError as exc:
            err.write(f"\nerror: {exc}\n")
            return 1
    out.write(report_text(run, report))
    return 0 if run["status"] == "completed" else 1
