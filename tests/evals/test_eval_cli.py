"""``pantheon eval``: checks the file, runs it on the server, draws progress, prints the
report; a failing server answer or Ctrl-C (cancellation) ends it cleanly."""

from __future__ import annotations

import argparse
import asyncio
import io
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from pantheon.evals.cli import add_commands, run_eval
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.cli import main
from tests.evals.conftest import EXAMPLE


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    return parser.parse_args(["eval", *argv])


async def _run(app: FastAPI, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = await run_eval(_args(*argv), out, err, httpx.ASGITransport(app=app))
    return code, out.getvalue(), err.getvalue()


async def test_the_example_over_three_modes_prints_the_report(
    app: FastAPI, scripted: ScriptedProvider
) -> None:
    code, out, err = await _run(
        app, str(EXAMPLE), "--room", "Demo room", "--modes", "standalone,roundtable,orchestrator"
    )
    assert code == 0, err
    assert "[##############################] 36/36 cases  passed 34" in err
    lines = out.splitlines()
    assert lines[0].endswith("(demo): completed")
    rows = [line for line in lines if line.startswith("Demo room")]
    assert [row.split("  ")[0].strip() for row in rows] == [
        "Demo room · standalone (planner)",
        "Demo room · roundtable",
        "Demo room · orchestrator",
    ]
    assert " 11/12 " in rows[0]
    assert " 12/12 " in rows[2]
    assert "9.0" in rows[2]


async def test_a_bad_file_is_refused_before_anything_is_sent(app: FastAPI, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "message": "m", "facts": ["x"]}\n{"id": "b"}\n')
    code, _out, err = await _run(app, str(bad), "--room", "Demo room")
    assert code == 2
    assert "line 2: (case): Value error, give exactly one of 'message' and 'conversation'" in err
    missing = await _run(app, str(tmp_path / "none.jsonl"), "--room", "Demo room")
    assert missing[0] == 2
    assert "No such file" in missing[2]


async def test_server_refusals_are_printed(app: FastAPI) -> None:
    code, _out, err = await _run(app, str(EXAMPLE), "--room", "Nowhere")
    assert code == 1
    assert "error: no room named 'Nowhere'; pass the room's id" in err
    code, _out, err = await _run(app, str(EXAMPLE), "--room", "Demo room", "--modes", "manual")
    assert code == 1
    assert "POST /v1/evals: 422: targets[0]: mode 'manual' needs @mentions" in err


async def test_an_unreachable_server_is_named() -> None:
    args = _args(str(EXAMPLE), "--room", "Demo room", "--url", "http://127.0.0.1:9")
    err = io.StringIO()
    assert await run_eval(args, io.StringIO(), err) == 1
    assert "cannot reach Pantheon at http://127.0.0.1:9" in err.getvalue()


async def test_interrupting_the_command_cancels_the_run(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", delay_s=120)
    command = asyncio.create_task(_run(app, str(EXAMPLE), "--room", "Demo room"))
    for _ in range(3000):
        runs = (await client.get("/v1/evals")).json()["items"]
        if runs and (await client.get(f"/v1/evals/{runs[0]['id']}/results")).json()["total"]:
            break
        await asyncio.sleep(0.01)
    command.cancel()
    with pytest.raises(asyncio.CancelledError):
        await command
    run = (await client.get(f"/v1/evals/{runs[0]['id']}")).json()
    assert run["status"] == "cancelled"


def test_the_pantheon_command_runs_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``pantheon eval`` is wired into the command line and returns the command's status."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PANTHEON_DATA_DIR", str(tmp_path))
        args = ["eval", str(EXAMPLE), "--room", "Demo room", "--url", "http://127.0.0.1:9"]
        assert main(args) == 1
    assert "cannot reach Pantheon at http://127.0.0.1:9" in capsys.readouterr().err
