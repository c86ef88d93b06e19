"""The page's files as served (docs/adr/0035): gzip when the client takes it, versioned
URLs in index.html (an import map for the modules, modulepreload links, the map's hash in
the CSP), a year of caching for a versioned URL and revalidation for the rest."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re

import httpx

from pantheon.server.web import WEB_DIR
from tests.factories import create_agent
from tests.test_web import _served_urls

IMPORT_MAP = re.compile(r'<script type="importmap">(.*?)</script>')
PRELOAD = re.compile(r'<link rel="modulepreload" href="/([^"?]+)\?v=([0-9a-f]{16})">')
VERSIONED = re.compile(r'(?:src|href)="/([^"#:?]+)\?v=([0-9a-f]{16})"')
YEAR = "public, max-age=31536000, immutable"


def _version(path: str) -> str:
    return hashlib.sha256((WEB_DIR / path).read_bytes()).hexdigest()[:16]


async def test_scripts_are_served_gzipped_to_clients_that_take_it(
    client: httpx.AsyncClient,
) -> None:
    source = (WEB_DIR / "js" / "app.js").read_bytes()
    packed = await client.get("/js/app.js", headers={"Accept-Encoding": "br, gzip;q=0.5"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.content == source  # httpx undoes the gzip
    assert int(packed.headers["content-length"]) < len(source)
    for refused in ("identity", "gzip;q=0", "br"):
        plain = await client.get("/js/app.js", headers={"Accept-Encoding": refused})
        assert "content-encoding" not in plain.headers, refused
        assert plain.content == source
        assert plain.headers["content-type"] == "text/javascript; charset=utf-8"


async def test_index_loads_every_file_by_its_version(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.headers["cache-control"] == "no-cache"
    versioned = dict(VERSIONED.findall(page.text))
    assert {"js/app.js", "css/base.css", "js/core/theme.js", "favicon.svg"} <= set(versioned)
    assert all(version == _version(path) for path, version in versioned.items())
    (raw_map,) = IMPORT_MAP.findall(page.text)
    imports = json.loads(raw_map)["imports"]
    modules = {url.removeprefix("/") for url in _served_urls() if url.startswith("/js/")}
    modules -= {"js/core/theme.js"}  # a classic script, not a module
    assert {key.removeprefix("/") for key in imports} >= modules
    assert all(imports[f"/{p}"] == f"/{p}?v={_version(p)}" for p in modules)
    # Every module app.js reaches is preloaded, so none waits for its importer (the share
    # page's own modules are share.html's: see the next test).
    preloaded = dict(PRELOAD.findall(page.text))
    assert set(preloaded) == modules - {"js/app.js"} - {p for p in modules if "/share/" in p}
    # The import map is an inline script: the CSP allows exactly it, by its hash.
    digest = base64.b64encode(hashlib.sha256(raw_map.encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in page.text
    assert page.text.index('type="importmap"') < page.text.index('rel="modulepreload"')


async def test_the_share_page_loads_its_files_from_the_root(client: httpx.AsyncClient) -> None:
    """share.html is served at /share/<token> (docs/adr/0042): its URLs, import map keys
    and preloads start at "/", so they do not depend on the page's own path."""
    agent = await create_agent(client, "alpha")
    session = await client.post(f"/v1/agents/{agent['id']}/sessions", json={})
    url = (await client.post(f"/v1/sessions/{session.json()['id']}/share")).json()["url"]
    page = await client.get(url)
    assert page.status_code == 200
    versioned = dict(VERSIONED.findall(page.text))
    assert {"js/share/share.js", "css/share.css", "js/core/theme.js"} <= set(versioned)
    assert all(version == _version(path) for path, version in versioned.items())
    (raw_map,) = IMPORT_MAP.findall(page.text)
    imports = json.loads(raw_map)["imports"]
    assert (
        imports["/js/text/markdown-dom.js"]
        == f"/js/text/markdown-dom.js?v={_version('js/text/markdown-dom.js')}"
    )
    assert not any(key.startswith("./") for key in imports)
    preloaded = {p for p, _v in PRELOAD.findall(page.text)}
    assert {"js/share/snapshot.js", "js/text/markdown-dom.js", "js/core/dom.js"} <= preloaded
    assert "js/app.js" not in preloaded
    digest = base64.b64encode(hashlib.sha256(raw_map.encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in page.text


async def test_versioned_urls_are_cached_for_a_year_and_the_rest_revalidated(
    client: httpx.AsyncClient,
) -> None:
    version = _version("css/base.css")
    current = await client.get(f"/css/base.css?v={version}")
    assert current.headers["cache-control"] == YEAR
    for url in ("/css/base.css", "/css/base.css?v=0000000000000000", "/", "/index.html"):
        response = await client.get(url)
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == "no-cache", url
    etag = current.headers["etag"]
    again = await client.get("/css/base.css", headers={"If-None-Match": f'W/"x", {etag}'})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    # The identity bytes carry another tag than the gzip bytes.
    plain = await client.get("/css/base.css", headers={"Accept-Encoding": "identity"})
    assert plain.headers["etag"] != etag
    changed = await client.get("/css/base.css", headers={"If-None-Match": '"0000"'})
    assert changed.status_code == 200


async def test_head_and_refusals(client: httpx.AsyncClient) -> None:
    head = await client.head("/js/app.js", headers={"Accept-Encoding": "gzip"})
    assert head.status_code == 200
    assert head.content == b""
    packed = gzip.compress((WEB_DIR / "js" / "app.js").read_bytes(), compresslevel=9, mtime=0)
    assert head.headers["content-length"] == str(len(packed))
    assert (await client.get("/js/missing.js")).status_code == 404
    assert (await client.get("/js")).status_code == 404
    wrong = await client.post("/js/app.js")
    assert wrong.status_code == 405
    assert wrong.headers["allow"].startswith("GET, HEAD")
    assert (await client.post("/js/missing.js")).status_code == 404
