"""``[mcp_servers.*]`` parsing: both transports, defaults, ${VAR}, every error names file
and server."""

from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.config_file import read_config_file
from pantheon.settings import ToolSettings
from pantheon.tools.mcp.config import expand, load_mcp_servers

TOOLS = ToolSettings(timeout_s=30, mcp_connect_timeout_s=10)


def _load(tmp_path: Path, toml: str, **environ: str) -> list[object]:
    path = tmp_path / "pantheon.toml"
    path.write_text(toml)
    return list(load_mcp_servers(read_config_file(path), TOOLS, environ))


def test_no_file_means_no_servers() -> None:
    assert load_mcp_servers(read_config_file(None), TOOLS) == []


def test_both_transports_as_in_the_spec(tmp_path: Path) -> None:
    toml = """
[models.local]
base_url = "http://127.0.0.1:8081/v1"

[mcp_servers.orders]
url = "http://127.0.0.1:9000/mcp"
headers = { Authorization = "Bearer ${ORDERS_TOKEN}" }
timeout_s = 12

[mcp_servers.files]
command = ["python", "-m", "my_mcp_server"]
env = { ROOT = "/srv/files", HOME_DIR = "${HOME_DIR}/x" }
connect_timeout_s = 3
"""
    path = tmp_path / "pantheon.toml"
    path.write_text(toml)
    environ = {"ORDERS_TOKEN": "abc", "HOME_DIR": "/h"}
    orders, files = load_mcp_servers(read_config_file(path), TOOLS, environ)
    assert orders.name == "orders"
    assert orders.transport == "http"
    assert orders.url == "http://127.0.0.1:9000/mcp"
    assert orders.headers == {"Authorization": "Bearer abc"}
    assert (orders.timeout_s, orders.connect_timeout_s) == (12, 10)
    assert files.transport == "stdio"
    assert files.command == ("python", "-m", "my_mcp_server")
    assert files.env == {"ROOT": "/srv/files", "HOME_DIR": "/h/x"}
    assert (files.timeout_s, files.connect_timeout_s) == (30, 3)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('url = "http://x/mcp"\ncommand = ["a"]', "exactly one of url"),
        ("timeout_s = 3", "mcp_servers.svc: set exactly one of url"),
        ('url = "ftp://x"', "url: String should match pattern"),
        ("command = []", "command: List should have at least 1 item"),
        ('command = ["", "x"]', "must not contain empty strings"),
        ('command = "python -m x"', "command: Input should be a valid list"),
        ('command = ["x"]\nheaders = { A = "b" }', "headers apply to HTTP servers"),
        ('url = "http://x/mcp"\nenv = { A = "b" }', "env and cwd apply to stdio"),
        ('url = "http://x/mcp"\ntimeout_s = 0', "timeout_s: Input should be greater than 0"),
        ('url = "http://x/mcp"\nretries = 3', "retries: Extra inputs are not permitted"),
        ('url = "http://x/mcp"\nheaders = { A = 1 }', "headers.A: Input should be a valid string"),
        (
            'url = "http://x/mcp"\nheaders = { A = "${NOPE}" }',
            "headers.A: environment variable NOPE",
        ),
        ('command = ["x"]\nenv = { A = "${MISSING}" }', "env.A: environment variable MISSING"),
    ],
)
def test_errors_name_the_file_and_the_server(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"pantheon\.toml: mcp_servers\.svc: ") as caught:
        _load(tmp_path, f"[mcp_servers.svc]\n{table}\n")
    assert message in str(caught.value)
    assert "Value error" not in str(caught.value)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[mcp_servers."bad.name"]\nurl = "http://x/mcp"', "mcp_servers.bad.name: server name"),
        ('[mcp_servers."a__b c"]\nurl = "http://x/mcp"', "server name must match"),
        ("mcp_servers = 3", "'mcp_servers' must be a table"),
        ("[mcp_servers]\nsvc = 3", "mcp_servers.svc: must be a table"),
        ("[mcp_servers.svc\n", "invalid TOML"),
    ],
)
def test_malformed_files(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"pantheon\.toml") as caught:
        _load(tmp_path, toml)
    assert message in str(caught.value)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        load_mcp_servers(read_config_file(tmp_path / "missing.toml"), TOOLS)


def test_expand() -> None:
    env = {"A": "1", "B_2": "two"}
    assert expand("x ${A} ${B_2} $A ${", env) == "x 1 two $A ${"
    with pytest.raises(ValueError, match="environment variable C is not set"):
        expand("${C}", env)
