"""Serves the static web client (``apps/web``) at ``/``.

Mounted after the API routers: Starlette matches routes in order, so ``/v1``, ``/docs``,
``/health`` and ``/ready`` keep answering and only the remaining paths reach the files.
Only the page's own files are served: ``apps/web`` also holds its lint tooling
(``package.json``, ``eslint.config.js``, ``node_modules/``), which stays private. They are
read once, compressed and versioned (docs/adr/0035): restart the server after editing them.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import Scope

from pantheon.errors import allowed_methods
from pantheon.server.share_page import add_share_page
from pantheon.server.web_assets import INDEX, Asset, read_assets

log = logging.getLogger("pantheon.server.web")

WEB_DIR = Path(__file__).resolve().parents[3] / "web"
# The top-level entries of apps/web the browser may fetch; folders include everything below.
PUBLIC_ENTRIES = frozenset({"index.html", "share.html", "favicon.svg", "css", "js", "vendor"})
# Paths that are the page itself (it reads the path to know what to show): each answers
# index.html. Its file URLs are root-absolute (web_assets.py), so they load from any depth.
PAGE_PATHS = ("/invite/{token}",)
_PAGE_PATTERNS = [compile_path(path)[0] for path in PAGE_PATHS]
IMMUTABLE = "public, max-age=31536000, immutable"  # a versioned URL never changes
REVALIDATE = "no-cache"  # index.html and unversioned URLs: ask again (ETag) every time


class WebFiles(StaticFiles):
    """The page's files: only PUBLIC_ENTRIES (anything else answers 404), read once and
    served from memory, compressed and versioned (``pantheon.server.web_assets``, ADR 0035); a
    405 (other methods than GET and HEAD) only for files that exist: Starlette answers 405
    to every path, so a wrong method on a missing API route (the mount catches everything
    under ``/``) would say 405 instead of 404. A GET that reaches the mount on an API route
    serving other methods only (``POST /auth/logout``) is that route's 405. A path in
    ``PAGE_PATHS`` is index.html."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory, html=True)
        self.root = directory
        self._assets: asyncio.Task[dict[str, Asset]] | None = None

    async def assets(self) -> dict[str, Asset]:
        """The files, read, hashed and compressed in a thread on the first request."""
        if self._assets is None:
            self._assets = asyncio.ensure_future(
                asyncio.to_thread(read_assets, self.root, PUBLIC_ENTRIES)
            )
        return await asyncio.shield(self._assets)

    async def get_response(self, path: str, scope: Scope) -> Response:
        assets = await self.assets()
        name = INDEX if path in ("", ".") else path.replace(os.sep, "/")
        if any(pattern.match(f"/{name}") for pattern in _PAGE_PATTERNS):
            name = INDEX
        if name not in assets and f"{name}/{INDEX}" in assets:
            name = f"{name}/{INDEX}"
        asset = assets.get(name)
        if scope["method"] in ("GET", "HEAD") and asset is not None:
            return asset_response(asset, Request(scope))
        if allowed_methods(Request(scope)) != ["OPTIONS"]:
            # An API route serves this path with other methods: the mount matched only
            # because it takes every method (the 405 handler names the route's methods).
            raise HTTPException(status_code=405)
        if asset is None or scope["method"] in ("GET", "HEAD"):
            raise HTTPException(status_code=404)
        raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})


def asset_response(asset: Asset, request: Request) -> Response:
    """``asset`` for this request: gzip when the client takes it, a year of caching for
    the URL of this very version, else revalidation by ETag (a 304 when unchanged)."""
    gzipped = asset.gzipped is not None and _takes_gzip(request.headers.get("accept-encoding"))
    body = asset.gzipped if gzipped and asset.gzipped is not None else asset.body
    etag = f'"{asset.version}-gzip"' if gzipped else f'"{asset.version}"'
    current = request.query_params.get("v") == asset.version
    headers = {"ETag": etag, "Cache-Control": IMMUTABLE if current else REVALIDATE}
    if asset.gzipped is not None:
        headers["Vary"] = "Accept-Encoding"
    if gzipped:
        headers["Content-Encoding"] = "gzip"
    if etag in _etags(request.headers.get("if-none-match")):
        return Response(status_code=304, headers=headers)
    headers["Content-Length"] = str(len(body))
    content = body if request.method == "GET" else b""
    return Response(content, headers=headers, media_type=asset.media_type)


def _takes_gzip(accept_encoding: str | None) -> bool:
    """Whether ``Accept-Encoding`` allows gzip (named, or ``*``, with a q above 0)."""
    for item in (accept_encoding or "").split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "*"):
            continue
        q = params.strip().lower().removeprefix("q=")
        try:
            return not params.strip() or float(q) > 0
        except ValueError:
            return False
    return False


def _etags(if_none_match: str | None) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in (if_none_match or "").split(",")}


def mount_web(app: FastAPI, directory: Path = WEB_DIR) -> None:
    """Serve ``directory`` at ``/`` (``index.html`` for ``/``); call after the routers."""
    if not (directory / INDEX).is_file():
        # An installed wheel carries only the package; the API still works without the page.
        log.warning("web client not found at %s; serving the API only", directory)
        return
    files = WebFiles(directory)
    add_share_page(app, files.assets, asset_response)  # before the mount, which takes "/"
    app.mount("/", files, name="web")
