"""The local server's chat format: llama-cpp-python's ``chatml-function-calling`` with its
known defects worked around where they start, in the messages its template renders.

``python -m pantheon.server.localmodel_chat <llama_cpp.server arguments>`` registers the format
as ``CHAT_FORMAT`` in the server process, then runs ``llama_cpp.server`` itself. The
handler hands the library's own one the messages after ``prepared_messages``:

- The template is rendered with HTML autoescaping, so every quote and angle bracket of a
  prompt reached the model as ``&#39;``, ``&lt;`` ... and it copied them into answers.
  Message texts are marked safe (``markupsafe.Markup``): the model reads them verbatim.
- The template has no branch for ``tool`` messages: tool results never reached the
  model. Each becomes a ``user`` message ``functions.<name> returned:`` plus the result.
- When the model picks ``message:`` while tools are offered, the library writes it under
  the tool grammar and the answer is empty (or a bare ``functions.<name>:``); and given
  a tool's result, SmolLM2 usually calls the same tool with the same arguments again.
  In both cases the handler asks again without tools, so the answer has text.
- The template shows the model each tool's name and parameters, never its description,
  so SmolLM2 chose between ``calculator`` and ``current_time`` by name. The handler puts
  the description first in the parameters' schema, which the template does show.
- The library picks between a message and a call at temperature 0 but writes the call's
  arguments at the request's temperature (the server's default is 0.8), where SmolLM2
  wrote expressions such as ``".*+23,"``. A request with tools runs at temperature 0:
  arguments are data, not prose.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from pantheon.server.localmodel_setup import CHAT_FORMAT

__all__ = [
    "CHAT_FORMAT",
    "chat_handler",
    "described",
    "main",
    "needs_message",
    "prepared_messages",
    "register",
]

# An answer the tool grammar left without a message: nothing, or only call headers.
_NO_MESSAGE = re.compile(r"\s*(functions\.[\w.-]+:\s*)*")


def prepared_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as the template should see them: texts unescaped, each run of tool
    results one ``user`` message naming the tools and restating the question."""
    names: dict[str, str] = {}
    prepared: list[dict[str, Any]] = []
    results: list[str] = []
    question = ""
    for message in messages:
        out = {k: v for k, v in message.items() if v is not None}
        if out.get("role") == "tool":
            name = names.get(str(out.get("tool_call_id")), "tool")
            results.append(f"functions.{name} result: {_text(out).rstrip('. ')}.")
            continue
        if results:
            prepared.append(_results_message(results, question))
            results = []
        calls = out.get("tool_calls")
        if out.get("role") == "assistant" and calls:
            out["tool_calls"] = [_safe_call(call) for call in calls]
            names.update((str(call.get("id")), _name(call)) for call in calls)
        if out.get("role") == "user":
            question = _text(out)
        out["content"] = Markup(_text(out))
        prepared.append(out)
    if results:
        prepared.append(_results_message(results, question))
    return prepared


def _results_message(results: list[str], question: str) -> dict[str, Any]:
    """Tool results as the user's next message. Measured on SmolLM2 (17 * 23, four
    phrasings of the question): with the question restated 4 of 4 answers carried 391;
    as a bare result, 0 to 2."""
    these = "this result" if len(results) == 1 else "these results"
    ask = f" Use {these} to answer: {question}" if question else ""
    return {"role": "user", "content": Markup("\n".join(results) + ask)}


def _text(message: Mapping[str, Any]) -> str:
    """A message's text: a string, or the text parts of a content list."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def _name(call: Mapping[str, Any]) -> str:
    function = call.get("function")
    return str(function.get("name", "")) if isinstance(function, Mapping) else ""


def _safe_call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function")
    function = function if isinstance(function, Mapping) else {}
    safe = {
        "name": Markup(str(function.get("name", ""))),
        "arguments": Markup(str(function.get("arguments", ""))),
    }
    return {**call, "function": safe}


def described(tool: Mapping[str, Any]) -> dict[str, Any]:
    """``tool`` with its description inside its parameters' schema: the only part of a
    tool the template shows the model (the grammar made from the schema ignores it)."""
    function = tool.get("function")
    if not isinstance(function, Mapping) or not function.get("description"):
        return dict(tool)
    parameters = function.get("parameters")
    parameters = dict(parameters) if isinstance(parameters, Mapping) else {"type": "object"}
    parameters = {"description": str(function["description"]), **parameters}
    return {**tool, "function": {**function, "parameters": parameters}}


def needs_message(result: Any, messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a non-streamed answer to a request with tools should be asked again
    without them: it has no text and no calls, or it only repeats calls already made."""
    if not isinstance(result, Mapping) or not result.get("choices"):
        return False
    message = result["choices"][0].get("message") or {}
    calls = message.get("tool_calls") or []
    if not calls:
        return _NO_MESSAGE.fullmatch(message.get("content") or "") is not None
    made = {_call_key(call) for m in messages for call in (m.get("tool_calls") or [])}
    return all(_call_key(call) in made for call in calls)


def _call_key(call: Mapping[str, Any]) -> tuple[str, str]:
    function = call.get("function")
    function = function if isinstance(function, Mapping) else {}
    arguments = str(function.get("arguments", ""))
    with contextlib.suppress(ValueError, RecursionError):
        arguments = json.dumps(json.loads(arguments), sort_keys=True)
    return str(function.get("name", "")), arguments


def chat_handler(**kwargs: Any) -> Any:
    """The library's ``chatml-function-calling`` on prepared messages, at temperature 0
    when tools are offered; an answer with no text and no new call is asked again
    without tools."""
    chatml_function_calling = _llama_cpp("llama_chat_format").chatml_function_calling
    messages = kwargs["messages"]
    kwargs["messages"] = prepared_messages(messages)
    if not kwargs.get("tools"):
        return chatml_function_calling(**kwargs)
    kwargs["tools"] = [described(tool) for tool in kwargs["tools"]]
    result = chatml_function_calling(**{**kwargs, "temperature": 0.0})
    if not kwargs.get("stream") and needs_message(result, messages):
        result = chatml_function_calling(**{**kwargs, "tools": None, "tool_choice": None})
    return result


def register() -> None:
    """Make ``--chat_format CHAT_FORMAT`` mean ``chat_handler`` in this process."""
    registry = _llama_cpp("llama_chat_format").LlamaChatCompletionHandlerRegistry()
    registry.register_chat_completion_handler(CHAT_FORMAT, chat_handler, overwrite=True)


def main() -> None:
    """Register the format, then run llama-cpp-python's server on ``sys.argv``."""
    register()
    _llama_cpp("server.__main__").main()


def _llama_cpp(module: str) -> Any:
    """A module of llama-cpp-python (the ``local`` extra; untyped), imported on use."""
    return importlib.import_module(f"llama_cpp.{module}")


if __name__ == "__main__":
    main()
