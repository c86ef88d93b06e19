"""Serves the static web client (``apps/web``) at ``/``.

Mounted after the API routers: Starlette matches routes in order, so ``/v1``, ``/docs``,
``/health`` and ``/ready`` keep answering and only the remaining paths reach the files.
Only the page's own files are served: ``apps/web`` also holds its lint tooling
(``package.json``, ``eslint.config.js``, ``node_modules/``), which stays private.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path, PurePath

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Scope

from pantheon.errors import allowed_methods

log = logging.getLogger("pantheon.web")

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
# The top-level entries of apps/web the browser may fetch; folders include everything below.
PUBLIC_ENTRIES = frozenset({"index.html", "favicon.svg", "css", "js", "vendor"})


class WebFiles(StaticFiles):
    """The page's files: only PUBLIC_ENTRIES (anything else answers 404), and a 405 (other
    methods than GET and HEAD) only for files that exist: Starlette answers 405 to every
    path, so a wrong method on a missing API route (the mount catches everything under
    ``/``) would say 405 instead of 404."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        parts = PurePath(path).parts  # "." (the directory itself, for "/") has none
        if parts and parts[0] not in PUBLIC_ENTRIES:
            return "", None
        return super().lookup_path(path)

    async def get_response(self, path: str, scope: Scope) -> Response:
        if scope["method"] in ("GET", "HEAD"):
            return await super().get_response(path, scope)
        if allowed_methods(Request(scope)) != ["OPTIONS"]:
            # An API route serves this path with other methods: the mount matched only
            # because it takes every method (the 405 handler names the route's methods).
            raise HTTPException(status_code=405)
        # A GET of the same path raises (or, with a 404.html, answers) 404 when nothing is
        # there; its response is never sent, so no file is read.
        found = await super().get_response(path, {**scope, "method": "GET"})
        if found.status_code == 404:
            raise HTTPException(status_code=404)
        raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})


def mount_web(app: FastAPI, directory: Path = WEB_DIR) -> None:
    """Serve ``directory`` at ``/`` (``index.html`` for ``/``); call after the routers."""
    if not (directory / "index.html").is_file():
        # An installed wheel carries only the package; the API still works without the page.
        log.warning("web client not found at %s; serving the API only", directory)
        return
    app.mount("/", WebFiles(directory=directory, html=True), name="web")
