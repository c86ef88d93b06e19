"""Command line: ``pantheon serve | migrate | run-local``.

``run-local`` is what ``make run`` calls: SQLite, the bundled SmolLM2 model behind
llama-cpp-python's OpenAI-compatible server as a child process, and a demo room.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

import uvicorn

from pantheon.db.migrations import upgrade
from pantheon.main import create_app
from pantheon.settings import Settings


async def _serve(settings: Settings, host: str, port: int) -> None:
    config = uvicorn.Config(
        create_app(settings), host=host, port=port, log_level=settings.log_level.lower()
    )
    await uvicorn.Server(config).serve()


async def _run_local(settings: Settings, host: str, port: int, model_port: int) -> None:
    """Start the local model, point a ``local`` alias at it, migrate, seed and serve."""
    from pantheon.localmodel import LocalModelServer, local_models_toml

    async with LocalModelServer(host="127.0.0.1", port=model_port) as model:
        models_file = settings.data_dir / "models.local.toml"
        models_file.parent.mkdir(parents=True, exist_ok=True)
        models_file.write_text(local_models_toml(model.base_url))
        local = settings.model_copy(
            update={"models_file": models_file, "default_model": "local", "seed_demo": True}
        )
        await upgrade(local.resolved_database_url)
        print(f"Pantheon on http://{host}:{port}  (API docs: /docs, model: {model.base_url})")
        await _serve(local, host, port)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pantheon", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    commands.add_parser("migrate", help="upgrade the database schema to the latest revision")
    local = commands.add_parser("run-local", help="local model + API + demo room (make run)")
    local.add_argument("--host", default="127.0.0.1")
    local.add_argument("--port", type=int, default=8000)
    local.add_argument("--model-port", type=int, default=8081)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings()
    logging.basicConfig(level=settings.log_level, format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "serve":
            asyncio.run(_serve(settings, args.host, args.port))
        elif args.command == "migrate":
            asyncio.run(upgrade(settings.resolved_database_url))
            print("database schema is at the latest revision")
        elif args.command == "run-local":
            asyncio.run(_run_local(settings, args.host, args.port, args.model_port))
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
