"""Command line: ``pantheon serve | migrate | run-local | users | keys | budgets | knowledge``
and ``eval``.

``run-local`` is what ``make run`` calls: SQLite, the bundled SmolLM2 model behind
llama-cpp-python's OpenAI-compatible server as a child process, and a demo room.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from pantheon.budgets.commands import add_commands as add_budget_commands
from pantheon.budgets.commands import run_budget_command
from pantheon.db.migrations import upgrade
from pantheon.errors import AppError
from pantheon.evals.cli import add_commands as add_eval_commands
from pantheon.evals.cli import run_eval
from pantheon.observability.logs import configure_logging
from pantheon.observability.port import metrics_port
from pantheon.server.main import create_app
from pantheon.server.serving import TurnAwareServer, run_event_loop, server_config
from pantheon.server.workers import refuse_workers, serve_workers
from pantheon.settings import Settings
from pantheon.users.auth import is_loopback_host
from pantheon.users.commands import add_commands, run_command


async def _serve(settings: Settings, host: str, port: int) -> None:
    app = create_app(settings)
    config = server_config(app, settings, host=host, port=port)
    with metrics_port(settings.metrics.port):
        await TurnAwareServer(config, app, settings.turns.shutdown_grace_s).serve()


async def _run_local(settings: Settings, host: str, port: int, model_port: int) -> None:
    """Start the local model, point a ``local`` alias at it, migrate, seed and serve."""
    from pantheon.server.localmodel import LocalModelServer, find_smollm2_gguf, local_models_toml

    async with LocalModelServer(host="127.0.0.1", port=model_port) as model:
        models_file = settings.data_dir / "models.local.toml"
        models_file.parent.mkdir(parents=True, exist_ok=True)
        # The model's own vocabulary counts the prompts (docs/context.md).
        gguf = f"gguf:{find_smollm2_gguf()}"
        models_file.write_text(local_models_toml(model.base_url, tokenizer=gguf))
        # config_file, not models_file: an operator's PANTHEON_CONFIG_FILE would win over it.
        local = settings.model_copy(
            update={
                "config_file": models_file,
                "models_file": None,
                "default_model": "local",
                "seed_demo": True,
            }
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
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes behind the port (N > 1 needs PostgreSQL and Redis)",
    )
    commands.add_parser("migrate", help="upgrade the database schema to the latest revision")
    local = commands.add_parser("run-local", help="local model + API + demo room (make run)")
    local.add_argument("--host", default="127.0.0.1")
    local.add_argument("--port", type=int, default=8000)
    local.add_argument("--model-port", type=int, default=8081)
    knowledge = commands.add_parser("knowledge", help="documents and search")
    knowledge_commands = knowledge.add_subparsers(dest="knowledge_command", required=True)
    knowledge_commands.add_parser(
        "reindex", help="re-embed chunks made by another embedder (after changing it)"
    )
    add_commands(commands)
    add_budget_commands(commands)
    add_eval_commands(commands)
    return parser


def refuse_unsafe_bind(settings: Settings, host: str) -> str | None:
    """Why the server must not start on ``host``, or ``None`` when it may."""
    if settings.auth_mode != "local" or settings.allow_local_on_any_host:
        return None
    if is_loopback_host(host):
        return None
    return (
        f"refusing to serve on {host}: PANTHEON_AUTH_MODE=local has no authentication and "
        "is only allowed on a loopback address (127.0.0.1, ::1, localhost). Use "
        "PANTHEON_AUTH_MODE=keys with API keys (pantheon users create / keys create) "
        "to serve on other addresses."
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pantheon`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    if args.command in ("serve", "run-local"):
        refusal = refuse_unsafe_bind(settings, args.host)
        if refusal is None and args.command == "serve":
            refusal = refuse_workers(settings, args.workers)
        if refusal is not None:
            print(refusal, file=sys.stderr)
            return 2
    try:
        if args.command in ("users", "keys"):
            asyncio.run(run_command(settings, args, sys.stdout))
        elif args.command == "budgets":
            asyncio.run(run_budget_command(settings, args, sys.stdout))
        elif args.command == "serve" and args.workers > 1:
            return serve_workers(
                args.host, args.port, args.workers, settings, settings.metrics.port
            )
        elif args.command == "serve":
            run_event_loop(_serve(settings, args.host, args.port))
        elif args.command == "migrate":
            asyncio.run(upgrade(settings.resolved_database_url))
            print("database schema is at the latest revision")
        elif args.command == "knowledge":
            from pantheon.knowledge.reindex import reindex

            count = asyncio.run(reindex(settings, sys.stdout))
            print(f"{count} chunk(s) re-embedded")
        elif args.command == "eval":
            return asyncio.run(run_eval(args, sys.stdout, sys.stderr))
        elif args.command == "run-local":
            run_event_loop(_run_local(settings, args.host, args.port, args.model_port))
    except AppError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
