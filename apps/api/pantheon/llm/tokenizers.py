"""Token counters for prompt budgets: a real tokenizer where an alias names one, else an
estimate.

An alias's ``tokenizer`` is ``tiktoken:<encoding>`` (the optional ``tiktoken`` package,
e.g. ``tiktoken:o200k_base``), ``gguf:<path>`` (the vocabulary of a GGUF model file, read
with the optional ``llama-cpp-python``), or absent (``estimate``: about four characters
per token, ``llm.tokens``). A tokenizer that cannot be loaded (package missing, file
unreadable) falls back to the estimate with one warning: a turn never fails over counting.

Promises: counters are loaded once per process and shared (``load_counter`` blocks: call
it off the event loop, as ``counter_for`` does); each counter caches its counts per text
(a bounded LRU), so a session's history is tokenized once, not once per call and turn.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from pantheon.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from pantheon.llm.types import ChatMessage

logger = logging.getLogger(__name__)
ESTIMATE = "estimate"
TOKENIZER_KINDS = ("tiktoken", "gguf")
CACHE_ENTRIES = 8192
# Texts shorter than this are counted by the estimate's cost, tokenizer or not: below it
# a tokenizer call costs more than the precision it buys is worth.
_TINY_CHARS = 8


def check_spec(spec: str) -> str:
    """``spec`` when it names a known kind of tokenizer; ``ValueError`` otherwise."""
    kind, sep, arg = spec.partition(":")
    if spec == ESTIMATE or (sep and kind in TOKENIZER_KINDS and arg.strip()):
        return spec
    kinds = ", ".join(f"{k}:<...>" for k in TOKENIZER_KINDS)
    raise ValueError(f"tokenizer must be {ESTIMATE!r} or one of {kinds}, not {spec!r}")


class TokenCounter:
    """Counts tokens of texts with one tokenizer, caching each text's count."""

    def __init__(self, name: str, encode: Callable[[str], int] | None = None) -> None:
        self.name = name
        self.exact = encode is not None
        self._encode = encode or estimate_tokens
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        """Tokens of ``text`` (cached)."""
        if len(text) < _TINY_CHARS or not self.exact:
            return estimate_tokens(text)
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        counted = self._encode(text)
        with self._lock:
            self._cache[text] = counted
            if len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return counted

    def messages(self, messages: Iterable[ChatMessage]) -> int:
        """The prompt size of ``messages``: their text plus a per-message overhead."""
        return sum(self.count(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)

    async def warm(self, texts: Iterable[str], *, inline_chars: int = 20_000) -> None:
        """Count ``texts`` ahead (filling the cache), in a thread when there is much to do."""
        todo = [t for t in texts if len(t) >= _TINY_CHARS]
        if not self.exact or not todo:
            return
        if sum(len(t) for t in todo) <= inline_chars:
            for text in todo:
                self.count(text)
            return
        await asyncio.to_thread(lambda: [self.count(text) for text in todo])


ESTIMATOR = TokenCounter(ESTIMATE)
_loaded: dict[str, TokenCounter] = {}
_load_lock = threading.Lock()


def load_counter(spec: str | None) -> TokenCounter:
    """The shared counter for ``spec`` (blocking on first use: it may read a file)."""
    if spec is None or spec == ESTIMATE:
        return ESTIMATOR
    with _load_lock:
        counter = _loaded.get(spec)
        if counter is None:
            counter = _loaded[spec] = _build(spec)
        return counter


async def counter_for(spec: str | None) -> TokenCounter:
    """``load_counter`` off the event loop (loading a vocabulary takes a moment)."""
    if spec is None or spec == ESTIMATE:
        return ESTIMATOR
    cached = _loaded.get(spec)
    return cached if cached is not None else await asyncio.to_thread(load_counter, spec)


def _build(spec: str) -> TokenCounter:
    kind, _, arg = spec.partition(":")
    try:
        encode = _tiktoken(arg) if kind == "tiktoken" else _gguf(arg)
    except Exception as exc:  # missing package, unknown encoding, unreadable file
        logger.warning("tokenizer %r unavailable (%s); prompts are estimated instead", spec, exc)
        return ESTIMATOR
    return TokenCounter(spec, encode)


def _tiktoken(encoding: str) -> Callable[[str], int]:
    module: Any = importlib.import_module("tiktoken")
    codec = module.get_encoding(encoding)

    def encode(text: str) -> int:
        return len(codec.encode(text, disallowed_special=()))

    return encode


def _gguf(path: str) -> Callable[[str], int]:
    module: Any = importlib.import_module("llama_cpp")
    model = module.Llama(model_path=path, vocab_only=True, verbose=False)
    lock = threading.Lock()  # one llama.cpp vocabulary, used from several threads

    def encode(text: str) -> int:
        with lock:
            return len(model.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return encode
