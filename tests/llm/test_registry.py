from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.llm.errors import UnknownModel
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import ModelAlias
from pantheon.settings import Settings

GOOD = """
[models.local]
base_url = "http://127.0.0.1:8081/v1/"
model = "smollm2"
api_key_env = "LOCAL_KEY"
input_price_per_mtok = 0.5
output_price_per_mtok = 2
context_window = 4096

[models.cloud]
base_url = "https://api.example.com/v1"
"""


def registry_from(tmp_path: Path, text: str) -> ModelRegistry:
    path = tmp_path / "models.toml"
    path.write_text(text, encoding="utf-8")
    return ModelRegistry.from_settings(Settings(models_file=path))


def test_without_a_file_only_scripted_exists() -> None:
    registry = ModelRegistry.from_settings(Settings(models_file=None))
    assert registry.names() == ["scripted"]
    assert registry.get("scripted").provider == "scripted"


def test_loads_every_models_table(tmp_path: Path) -> None:
    registry = registry_from(tmp_path, GOOD)
    assert registry.names() == ["cloud", "local", "scripted"]
    assert "local" in registry
    assert "missing" not in registry
    assert registry.get("local") == ModelAlias(
        name="local",
        provider="openai",
        base_url="http://127.0.0.1:8081/v1",
        model="smollm2",
        api_key_env="LOCAL_KEY",
        input_price_per_mtok=0.5,
        output_price_per_mtok=2.0,
        context_window=4096,
    )
    cloud = registry.get("cloud")
    assert (cloud.model, cloud.api_key_env, cloud.context_window) == ("cloud", None, 8192)
    assert [a.name for a in registry.all()] == registry.names()


def test_structured_output_and_stream_tools_default_and_parse(tmp_path: Path) -> None:
    text = GOOD + '\nstructured_output = "json_object"\nstream_tools = false\n'
    registry = registry_from(tmp_path, text)
    cloud = registry.get("cloud")
    assert (cloud.structured_output, cloud.stream_tools) == ("json_object", False)
    local = registry.get("local")
    assert (local.structured_output, local.stream_tools) == ("none", True)


def test_a_file_entry_may_replace_the_builtin_scripted(tmp_path: Path) -> None:
    registry = registry_from(tmp_path, '[models.scripted]\nprovider = "scripted"\nmodel = "x"')
    assert registry.get("scripted").model == "x"


def test_unknown_alias_names_the_known_ones() -> None:
    registry = ModelRegistry([ModelAlias(name="b"), ModelAlias(name="a")])
    with pytest.raises(UnknownModel, match=r"'nope'.*known: a, b"):
        registry.get("nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[models.local\n", "invalid TOML"),
        ("models = 3", "must be a table"),
        ("[models]\nlocal = 3", "models.local must be a table"),
        ('[models.local]\nmodel = "m"', "models.local: missing base_url"),
        ('[models.local]\nbase_url = "http://x"\nbase-url = "y"', "unknown key"),
        ("[models.local]\nbase_url = 5", "base_url must be a string"),
        ('[models.local]\nbase_url = "http://x"\ninput_price_per_mtok = -1', "non-negative"),
        ('[models.local]\nbase_url = "http://x"\ncontext_window = "big"', "positive integer"),
        ('[models.local]\nbase_url = "http://x"\nprovider = "magic"', "provider must be"),
        (
            '[models.local]\nbase_url = "http://x"\nstructured_output = "json"',
            "structured_output must be one of json_schema, json_object, none",
        ),
        ('[models.local]\nbase_url = "http://x"\nstructured_output = 1', "structured_output"),
        ('[models.local]\nbase_url = "http://x"\nstream_tools = "no"', "stream_tools must be"),
    ],
)
def test_bad_files_name_the_file_and_the_alias(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        registry_from(tmp_path, text)
    assert "models.toml" in str(info.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"absent\.toml: cannot read"):
        ModelRegistry.from_settings(Settings(models_file=tmp_path / "absent.toml"))
