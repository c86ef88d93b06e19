"""Presenting results: one table on stdout, one JSON line per benchmark, and the Markdown
page ``docs/benchmarks.md`` (machine, versions, command, table, goals met or not).

The page is the hand-written ``intro.md`` next to this module followed by what this run
measured, so ``make bench`` regenerates everything but the prose.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from pantheon_bench.results import BenchResult

COLUMNS = ("bench", "case", "metric", "pantheon", "baseline", "compare", "goal", "met")
PACKAGES = ("fastapi", "starlette", "uvicorn", "uvloop", "httptools", "httpx", "httpx-aiohttp",
            "aiohttp", "sse-starlette", "sqlalchemy", "aiosqlite", "asyncpg",
            "pydantic")  # fmt: skip
INTRO = Path(__file__).with_name("intro.md")
# Written by ``python -m pantheon_bench.knowledge --write``; kept on the regenerated page.
KNOWLEDGE = Path(__file__).with_name("knowledge") / "results.md"
INJECTION = Path(__file__).with_name("injection") / "results.md"


def _verdict(met: bool | None) -> str:
    return "" if met is None else ("yes" if met else "NO")


def table_rows(results: Sequence[BenchResult]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for r in results:
        if r.skipped:
            rows.append((r.key, "-", "skipped", r.skipped[:100], "", "", "", ""))
        for row in r.rows:
            rows.append((r.key, row.case, row.metric, row.pantheon, row.baseline, row.compare,
                         row.goal, _verdict(row.met)))  # fmt: skip
    return rows


def text_table(results: Sequence[BenchResult]) -> str:
    rows = [COLUMNS, *table_rows(results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def json_line(result: BenchResult) -> str:
    return json.dumps(
        {"bench": result.key, "title": result.title, "met": result.met, "skipped": result.skipped,
         "baseline": result.baseline, "results": result.raw, "notes": result.notes},
        default=str, separators=(",", ":"),
    )  # fmt: skip


def machine() -> dict[str, str]:
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = "unknown"
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split("MemTotal:")[1].split()[0])
        ram = f"{kib / 1024 / 1024:.1f} GiB"
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return {
        "cores (nproc)": str(os.cpu_count()), "CPU": cpu, "RAM": ram,
        "OS": f"{platform.system()} {platform.release()}",
        "Python": sys.version.split()[0], "packages": ", ".join(versions),
    }  # fmt: skip


def markdown(results: Sequence[BenchResult], command: str) -> str:
    parts = [INTRO.read_text().rstrip(), "", "## This run", ""]
    parts += [f"- **{k}**: {v}" for k, v in machine().items()]
    parts += [f"- **command**: `{command}`", "", "### Results", ""]
    parts.append("| " + " | ".join(COLUMNS) + " |")
    parts.append("|" + "---|" * len(COLUMNS))
    parts += [
        "| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in table_rows(results)
    ]
    parts += ["", "### Goals", ""]
    for r in results:
        verdict = (
            "skipped" if r.skipped else {None: "no goal", True: "met", False: "NOT met"}[r.met]
        )
        parts.append(f"- **{r.key} {r.title}**: {verdict}. Baseline: {r.baseline}.")
        parts += [f"  - {note}" for note in r.notes]
        if r.skipped:
            parts.append(f"  - {r.skipped}")
    parts += ["", "### JSON lines", "", "```"]
    parts += [json_line(r) for r in results]
    parts += ["```", ""]
    for section in (KNOWLEDGE, INJECTION):
        if section.exists():
            parts.append(section.read_text())
    return "\n".join(parts)
