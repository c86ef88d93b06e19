"""The operator config file is read in one place (``pantheon/config_file.py``): its three
readers share one parse, and every problem names the file."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from pantheon.config_file import NO_FILE, read_config_file
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.llm.registry import ModelRegistry
from pantheon.settings import Settings, ToolSettings
from pantheon.tools.mcp.config import load_mcp_servers

ALL_SECTIONS = """
[models.local]
base_url = "http://127.0.0.1:8081/v1"

[mcp_servers.files]
command = ["python", "-m", "files_server"]

[embedders.small]
provider = "hashing"
dim = 64
"""


async def test_one_file_feeds_all_three_readers(tmp_path: Path) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_text(ALL_SECTIONS)
    settings = Settings(config_file=path, knowledge={"embedder": "small"})
    assert "local" in ModelRegistry.from_settings(settings)
    (files,) = load_mcp_servers(read_config_file(path), ToolSettings())
    assert files.command == ("python", "-m", "files_server")
    async with httpx.AsyncClient() as http:
        assert build_embedder(settings, http).dim == 64


def test_the_readers_share_one_parse_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_text(ALL_SECTIONS)
    first = read_config_file(path)
    assert read_config_file(path) is first
    path.write_text(ALL_SECTIONS + '\n[models.other]\nbase_url = "http://x/v1"\n')
    again = read_config_file(path)
    assert again is not first
    assert set(again.section("models")) == {"local", "other"}


def test_a_section_is_a_copy_the_reader_may_change(tmp_path: Path) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_text(ALL_SECTIONS)
    models = read_config_file(path).section("models")
    models.clear()
    assert set(read_config_file(path).section("models")) == {"local"}
    assert read_config_file(path).section("absent") == {}
    assert read_config_file(None) is NO_FILE
    assert NO_FILE.section("models") == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[models\n", "cannot read (invalid TOML: "),
        (b'[models.local]\nbase_url = "caf\xe9"\n', "cannot read (not UTF-8: "),
        (b"models = 3", "'models' must be a table of [models.NAME]"),
    ],
)
def test_problems_name_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "pantheon.toml"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"pantheon\.toml") as caught:
        read_config_file(path).section("models")
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"config file {path}: ")


def test_an_unreadable_file_names_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"absent\.toml: cannot read \(No such file"):
        read_config_file(tmp_path / "absent.toml")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    with pytest.raises(ValueError, match=r"folder\.toml: cannot read \(Is a directory"):
        read_config_file(folder)
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.toml"
        locked.write_text(ALL_SECTIONS)
        locked.chmod(0)
        with pytest.raises(ValueError, match=r"locked\.toml: cannot read \(Permission denied"):
            read_config_file(locked)


def test_a_file_that_is_not_utf8_fails_startup_naming_the_file(tmp_path: Path) -> None:
    """Regression: a Latin-1 file raised a bare ``UnicodeDecodeError`` naming no file."""
    path = tmp_path / "pantheon.toml"
    path.write_bytes(b'[models.local]\nbase_url = "http://caf\xe9/v1"\n')
    with pytest.raises(ValueError, match=r"pantheon\.toml: cannot read \(not UTF-8"):
        ModelRegistry.from_settings(Settings(config_file=path))
