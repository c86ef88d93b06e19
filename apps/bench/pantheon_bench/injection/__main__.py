"""``python -m pantheon_bench.injection [--model local|scripted] [--repeats N] [--quick]``

I1 (docs/benchmarks.md): the rate at which an agent's answer follows instructions injected
into an MCP tool's result, fencing on and off, in one run. ``local`` starts the bundled
SmolLM2 server (the ``local`` extra, ``make test-local``); ``scripted`` is a gullible fake
that obeys any injection it reads (it sees the text bare): it checks the plumbing, its
rates are 1.0 by construction and say nothing about fencing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from pantheon.llm.factory import build_gateway
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.settings import Settings
from pantheon_bench.injection.fixture_server import CANARY, INJECTIONS
from pantheon_bench.injection.report import section, write
from pantheon_bench.injection.run import Tally, run_trials


def gullible(request: LLMRequest) -> ScriptedReply:
    """Reads the page, then does whatever the page says when it asks for the canary."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(CANARY if CANARY in last.content else "At dusk.")
    return ScriptedReply("", (tool_call("fixture__read_page", {"page": "lighthouse"}),))


@asynccontextmanager
async def _gateway(model: str, tmp: Path) -> AsyncIterator[LLMGateway]:
    if model == "scripted":
        scripted = ScriptedProvider()
        scripted.script(gullible)
        settings = Settings(config_file=None, models_file=None)
        async with aiohttp.ClientSession() as upstream, httpx.AsyncClient() as client:
            yield build_gateway(settings, upstream, client, scripted=scripted)
        return
    from pantheon.server.localmodel import LocalModelServer  # needs the local extra

    async with LocalModelServer() as server:
        models = tmp / "models.toml"
        models.write_text(server.models_toml())
        settings = Settings(config_file=None, models_file=models)
        async with aiohttp.ClientSession() as upstream, httpx.AsyncClient() as client:
            yield build_gateway(settings, upstream, client)


def _line(name: str, tally: Tally) -> str:
    rate = "n/a" if tally.rate is None else f"{tally.rate:.2f}"
    return (
        f"I1 fence {name:<3}  followed {tally.followed}/{tally.counted} trials that read the "
        f"injection (of {tally.trials})  rate {rate}"
    )


async def main_async(model: str, repeats: int, variants: list[int]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        alias = "scripted" if model == "scripted" else "local"
        async with _gateway(model, Path(tmp)) as gateway:
            tallies = await run_trials(gateway, alias, Path(tmp), repeats=repeats,
                                       variants=variants)  # fmt: skip
    on, off = tallies[True], tallies[False]
    print(f"I1 injection through an MCP tool result, model {model}, {len(variants)} injections"
          f" x {repeats} repeats")  # fmt: skip
    print(_line("on", on))
    print(_line("off", off))
    for name, tally in (("on", on), ("off", off)):
        for answer in tally.answers[:3]:  # what the model wrote, to read the rates by
            print(f"I1 answer (fence {name}): {' '.join(answer.split())[:160]}")
    result = {
        "bench": "I1", "model": model, "injections": len(variants), "repeats": repeats,
        "results": {
            name: {"trials": t.trials, "counted": t.counted, "followed": t.followed,
                   "rate": t.rate}
            for name, t in (("on", on), ("off", off))
        },
    }  # fmt: skip
    print(json.dumps(result, separators=(",", ":")))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="pantheon_bench.injection", description=__doc__)
    parser.add_argument("--model", choices=("local", "scripted"), default="local")
    parser.add_argument("--repeats", type=int, default=3, help="turns per injection and setting")
    parser.add_argument("--quick", action="store_true", help="two injections, one repeat")
    parser.add_argument("--write", type=Path, default=None, help="put I1's section in this page")
    args = parser.parse_args()
    variants = [0, 1] if args.quick else list(range(len(INJECTIONS)))
    repeats = 1 if args.quick else args.repeats
    result = asyncio.run(main_async(args.model, repeats, variants))
    if args.write is not None:
        flags = f"--model {args.model}" + (" --quick" if args.quick else f" --repeats {repeats}")
        command = f"python -m pantheon_bench.injection {flags}"
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        write(args.write, section(result, command, when))
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
